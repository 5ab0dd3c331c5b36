-- tine's buffers: a thread's display and input, and the thread list. Made when the host asks
-- (host_api.lua), with their keys (what the keys do is in keys.lua, fork.lua, list.lua and the
-- API), renamed, closed, and told when the host dies. Their windows are ui.lua's job.
-- Over 300 lines: a buffer and its keys are made together, each key with the description g?
-- shows (help.lua), so that no buffer exists without its keys; each mapping is a few lines.
local complete = require("tine.complete")
local config = require("tine.config")
local fork = require("tine.fork")
local help = require("tine.help")
local input_keys = require("tine.input_keys")
local keys = require("tine.keys")
local list = require("tine.list")
local tine = require("tine")
-- Its autocmds give each window that shows a thread's buffer that thread's status line.
require("tine.statusline")
local ui = require("tine.ui")

local M = {}

local function scratch(name, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = filetype
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

local function map(buf, modes, lhs, fn, desc)
  if not lhs or lhs == "" then
    return
  end
  vim.keymap.set(modes, lhs, fn, { buffer = buf, nowait = true, silent = true, desc = "tine: " .. desc })
end

--- Maps each key of `handlers` ({ lhs, fn, desc }: `fn` returns whether it acted on the line)
--- once: the handlers given that key are tried in order; when none acts, the key is fed back as
--- Vim's own (with its count).
---@param buf integer
---@param handlers { [1]: string|false|nil, [2]: fun(): boolean, [3]: string }[]
local function line_keys(buf, handlers)
  local by_key, order = {}, {}
  for _, h in ipairs(handlers) do
    local lhs = h[1]
    if lhs and lhs ~= "" then
      if not by_key[lhs] then
        by_key[lhs] = {}
        table.insert(order, lhs)
      end
      table.insert(by_key[lhs], h)
    end
  end
  for _, lhs in ipairs(order) do
    local chain = by_key[lhs]
    local descs = vim.tbl_map(function(h)
      return h[3]
    end, chain)
    map(buf, "n", lhs, function()
      for _, h in ipairs(chain) do
        if h[2]() then
          return
        end
      end
      local count = vim.v.count > 0 and tostring(vim.v.count) or ""
      vim.api.nvim_feedkeys(count .. vim.api.nvim_replace_termcodes(lhs, true, false, true), "n", false)
    end, table.concat(descs, "; "))
  end
end

--- Buffers unloaded or wiped by the user (:bd, :bw) are recreated by the host on the next show:
--- it is told once the autocmd is over, with the unsent input so nothing typed is lost.
local function watch(buf, id, display, input)
  vim.api.nvim_create_autocmd("BufUnload", {
    buffer = buf,
    once = true,
    callback = function()
      if vim.b[buf].tine_closing or vim.v.exiting ~= vim.NIL then
        return
      end
      local draft = vim.api.nvim_buf_is_valid(input) and vim.api.nvim_buf_get_lines(input, 0, -1, false) or {}
      vim.schedule(function()
        -- The pair goes together (its names are freed for the new pair), then the host forgets it.
        M.close_thread_buffers(display, input)
        if require("tine.host").running() then
          pcall(require("tine.host").request, "buffers_gone", id, draft)
        end
      end)
    end,
  })
end

--- Input drafts kept across :Tine restart (the old host, which kept them, is gone), by thread id.
local kept_drafts = {}

--- Keeps `lines` as thread `id`'s unsent input until its buffers are made again.
---@param id string
---@param lines string[]
function M.keep_draft(id, lines)
  if #lines > 1 or (lines[1] or "") ~= "" then
    kept_drafts[id] = lines
  end
end

--- Takes the kept drafts of threads the new host does not know (never stored: no message yet).
---@param known table<string, boolean> the ids the new host knows
---@return table<string, string[]> draft by thread id
function M.take_drafts_of_unknown(known)
  local out = {}
  for id, lines in pairs(kept_drafts) do
    if not known[id] then
      out[id] = lines
      kept_drafts[id] = nil
    end
  end
  return out
end

function M.create_thread_buffers(id, num, title, draft)
  if (not draft or #draft == 0) and kept_drafts[id] then
    draft = kept_drafts[id]
  end
  kept_drafts[id] = nil
  local km = config.options.keymaps
  local names = require("tine.names")
  local display_name, input_name = names.thread(num, title, "display"), names.thread(num, title, "input")
  -- The first thread takes over the buffers `:Tine` showed while the host started.
  local claimed = require("tine.placeholder").claim(display_name, input_name)
  local display = claimed and claimed.display or scratch(display_name, "markdown")
  vim.bo[display].modifiable = false
  local input = claimed and claimed.input or scratch(input_name, "markdown")
  vim.b[display].tine_thread = id
  vim.b[input].tine_thread = id
  vim.b[display].tine_input = input
  vim.b[input].tine_display = display
  if draft and #draft > 0 then
    vim.api.nvim_buf_set_lines(input, 0, -1, false, draft)
  end
  watch(display, id, display, input)
  watch(input, id, display, input)
  -- Replies are markdown: their markup (`**bold**`, `` `code` ``) is hidden where the filetype's
  -- highlighting says so, in whatever window shows the display (for this buffer only: :setlocal).
  vim.api.nvim_create_autocmd("BufWinEnter", {
    buffer = display,
    callback = function()
      vim.opt_local.conceallevel = 2
    end,
  })
  -- A display `:Tine` showed before the host started (claimed above) is in a window already.
  for _, win in ipairs(vim.fn.win_findbuf(display)) do
    vim.api.nvim_set_option_value("conceallevel", 2, { scope = "local", win = win })
  end
  complete.attach(input)

  map(input, "n", km.send, function()
    keys.send_input(input)
  end, "send")
  map(input, { "n", "i" }, km.send_any, function()
    keys.send_input(input)
  end, "send (Insert mode too)")
  input_keys.attach(input, id, km)
  map(input, "n", km.help, function()
    help.show(input)
  end, "show these keys")
  map(display, "n", km.help, function()
    help.show(display)
  end, "show these keys")
  map(input, { "n", "i" }, km.abort, function()
    tine.abort(id)
  end, "abort")
  map(display, "n", km.abort, function()
    tine.abort(id)
  end, "abort")
  map(display, "n", km.retry, function()
    tine.retry(id)
  end, "send the failed turn again, or go on with one tine's stop cut off")
  map(display, "n", km.toggle_detail, function()
    keys.line_action(id, "toggle")
  end, "expand/collapse")
  map(display, "n", km.approve, function()
    keys.line_action(id, "approve")
  end, "approve tool call")
  map(display, "n", km.approve_always, function()
    keys.line_action(id, "approve_always")
  end, "approve this tool for the rest of the thread")
  if km.deny == "d" then
    -- `d` is also the start of `dd`, which cancels a queued message: on one, it waits for the second `d`.
    map(display, "n", km.deny, function()
      keys.deny_or_cancel(id)
    end, "deny tool call (dd on a queued message: cancel it)")
  else
    map(display, "n", km.deny, function()
      keys.line_action(id, "deny")
    end, "deny tool call")
    map(display, "n", "dd", function()
      keys.cancel_queued(id)
    end, "cancel the queued message")
  end
  map(display, "n", km.deny_reason, function()
    keys.deny_with_reason(id)
  end, "deny the tool call, saying why (the model is told)")
  -- The display cannot be edited: Vim's keys that would start typing there go to the input.
  for _, k in ipairs({ { "i", false }, { "I", false }, { "o", true }, { "O", true } }) do
    map(display, "n", k[1], function()
      keys.go_to_input(input, k[2])
    end, "type in the input")
  end
  -- Keys that act on what is under the cursor, several of which may be set to one key (both are
  -- <CR> by default): each is tried in turn; on a line none acts on, the key does what it always does.
  line_keys(display, {
    {
      km.open_change,
      function()
        return require("tine.code").open_change(id)
      end,
      "a changed file beside its state before the turn",
    },
    {
      km.edit_queued,
      function()
        return keys.edit_queued(id, input)
      end,
      "take the queued message back into the input",
    },
  })
  map(display, "n", km.fork_at_message, function()
    fork.fork_command({ bang = true })
  end, "fork at this message")
  map(display, "x", km.fork_at_message, function()
    fork.fork_selection()
  end, "fork quoting the selection")
  map(display, "n", km.go_to_parent, function()
    keys.go_to_parent(id)
  end, "go to parent thread")
  map(display, "n", km.go_to_fork, function()
    keys.go_to_fork(id)
  end, "go to the fork taken at this message")
  map(display, "n", km.label, function()
    keys.label_message(id)
  end, "label the message")
  map(display, "n", km.edit_message, function()
    keys.edit_message(id)
  end, "edit your message in a fork (this thread stays as it is)")
  map(display, "n", km.compact, function()
    keys.compact_message(id)
  end, "compact up to this message into a new thread (this one stays whole)")
  map(display, "n", km.fork_report, function()
    tine.fork_end("report", id)
  end, "fork: report to the parent and end")
  map(display, "n", km.fork_promote, function()
    tine.fork_end("promote", id)
  end, "fork: promote into the parent")
  map(display, "n", km.fork_discard, function()
    tine.fork_end("discard", id)
  end, "fork: discard")
  return { display = display, input = input }
end

function M.create_list_buffer()
  local km = config.options.keymaps
  local buf = scratch("tine://threads", "tine-threads")
  vim.bo[buf].modifiable = false
  map(buf, "n", km.help, function()
    help.show(buf)
  end, "show these keys")
  map(buf, "n", km.list_open, function()
    list.open_from_list()
  end, "open thread (an interrupted one: offers to go on)")
  map(buf, "n", km.list_fork, function()
    list.fork_from_list()
  end, "fork thread")
  map(buf, "n", km.list_worktree, function()
    list.fork_from_list({ worktree = true })
  end, "fork thread into a worktree of its own")
  map(buf, "n", km.list_rename, function()
    list.rename_from_list()
  end, "rename thread")
  map(buf, "n", km.list_delete, function()
    list.delete_from_list()
  end, "delete thread")
  map(buf, "n", km.abort, function()
    list.cancel_from_list()
  end, "cancel a waiting fork / abort")
  map(buf, "n", km.list_background, function()
    list.background_from_list()
  end, "background fork (reports back)")
  map(buf, "n", km.fork_report, function()
    list.fork_end_from_list("report")
  end, "fork: report to the parent and end")
  map(buf, "n", km.fork_promote, function()
    list.fork_end_from_list("promote")
  end, "fork: promote into the parent")
  map(buf, "n", km.fork_discard, function()
    list.fork_end_from_list("discard")
  end, "fork: discard")
  return buf
end

--- The buffers' names follow the thread's title (a terminal's one buffer, or the display and input).
function M.set_title(display, num, title)
  if not vim.api.nvim_buf_is_valid(display) then
    return
  end
  local names = require("tine.names")
  local input = vim.b[display].tine_input
  local renames = input == display and { { display, "claude" } } or { { display, "display" }, { input, "input" } }
  for _, r in ipairs(renames) do
    local buf = r[1]
    if type(buf) == "number" and vim.api.nvim_buf_is_valid(buf) then
      local old = vim.api.nvim_buf_get_name(buf)
      pcall(vim.api.nvim_buf_set_name, buf, names.thread(num, title, r[2]))
      -- Renaming leaves an unloaded buffer holding the old name (as `:file` does): wipe it.
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if b ~= buf and not vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == old then
          pcall(vim.api.nvim_buf_delete, b, { force = true })
        end
      end
    end
  end
end

--- A deleted thread's buffers go; windows showing them keep their place with another buffer.
function M.close_thread_buffers(display, input)
  for _, buf in ipairs({ input, display }) do
    if vim.api.nvim_buf_is_valid(buf) then
      vim.b[buf].tine_closing = true
      for _, win in ipairs(vim.fn.win_findbuf(buf)) do
        if #vim.api.nvim_list_wins() > 1 then
          pcall(vim.api.nvim_win_close, win, true)
        else
          vim.api.nvim_win_set_buf(win, vim.api.nvim_create_buf(true, false))
        end
      end
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
end

--- After a tool wrote `path`: a buffer holding it is reloaded, unless it has unsaved changes.
---@param path string
---@param by? string what wrote it (default: edit_file)
function M.file_written(path, by)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if
      vim.api.nvim_buf_is_loaded(buf)
      and vim.api.nvim_buf_get_name(buf) ~= ""
      and vim.fn.resolve(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":p")) == vim.fn.resolve(path)
    then
      if vim.bo[buf].modified then
        vim.notify(
          ("tine: %s was changed by %s, but your buffer has unsaved changes: it was not reloaded (:e! to take the file's)"):format(
            vim.fn.fnamemodify(path, ":~:."),
            by or "edit_file"
          ),
          vim.log.levels.WARN
        )
      else
        vim.api.nvim_buf_call(buf, function()
          vim.cmd("silent! edit!")
        end)
      end
    end
  end
end

--- Called when the host dies: thread buffers no longer update; say so in each, and in the list.
function M.host_died()
  require("tine.host_api").stop_spinners()
  require("tine.quit").let_go()
  local note = "⚠ The tine host exited: :Tine restart starts a new one (stored threads come back)."
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local is_list = vim.api.nvim_buf_get_name(buf) == "tine://threads"
    if (vim.b[buf].tine_thread and not require("tine.names").is_input(buf)) or is_list then
      vim.bo[buf].modifiable = true
      if is_list then
        vim.api.nvim_buf_set_lines(buf, 0, 0, false, { note })
      else
        vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", note })
      end
      vim.bo[buf].modifiable = false
    end
  end
end

return M
