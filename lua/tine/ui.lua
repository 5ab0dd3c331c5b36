-- Where tine's windows go: the sidebar of each tab, a fork beside its source, and the g? float.
-- Owns no state beyond which windows form the sidebar; everything about threads lives in the
-- host. The buffers the windows show are made in buffers.lua and terminal.lua.
local config = require("tine.config")

local M = {}

--- Per tabpage: { display = win, input = win }.
M.sidebars = {}

local function valid_win(w)
  return w ~= nil and vim.api.nvim_win_is_valid(w)
end

local function setup_window(win)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].signcolumn = "no"
  vim.wo[win].winfixwidth = false
end

--- Puts a thread's display and input buffers in a pair of stacked windows starting from `win`.
--- A Claude Code thread has one buffer, its terminal: one window.
local function fill_pair(win, display, input)
  vim.api.nvim_win_set_buf(win, display)
  if display == input then
    return win, win
  end
  setup_window(win)
  vim.api.nvim_set_current_win(win)
  vim.cmd(("belowright %dsplit"):format(config.options.sidebar.input_height))
  local iwin = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(iwin, input)
  setup_window(iwin)
  vim.wo[iwin].winfixheight = true
  return win, iwin
end

--- The sidebar's windows in the current tab (each tab has its own).
function M.sidebar()
  local tab = vim.api.nvim_get_current_tabpage()
  M.sidebars[tab] = M.sidebars[tab] or {}
  return M.sidebars[tab]
end

--- Both windows of the sidebar are open in this tab (after `:q` in one, `:Tine` restores the pair).
function M.sidebar_open()
  local sb = M.sidebar()
  return valid_win(sb.display) and valid_win(sb.input)
end

function M.close_sidebar()
  local sb = M.sidebar()
  for _, w in ipairs({ sb.display, sb.input }) do
    if valid_win(w) and #vim.api.nvim_tabpage_list_wins(0) > 1 then
      vim.api.nvim_win_close(w, false)
    end
  end
  sb.display, sb.input = nil, nil
end

--- Puts the cursor at the end of `win`, so it follows the text as it streams in.
local function follow(win)
  local buf = vim.api.nvim_win_get_buf(win)
  pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(buf), 0 })
end

--- Shows a thread in the sidebar (opening it if needed) and focuses its input.
function M.show(display, input)
  local opts = config.options.sidebar
  local sb = M.sidebar()
  if valid_win(sb.display) and valid_win(sb.input) then
    vim.api.nvim_win_set_buf(sb.display, display)
    vim.api.nvim_win_set_buf(sb.input, input)
  else
    M.close_sidebar()
    vim.cmd((opts.side == "left" and "topleft" or "botright") .. (" %dvsplit"):format(opts.width))
    sb.display, sb.input = fill_pair(vim.api.nvim_get_current_win(), display, input)
  end
  follow(sb.display)
  vim.api.nvim_set_current_win(sb.input)
end

--- Switches every window pair in this tab that shows thread `from` (display and input alike) to
--- the thread `to`; without such a window, shows `to` in the sidebar. Returns `to`'s display window.
function M.switch(from_display, to_display, to_input)
  local from_input = vim.b[from_display] and vim.b[from_display].tine_input
  local display_win = nil
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(w)
    if b == from_display then
      vim.api.nvim_win_set_buf(w, to_display)
      display_win = display_win or w
    elseif from_input and b == from_input then
      vim.api.nvim_win_set_buf(w, to_input)
    end
  end
  if not display_win then
    M.show(to_display, to_input)
    display_win = M.sidebar().display
  end
  vim.api.nvim_set_current_win(display_win)
  return display_win
end

--- Narrowest a window may become when a fork opens beside its source.
local MIN_WIDTH = 40

--- Opens a fork beside its source, as `mode` says. A vertical split that would leave either
--- window narrower than MIN_WIDTH replaces the source in its windows instead (gp goes back).
function M.open_fork(display, input, source_display, mode, prefill)
  if prefill and prefill ~= "" then
    vim.api.nvim_buf_set_lines(input, 0, -1, false, vim.split(prefill, "\n"))
  end
  local near = nil
  for _, w in ipairs(vim.fn.win_findbuf(source_display)) do
    if vim.api.nvim_win_get_tabpage(w) == vim.api.nvim_get_current_tabpage() then
      near = w
      break
    end
  end
  if mode == "vsplit" and near and vim.api.nvim_win_get_width(near) < 2 * MIN_WIDTH + 1 then
    mode = "replace"
  end
  if mode == "split" and near and vim.api.nvim_win_get_height(near) < 2 * 6 + 1 then
    mode = "replace"
  end
  if mode == "tab" then
    vim.cmd("tabnew")
    local scratch_buf = vim.api.nvim_get_current_buf()
    fill_pair(vim.api.nvim_get_current_win(), display, input)
    if vim.api.nvim_buf_is_valid(scratch_buf) and scratch_buf ~= display then
      pcall(vim.api.nvim_buf_delete, scratch_buf, {})
    end
  elseif not near then
    M.show(display, input)
    return
  elseif mode == "replace" then
    M.switch(source_display, display, input)
    local shown = #vim.fn.win_findbuf(input) > 0
    if not shown then
      fill_pair(near, display, input)
    end
  else
    vim.api.nvim_set_current_win(near)
    vim.cmd(mode == "split" and "aboveleft split" or "belowright vsplit")
    fill_pair(vim.api.nvim_get_current_win(), display, input)
  end
  for _, w in ipairs(vim.fn.win_findbuf(display)) do
    follow(w)
  end
  for _, w in ipairs(vim.fn.win_findbuf(input)) do
    vim.api.nvim_set_current_win(w)
  end
end

--- g?: the tine keys of `buf`, in a float that `q` or <Esc> closes.
function M.show_keys(buf)
  local lines = {}
  for _, mode in ipairs({ "n", "i", "x" }) do
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, mode)) do
      if m.desc and m.desc:match("^tine: ") then
        table.insert(lines, ("%s  %-8s %s"):format(mode, m.lhs, m.desc:sub(7)))
      end
    end
  end
  table.sort(lines)
  local float = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(float, 0, -1, false, lines)
  vim.bo[float].modifiable = false
  vim.b[float].tine_keys_for = buf
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  local win = vim.api.nvim_open_win(float, true, {
    relative = "editor",
    style = "minimal",
    border = "rounded",
    title = " tine keys ",
    width = math.min(width + 2, vim.o.columns - 4),
    height = math.min(#lines, vim.o.lines - 4),
    row = 2,
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
  })
  for _, key in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", key, function()
      pcall(vim.api.nvim_win_close, win, true)
    end, { buffer = float, nowait = true })
  end
  return float
end

return M
