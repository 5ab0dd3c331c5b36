-- The thread list: `:Tine threads[!]` opens it, and what its keys do, each to the thread on the
-- cursor line. buffers.lua creates the list's buffer and sets the keys that act on threads; the
-- keys of the list's own view (close, filter, folds, label, diff) are set here when it first
-- opens. The host writes its lines and keeps what it shows (the filter, the folds).
-- Over 300 lines: the list's view and its keys share its one buffer and the thread on the
-- cursor line; each key's action is a few lines.
local config = require("tine.config")
local fork = require("tine.fork")
local host = require("tine.host")
local tine = require("tine")
local util = require("tine.util")

local guarded = util.guarded

local M = {}

--- The list's windows as tall as its lines are drawn (a long line wraps), up to list_max_height,
--- all of it in view when it fits. Only a window of its own (not the tab's only one) is sized;
--- 'winfixheight' keeps it when windows open or close around it (a fork's).
---@param buf integer
local function fit(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if #vim.api.nvim_tabpage_list_wins(vim.api.nvim_win_get_tabpage(win)) > 1 then
      vim.wo[win].winfixheight = true
      local rows = vim.api.nvim_win_text_height(win, {}).all
      local height = math.max(1, math.min(rows, config.options.list_max_height))
      pcall(vim.api.nvim_win_set_height, win, height)
      if rows <= height then
        vim.api.nvim_win_call(win, function()
          vim.fn.winrestview({ topline = 1 })
        end)
      end
    end
  end
end

--- The list drawn as the host says (`shown`): sized to its lines, the cursor on the thread the
--- host names (the active one, or the one a key acted on).
---@param shown { bufnr: integer, line: integer|vim.NIL, filter: string }
local function show(shown)
  local buf = shown.bufnr
  vim.b[buf].tine_list_filter = shown.filter
  fit(buf)
  if shown.line ~= nil and shown.line ~= vim.NIL then
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      pcall(vim.api.nvim_win_set_cursor, win, { shown.line + 1, 0 })
    end
  end
end

--- Sizes the list again whenever the host redraws it (a fork made, a thread's state changed),
--- once per batch of changes.
---@param buf integer
local function fit_on_change(buf)
  local pending = false
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      if not pending then
        pending = true
        vim.schedule(function()
          pending = false
          if vim.api.nvim_buf_is_valid(buf) then
            fit(buf)
          end
        end)
      end
    end,
  })
end

--- `q` (and `<Esc>` when no filter is set) in the list: closes its window. The windows it pushed
--- aside get their sizes back (closing it would otherwise equalize them: 'equalalways'), and the
--- cursor goes back to the window it came from, unless the windows changed meanwhile.
local function close()
  local win = vim.api.nvim_get_current_win()
  local came = vim.w[win].tine_list_came
  if not pcall(vim.api.nvim_win_close, win, false) then
    vim.cmd("enew") -- the last window: it stays, showing something else
    return
  end
  if came and #vim.api.nvim_tabpage_list_wins(0) == came.count then
    vim.cmd(came.sizes)
    if vim.api.nvim_win_is_valid(came.win) then
      vim.api.nvim_set_current_win(came.win)
    end
  end
end

--- The headings g? lists the list's keys under (buffers.lua maps the keys that act on a thread).
M.TASKS = { open = "Open and view", fork = "Fork", edit = "Name, label, delete", help = "Help" }

--- The keys of the list's own view, set once on its buffer (g? lists them with the others).
---@param buf integer
local function map_view_keys(buf)
  local km = config.options.keymaps
  local function map(lhs, fn, desc, task)
    require("tine.help").map(buf, "n", lhs, fn, desc, task or M.TASKS.open)
  end
  map("q", close, "close the list")
  map("<Esc>", function()
    if (vim.b[buf].tine_list_filter or "") ~= "" then
      return guarded(function()
        show(host.request("list_filter", ""))
      end)
    end
    close()
  end, "clear the filter, or close the list")
  map(km.list_filter, M.filter, "show only threads whose title or label holds a text")
  map(km.list_diff, M.diff_from_list, "the thread beside its parent (:Tine diff)")
  map(km.label, M.label_from_list, "label the thread", M.TASKS.edit)
  for lhs, how in pairs({ zc = "close", zo = "open", za = "toggle" }) do
    map(lhs, function()
      guarded(function()
        show(host.request("list_fold", vim.api.nvim_win_get_cursor(0)[1] - 1, how))
      end)
    end, ("%s the forks under the thread"):format(({ close = "fold", open = "unfold", toggle = "fold/unfold" })[how]))
  end
  vim.b[buf].tine_list_keys = true
end

--- Times the list was shown by :Tine threads (tests wait for the next one).
M.shown = 0

--- The list's window, made or focused, once the host has drawn the list.
local function show_list(shown)
  local buf = shown.bufnr
  if not vim.b[buf].tine_list_keys then
    map_view_keys(buf)
    fit_on_change(buf)
  end
  local wins = vim.fn.win_findbuf(buf)
  if #wins > 0 then
    vim.api.nvim_set_current_win(wins[1])
  else
    local came = {
      win = vim.api.nvim_get_current_win(),
      sizes = vim.fn.winrestcmd(),
      count = #vim.api.nvim_tabpage_list_wins(0),
    }
    vim.cmd("topleft split")
    vim.api.nvim_win_set_buf(0, buf)
    vim.w.tine_list_came = came
  end
  show(shown)
  M.shown = M.shown + 1
end

--- :Tine threads[!]: the thread list, the cursor on the active thread. Asked without waiting:
--- a host busy with streaming forks does not hold Neovim; the window opens once it answers.
---@param all? boolean every project's threads, grouped by project
function M.open_list(all)
  host.request_async("thread_list", { all == true }, function(err, shown)
    if err then
      return util.err(err)
    end
    show_list(shown)
  end)
end

--- `/` in the list: asks for a text; only threads whose title or label holds it show (with the
--- threads above them). An empty answer shows all again.
function M.filter()
  local buf = vim.api.nvim_get_current_buf()
  vim.ui.input({ prompt = "Threads holding (empty: all): ", default = vim.b[buf].tine_list_filter or "" }, function(answer)
    if answer ~= nil then
      guarded(function()
        show(host.request("list_filter", answer))
      end)
    end
  end)
end

--- The thread on the list's cursor line.
---@return string id
local function list_thread()
  local id = host.request("thread_at_list_line", vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not id then
    error("tine: no thread on this line", 0)
  end
  return id
end

--- Runs `fn` on the thread of the list's cursor line; a line with none is reported.
---@param fn fun(id: string)
local function on_list_thread(fn)
  local ok, id = guarded(list_thread)
  if ok then
    fn(id)
  end
end

--- `<CR>` in the list: opens the thread on the line, or restores an ended fork and opens it.
function M.open_from_list()
  local item = host.request("list_item", vim.api.nvim_win_get_cursor(0)[1] - 1)
  if item and item.type == "ended-fork" then
    if guarded(host.request, "restore", item.id) then
      guarded(tine.open, item.id)
    end
    return
  end
  on_list_thread(function(id)
    local cut = #vim.tbl_filter(function(t)
      return t.id == id and t.status == "interrupted"
    end, tine.threads()) > 0
    if guarded(tine.open, id) and cut then
      M.offer_to_go_on(id)
    end
  end)
end

--- A thread cut off when tine stopped (quit.lua), just opened: a line in its display offers to go
--- on (go_on.lua).
---@param id string
function M.offer_to_go_on(id)
  require("tine.go_on").offer(id)
end

--- After `:Tine` (or `:Tine restart`) reopened a thread from disk: the offer to go on when tine's
--- stop had cut it off (`t.interrupted`, the host's answer to `open` or `active_buffers`).
---@param t { id: string, interrupted?: boolean }
function M.offer_if_cut(t)
  if t.interrupted == true then
    M.offer_to_go_on(t.id)
  end
end

--- `d` in the list: the thread on the line beside its parent, from where they branched.
function M.diff_from_list()
  on_list_thread(tine.diff)
end

--- `f` in the list: forks the thread on the line (asks for the prompt); `w`: into a worktree of its
--- own; with a count (`3f`), that many forks at once, each in a worktree of its own (fanout()).
---@param opts? TineForkOpts
function M.fork_from_list(opts)
  local count = vim.v.count
  on_list_thread(function(id)
    if count > 1 then
      return fork.ask_and_fanout(id, count)
    end
    fork.ask_and_fork(id, opts or vim.empty_dict())
  end)
end

--- The fork keys in the list: ends the fork on the line.
---@param action "discard"|"promote"|"report"
function M.fork_end_from_list(action)
  on_list_thread(function(id)
    tine.fork_end(action, id)
  end)
end

--- `b` in the list: a background fork of the thread under the cursor.
function M.background_from_list()
  local ok, id = guarded(list_thread)
  if not ok then
    return
  end
  vim.ui.input({ prompt = "Background fork prompt: " }, function(answer)
    if answer and vim.trim(answer) ~= "" then
      guarded(tine.fork, id, answer, { background = true })
    end
  end)
end

--- <C-c> in the list: cancels a waiting fork, or aborts the thread on the line.
function M.cancel_from_list()
  local ok, item = guarded(host.request, "list_item", vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not ok or not item then
    return
  end
  if item.type == "waiting-fork" then
    guarded(host.request, "cancel_waiting_fork", item.sourceId)
  else
    guarded(tine.abort, item.id)
  end
end

--- A thread of this project as listed, or nil.
---@param id string
---@return TineThreadInfo?
local function info_of(id)
  for _, t in ipairs(tine.threads()) do
    if t.id == id then
      return t
    end
  end
end

--- Asks for a label (the one there as default) and puts it on thread `id`, or on its message
--- `message`; an empty answer removes it.
---@param id string
---@param message? integer
function M.ask_label(id, message)
  local ok, current = guarded(host.request, "label_at", id, message or vim.NIL)
  if not ok then
    return
  end
  local what = message and "Label this message" or "Label this thread"
  vim.ui.input({ prompt = what .. " (empty removes it): ", default = current }, function(answer)
    if answer ~= nil then
      guarded(host.request, "label", id, message or vim.NIL, answer)
    end
  end)
end

--- `L` in the list: labels the thread on the line.
function M.label_from_list()
  on_list_thread(M.ask_label)
end

--- `r` in the list: renames the thread on the line (asks for the title).
function M.rename_from_list()
  local ok, id = guarded(list_thread)
  if not ok then
    return
  end
  local t = info_of(id)
  vim.ui.input({ prompt = "Rename thread: ", default = t and t.title or "" }, function(answer)
    if answer and vim.trim(answer) ~= "" then
      guarded(tine.rename, id, answer)
    end
  end)
end

--- `D` in the list: deletes the thread on the line, once confirmed.
function M.delete_from_list()
  local ok, id = guarded(list_thread)
  if not ok then
    return
  end
  local t = info_of(id)
  local forks = #vim.tbl_filter(function(o)
    return o.parent_id == id
  end, tine.threads())
  local keep = forks == 0 and "" or forks == 1 and " Its fork keeps its history." or (" Its %d forks keep their history."):format(forks)
  local question = ('Delete "%s"?%s'):format(t and t.title or "this thread", keep)
  if vim.fn.confirm(question, "&Delete\n&Cancel", 2) == 1 then
    guarded(tine.delete, id)
  end
end

return M
