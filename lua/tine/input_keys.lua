-- The keys of a thread's input that answer the thread only in one state of it, and are Vim's
-- own otherwise: while a tool call waits for approval, keys that never edit text answer it
-- (Normal-mode `<C-y>` approve, `<C-n>` deny…: `keymaps.input_approve` and co.), named in a
-- notice under the draft; after an error, with the input empty, `R` sends the failed turn again
-- (and goes on with a turn tine's stop cut off: go_on.lua).
-- The display's `a` `A` `d` `D` are not mapped here: in the input they are the editing keys a draft
-- is written with, and approving a shell command must never ride on `a` or `dd`. The host tells
-- the state (set_pending, set_failed, through host_api.lua); buffers.lua attaches the keys.
local config = require("tine.config")
local help = require("tine.help")
local keys = require("tine.keys")
local util = require("tine.util")
local wrap = require("tine.wrap")

local M = {}

local notice_ns = vim.api.nvim_create_namespace("tine.pending")

--- The display line a key in the input answers for: the display's cursor line where the display
--- is in sight in this tab (with several calls waiting, the one under its cursor, as in the
--- display), else a line past its end (no call under it: the only one waiting, or none).
---@param display integer
---@return integer line 0-based
local function display_line(display)
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == display then
      return vim.api.nvim_win_get_cursor(w)[1] - 1
    end
  end
  return vim.api.nvim_buf_line_count(display)
end

--- The input's answers to a waiting call: { option, action, what the notice calls it, desc }.
local ANSWERS = {
  { "input_approve", "approve", "approve", "approve the tool call" },
  { "input_approve_always", "approve_always", "always", "approve this tool for the rest of the thread" },
  { "input_deny", "deny", "deny", "deny the tool call" },
  { "input_deny_reason", "deny_reason", "deny saying why", "deny the tool call, saying why" },
}

--- `lhs` in the input buffer's Normal mode: answers the waiting call (`answer`) while one waits,
--- and is Vim's own key otherwise (`<C-y>` scrolls, `<C-n>` moves down).
local function approval_key(input, lhs, answer, desc, task)
  help.map(input, "n", lhs, function()
    if vim.b[input].tine_pending then
      vim.schedule(answer)
      return "<Ignore>"
    end
    return lhs
  end, desc .. " (while a tool waits)", task, { expr = true, nowait = false })
end

--- `key` in the input buffer's Normal mode: sends the failed turn again while the thread stopped
--- on an error, or goes on with one tine's stop cut off, while the input is empty (anything typed
--- there is the user's next message: `R` is then Replace mode as always).
local function retry_key(input, id, lhs, task)
  help.map(input, "n", lhs, function()
    local lines = vim.api.nvim_buf_get_lines(input, 0, -1, false)
    local answers = vim.b[input].tine_failed or require("tine.go_on").offered(id)
    if answers and #lines == 1 and lines[1] == "" then
      vim.schedule(function()
        require("tine").retry(id)
      end)
      return "<Ignore>"
    end
    return lhs
  end, "send the failed turn again, or go on with one tine's stop cut off (the input empty)", task, { expr = true, nowait = false })
end

--- What the notice under the draft says while a call waits, as pieces kept whole on a line: what
--- waits, then each key that answers it here.
---@return string[]
local function notice_pieces()
  local km = config.options.keymaps
  local parts = {}
  for _, a in ipairs(ANSWERS) do
    if km[a[1]] then
      table.insert(parts, ("%s %s"):format(km[a[1]], a[3]))
    end
  end
  if #parts == 0 then
    return { "⏳ a tool call waits for your approval:", "answer it in the display" }
  end
  return { "⏳ a tool call waits for your approval (Normal mode):", unpack(parts) }
end

--- Shows (or moves, or takes away) the notice under the input's last line, while a call waits:
--- wrapped to the input's width (virtual lines are cut at the window's edge, not wrapped).
---@param input integer
local function show_notice(input)
  vim.api.nvim_buf_clear_namespace(input, notice_ns, 0, -1)
  if not vim.b[input].tine_pending then
    return
  end
  local width = wrap.window_width(input) or config.options.sidebar.width
  local lines = wrap.pack(notice_pieces(), width, { sep = " · ", after_first = " ", indent = "  " })
  local last = vim.api.nvim_buf_line_count(input) - 1
  vim.api.nvim_buf_set_extmark(input, notice_ns, last, 0, {
    virt_lines = vim.tbl_map(function(line)
      return { { line, "WarningMsg" } }
    end, lines),
  })
end

--- Sets the input's state keys for thread `id` (`km`: the keymaps), filed for g? under `tasks`.
---@param input integer
---@param id string
---@param km table
---@param tasks { turn: string, tools: string }
function M.attach(input, id, km, tasks)
  for _, a in ipairs(ANSWERS) do
    local action = a[2]
    approval_key(input, km[a[1]], function()
      local display = vim.b[input].tine_display
      local line = display and display_line(display) or 0
      if action == "deny_reason" then
        keys.deny_with_reason(id, line)
      else
        keys.line_action(id, action, nil, line)
      end
    end, a[4], tasks.tools)
  end
  retry_key(input, id, km.retry, tasks.turn)
  -- The notice stays under the draft's last line as it grows or shrinks, and fits the window
  -- that shows it.
  vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI", "BufWinEnter" }, {
    buffer = input,
    callback = function()
      if vim.b[input].tine_pending then
        show_notice(input)
      end
    end,
  })
end

-- A resized window that shows an input with a notice: the notice is wrapped again to it.
vim.api.nvim_create_autocmd("WinResized", {
  group = vim.api.nvim_create_augroup("tine.input_keys", { clear = true }),
  callback = function()
    for _, win in ipairs(vim.v.event.windows or {}) do
      local buf = vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win)
      if buf and vim.b[buf].tine_pending then
        show_notice(buf)
      end
    end
  end,
})

--- The host says whether a tool of the thread waits for approval. The input's answer keys then
--- answer it, and its notice names them; a thread not in sight says so once.
function M.set_pending(input, pending, title, tell)
  if not vim.api.nvim_buf_is_valid(input) then
    return
  end
  vim.b[input].tine_pending = pending
  show_notice(input)
  if pending and tell then
    if not util.thread_in_tab(vim.b[input].tine_thread) then
      vim.notify(("tine: %s waits for your approval of a tool call"):format(title), vim.log.levels.WARN)
    end
  end
end

--- The host says whether the thread stopped on an error: `R` in an empty input then retries.
function M.set_failed(input, failed)
  if vim.api.nvim_buf_is_valid(input) then
    vim.b[input].tine_failed = failed
  end
end

return M
