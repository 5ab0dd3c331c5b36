-- What the keys of a thread's display and input buffers do, where no command or API function
-- does it: send the input, act on the line under the cursor, go to a fork's parent or to a fork
-- taken at a message. buffers.lua sets the keys; `F` is in fork.lua, and the keys that end a
-- fork call fork_end() (init.lua).
-- Over 300 lines: the one place the thread buffers' keys act, each a few lines; they share
-- finding the thread, the message and the queued item under the cursor.
local host = require("tine.host")
local ui = require("tine.ui")
local util = require("tine.util")

local err, guarded = util.err, util.guarded

local M = {}

--- Whether the user lets files that lead outside the project go with a message (`outside`: the
--- host's list, each file as named and where it leads). Asked as get_file's reads outside are.
---@param outside { path: string, target: string }[]
---@return boolean
local function approve_outside(outside)
  local lines = {}
  for _, f in ipairs(outside) do
    table.insert(lines, ("@file:%s leads outside the project, to %s"):format(f.path, f.target))
  end
  table.insert(lines, #outside == 1 and "Send its content with the message?" or "Send their content with the message?")
  return vim.fn.confirm(table.concat(lines, "\n"), "&Send\n&Cancel", 2) == 1
end

--- request_send's exchange with the host (the questions for files outside the project included).
---@param id string
---@param text string
---@return TineSendResult
local function request_send(id, text)
  local result = host.request("send", id, text)
  local approved = {}
  -- Asked again when a link changed meanwhile: each yes is for the files as the question named them.
  while type(result) == "table" and type(result.outside) == "table" do
    local outside = result.outside
    if not approve_outside(outside) then
      local names = table.concat(
        vim.tbl_map(function(f)
          return f.path
        end, outside),
        ", "
      )
      error(("tine: not sent: %s lead%s outside the project, not approved"):format(names, #outside == 1 and "s" or ""), 0)
    end
    for _, f in ipairs(outside) do
      table.insert(approved, f.target)
    end
    result = host.request("send", id, text, approved)
  end
  -- A message went: an offer to go on with a cut-off turn is answered.
  require("tine.go_on").withdraw(id)
  return result
end

--- Sends `text` through the host's one entry for what the user writes (`@`-commands and mentions
--- included). Files named alone that lead outside the project wait for the user's yes, asked
--- here; a no raises, and nothing is sent. Raises what the host refuses.
---@param id string
---@param text string
---@return TineSendResult
function M.request_send(id, text)
  -- Counted as working from now (a quit typed right behind it is asked), until the host tells.
  local quit = require("tine.quit")
  quit.send_starts()
  local ok, result = pcall(request_send, id, text)
  quit.send_ends(ok)
  if not ok then
    error(result, 0)
  end
  return result
end

--- Sends `text` (request_send). A failure is reported. After an error, the new text replaces the
--- failed turn, whose text is returned for the input.
---@param id string
---@param text string
---@return boolean ok the host took the message
---@return string replaced
local function send(id, text)
  local ok, result = guarded(M.request_send, id, text)
  local replaced = ok and type(result) == "table" and result.replaced or ""
  if replaced ~= "" then
    vim.notify("tine: your new message replaced the one that failed; its text is back in the input", vim.log.levels.INFO)
  end
  return ok, replaced
end

--- <CR> in an input buffer: the input is cleared only when the host accepted it (then it holds
--- the failed turn's text the message replaced, if any). An empty input goes too: it sends the
--- messages held after an abort or an error (the host ignores it otherwise).
---@param buf integer the input buffer
function M.send_input(buf)
  local id = vim.b[buf].tine_thread
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  local ok, replaced = send(id, text)
  if ok then
    ui.follow_end(vim.b[buf].tine_display)
  end
  if ok and vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, replaced ~= "" and vim.split(replaced, "\n") or {})
  end
end

--- Sends `text` (not typed in the input: `:Tine ask`) as the input would; the input keeps what the
--- user is writing, and gets the failed turn's text the message replaced below it.
---@param id string
---@param input integer the thread's input buffer
---@param text string
---@return boolean ok the host took the message
function M.send_text(id, input, text)
  local ok, replaced = send(id, text)
  if ok and vim.api.nvim_buf_is_valid(input) then
    ui.follow_end(vim.b[input].tine_display)
  end
  if ok and replaced ~= "" and vim.api.nvim_buf_is_valid(input) then
    local have = vim.api.nvim_buf_get_lines(input, 0, -1, false)
    local blank = #have == 1 and have[1] == ""
    vim.api.nvim_buf_set_lines(input, blank and 0 or -1, -1, false, vim.split(replaced, "\n"))
  end
  return ok
end

--- A key on a display line: toggle a detail, or approve or deny the tool call under the cursor
--- (`approve_always`: that tool's later calls in the thread too; `reason`: why it is denied).
---@param id string the thread shown
---@param action "toggle"|"approve"|"approve_always"|"deny"
---@param reason? string
---@param line? integer the display line (0-based) meant; nil: the cursor's (a key in the input gives one)
function M.line_action(id, action, reason, line)
  line = line or vim.api.nvim_win_get_cursor(0)[1] - 1
  guarded(host.request, "line_action", id, line, action, reason)
end

--- `D`: asks why, then denies the tool call under the cursor (as `d`) with that reason, which the
--- model is told. Cancelling the question denies nothing.
---@param id string the thread shown
---@param line? integer the display line (0-based) meant; nil: the cursor's
function M.deny_with_reason(id, line)
  line = line or vim.api.nvim_win_get_cursor(0)[1] - 1 -- where the cursor was when asked
  vim.ui.input({ prompt = "Deny the tool call: why? " }, function(reason)
    if reason then
      guarded(host.request, "line_action", id, line, "deny", reason)
    end
  end)
end

--- `i`, `o` (and `I`, `O`) in the display, which cannot be edited: to the thread's input in this
--- tab, in Insert mode at its end (`o`: on a new line after its text).
---@param input integer the thread's input buffer
---@param new_line boolean
function M.go_to_input(input, new_line)
  local win = vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_tabpage(w) == vim.api.nvim_get_current_tabpage()
  end, vim.fn.win_findbuf(input))[1]
  if not win then
    return err("tine: this thread's input is not in a window here (:Tine shows it)")
  end
  vim.api.nvim_set_current_win(win)
  local last = vim.api.nvim_buf_line_count(input)
  local text = vim.api.nvim_buf_get_lines(input, last - 1, last, false)[1]
  if new_line and not (last == 1 and text == "") then
    vim.api.nvim_buf_set_lines(input, last, last, false, { "" })
    last = last + 1
  end
  vim.api.nvim_win_set_cursor(win, { last, 0 })
  vim.cmd("startinsert!")
end

--- The message queued while the agent works under the cursor of the display, or nil.
---@param id string the thread shown
---@return { item: integer, text: string }?
local function queued_under_cursor(id)
  local ok, q = guarded(host.request, "queued_at", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if ok and q ~= nil and q ~= vim.NIL then
    return q
  end
end

--- `dd` on a queued message: it is cancelled, never sent; its text goes to the unnamed register,
--- as `dd` puts a line there (`p` in the input brings it back).
---@param id string the thread shown
---@param q { item: integer, text: string }? the message (nil: the one under the cursor)
function M.cancel_queued(id, q)
  q = q or queued_under_cursor(id)
  if not q then
    return err("tine: no queued message here (they show under the reply, marked ⏳ queued)")
  end
  if guarded(host.request, "unqueue", id, q.item) then
    vim.fn.setreg('"', vim.split(q.text, "\n"), "l")
    vim.notify('tine: the queued message is cancelled (its text is in the " register)', vim.log.levels.INFO)
  end
end

--- `d` in the display: on a queued message it starts `dd` (cancel it), as `d` waits for its
--- motion anywhere else in Neovim; on any other line it denies the tool call (see line_action).
---@param id string the thread shown
function M.deny_or_cancel(id)
  local q = queued_under_cursor(id)
  if not q then
    return M.line_action(id, "deny")
  end
  if vim.fn.getcharstr() == "d" then
    M.cancel_queued(id, q)
  end
end

--- The edit key (<CR>) on a queued message: it leaves the queue and its text goes into the input
--- (after what the input holds, so nothing typed is lost), the cursor with it.
---@param id string the thread shown
---@param input integer the thread's input buffer
---@return boolean acted the cursor was on a queued message
function M.edit_queued(id, input)
  local q = queued_under_cursor(id)
  if not q then
    return false
  end
  if not guarded(host.request, "unqueue", id, q.item) or not vim.api.nvim_buf_is_valid(input) then
    return true
  end
  local lines = vim.split(q.text, "\n")
  local draft = vim.api.nvim_buf_get_lines(input, 0, -1, false)
  local empty = #draft == 1 and draft[1] == ""
  vim.api.nvim_buf_set_lines(input, empty and 0 or -1, -1, false, empty and lines or vim.list_extend({ "" }, lines))
  local win = vim.fn.win_findbuf(input)[1]
  if win then
    vim.api.nvim_set_current_win(win)
    vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(input), 0 })
  end
  if not empty then
    vim.notify("tine: the queued message is back in the input, after what you had typed there", vim.log.levels.INFO)
  end
  return true
end

--- The resolve key (<CR>) on a waiting merge's line (⚠ merge of …): the agent is asked to resolve
--- its conflicts, sent as `:Tine ask` sends (the conflicted files go with it as mentions).
---@param id string the thread shown
---@param input integer the thread's input buffer
---@return boolean acted the cursor was on a waiting merge's line
function M.resolve_merge(id, input)
  local ok, prompt = guarded(host.request, "resolve_merge_at", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not ok or prompt == nil or prompt == vim.NIL then
    return false
  end
  M.send_text(id, input, prompt)
  return true
end

--- The display buffer of the thread shown in the current window (display or input).
---@return integer
local function current_display()
  local buf = vim.api.nvim_get_current_buf()
  return vim.b[buf].tine_display or buf
end

--- Shows thread `to` where the current thread is (display and input together), or jumps to it
--- when it is already in a window of this tab; the cursor goes to message `at_message`.
---@param to string
---@param at_message? integer
local function navigate(to, at_message)
  local t = host.request("select", to)
  local here = vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_tabpage(w) == vim.api.nvim_get_current_tabpage()
  end, vim.fn.win_findbuf(t.display))
  if #here > 0 then
    vim.api.nvim_set_current_win(here[1])
  else
    ui.switch(current_display(), t.display, t.input)
  end
  if at_message then
    local at = host.request("locate_message", to, at_message)
    if at then
      vim.api.nvim_win_set_cursor(0, { at + 1, 0 })
    end
  end
end

--- `gp` in a fork: to the message its parent forked at. A failure is reported.
---@param id string the fork
function M.go_to_parent(id)
  local ok, lineage = guarded(host.request, "lineage", id)
  if not ok then
    return
  end
  if not lineage then
    return err("tine: this thread is not a fork")
  end
  if lineage.parent_gone then
    return err("tine: the thread this fork came from was deleted: this fork goes on without it")
  end
  guarded(navigate, lineage.parent_id, lineage.at_message)
end

--- The message under the cursor of thread `id`'s display, or nil (the failure reported).
---@param id string
---@return integer?
local function message_under_cursor(id)
  local ok, at = guarded(host.request, "locate", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if ok and (at == nil or at == vim.NIL) then
    err("tine: the cursor is not on a message")
  elseif ok then
    return at.message
  end
end

--- `L` on a message: asks for its label (list.lua asks the same for a thread).
---@param id string the thread shown
function M.label_message(id)
  local message = message_under_cursor(id)
  if message then
    require("tine.list").ask_label(id, message)
  end
end

--- `e` on a message the user wrote: a fork at the message before it opens with that message's text
--- in its input, to edit and send; the thread itself is left as it is.
---@param id string the thread shown
function M.edit_message(id)
  local message = message_under_cursor(id)
  if message then
    guarded(host.request, "edit_message", id, message)
  end
end

--- `C` on a message: a new thread under this one with a summary of what came before the message
--- and the rest verbatim (this thread stays whole).
---@param id string the thread shown
function M.compact_message(id)
  local message = message_under_cursor(id)
  if message then
    guarded(host.request, "compact", id, "", message)
  end
end

--- `gb` on a message with a ⑂ mark: jump to the fork taken there (a choice when several were).
---@param id string the thread shown
function M.go_to_fork(id)
  local ok, forks = guarded(host.request, "forks_at", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not ok then
    return
  end
  if #forks == 0 then
    return err("tine: no fork was taken at this message (forks show as ⑂ marks)")
  end
  if #forks == 1 then
    return guarded(navigate, forks[1].id)
  end
  vim.ui.select(forks, {
    prompt = "Go to fork",
    format_item = function(f)
      return f.title
    end,
  }, function(f)
    if f then
      guarded(navigate, f.id)
    end
  end)
end

return M
