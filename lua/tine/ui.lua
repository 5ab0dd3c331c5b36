-- Where tine's windows go: the sidebar of each tab, a fork beside its source, the windows of a
-- fork that ended, and the g? float. Owns no state beyond which windows form the sidebar (and the
-- forks the user asked to end); everything about threads lives in the host. How the sidebar's
-- columns share the room is layout.lua's; the buffers are made in buffers.lua and terminal.lua.
-- Over 300 lines: the one place windows are opened, switched and closed, each verb short; the g?
-- float stays here as others change it.
local config = require("tine.config")
local layout = require("tine.layout")

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
  -- Splits in the editor leave the sidebar's width alone; layout.fit sets it.
  vim.wo[win].winfixwidth = true
end

--- Opens a window for `input` under `win` (the thread's display), as high as the input may be.
local function input_under(win, input)
  vim.api.nvim_set_current_win(win)
  vim.cmd(("belowright %dsplit"):format(config.options.sidebar.input_height))
  local iwin = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(iwin, input)
  setup_window(iwin)
  vim.wo[iwin].winfixheight = true
  return iwin
end

--- Puts a thread in the windows `win` (its display) and `iwin` (its input, or nil): a display
--- keeps its input under it, and a Claude Code thread (one buffer, its terminal) has one window.
--- Returns the display's and the input's windows.
local function put(win, iwin, display, input)
  vim.api.nvim_win_set_buf(win, display)
  setup_window(win)
  if display == input then
    if valid_win(iwin) and iwin ~= win and #vim.api.nvim_tabpage_list_wins(0) > 1 then
      vim.api.nvim_win_close(iwin, false)
    end
    return win, win
  end
  if valid_win(iwin) and iwin ~= win then
    vim.api.nvim_win_set_buf(iwin, input)
    return win, iwin
  end
  return win, input_under(win, input)
end

--- The sidebar's windows in the current tab (each tab has its own).
--- A read-only scratch buffer of `lines` in a window opened below everything, at most
--- `max_height` lines high, named `name` (a name taken already is left off); returns it.
---@param lines string[]
---@param max_height integer
---@param name string
---@return integer
function M.scratch_below(lines, max_height, name)
  vim.cmd(("botright %dnew"):format(math.max(1, math.min(#lines, max_height))))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

function M.sidebar()
  local tab = vim.api.nvim_get_current_tabpage()
  M.sidebars[tab] = M.sidebars[tab] or {}
  return M.sidebars[tab]
end

--- After windows closed: the sidebar is a thread column still standing whole (a fork's, the
--- source's): a display over its input, or a terminal. A lone display or input is not adopted
--- (`:Tine` then shows the pair again).
local function adopt()
  local sb = M.sidebar()
  if valid_win(sb.display) and valid_win(sb.input) then
    return
  end
  local found = layout.sidebar()
  for i = #(found and found.columns or {}), 1, -1 do
    local wins = found.columns[i]
    local buf = vim.api.nvim_win_get_buf(wins[1])
    local input = vim.b[buf].tine_input
    if input == buf then
      sb.display, sb.input = wins[1], wins[1]
      return
    elseif input and wins[2] and vim.api.nvim_win_get_buf(wins[2]) == input then
      sb.display, sb.input = wins[1], wins[2]
      return
    end
  end
end

--- Both windows of the sidebar are open in this tab (after `:q` in one, `:Tine` restores the pair).
function M.sidebar_open()
  adopt()
  local sb = M.sidebar()
  return valid_win(sb.display) and valid_win(sb.input)
end

--- Closes the sidebar: every window of this tab that shows a thread (forks beside it too).
function M.close_sidebar()
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(w)
    if vim.b[buf].tine_thread and #vim.api.nvim_tabpage_list_wins(0) > 1 then
      vim.api.nvim_win_close(w, false)
    end
  end
  local sb = M.sidebar()
  sb.display, sb.input = nil, nil
end

--- Puts the cursor at the end of `win`, so it follows the text as it streams in.
local function follow(win)
  local buf = vim.api.nvim_win_get_buf(win)
  pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(buf), 0 })
end

--- A window following its buffer's end shows the virtual lines under the last line too (the
--- streaming spinner): Neovim scrolls to the cursor's line only, `zb` to what hangs under it.
---@param win integer
function M.show_end(win)
  pcall(vim.api.nvim_win_call, win, function()
    vim.cmd("normal! zb")
  end)
end

--- After a send: every window of the thread's display follows its end, wherever its cursor was,
--- so the reply is seen as it comes (host_api.apply keeps a window at the end following).
---@param display integer
function M.follow_end(display)
  for _, w in ipairs(vim.fn.win_findbuf(display)) do
    follow(w)
    M.show_end(w)
  end
end

--- The thread whose windows `display` took: when none of its windows is left and its input is
--- blank, the host is told (an empty thread then leaves the list).
local function left(display)
  local input = vim.b[display].tine_input
  local id = vim.b[display].tine_thread
  if not id or #vim.fn.win_findbuf(display) > 0 or (input and #vim.fn.win_findbuf(input) > 0) then
    return
  end
  if input and table.concat(vim.api.nvim_buf_get_lines(input, 0, -1, false)) ~= "" then
    return
  end
  pcall(require("tine.host").request, "thread_left", id)
end

--- Shows a thread in the sidebar (opening it if needed) and focuses its input.
function M.show(display, input)
  local opts = config.options.sidebar
  local sb = M.sidebar()
  if M.sidebar_open() then
    local before = vim.api.nvim_win_get_buf(sb.display)
    sb.display, sb.input = put(sb.display, sb.input, display, input)
    if before ~= display then
      left(before)
    end
  else
    M.close_sidebar()
    vim.cmd((opts.side == "left" and "topleft" or "botright") .. (" %dvsplit"):format(opts.width))
    sb.display, sb.input = put(vim.api.nvim_get_current_win(), nil, display, input)
  end
  layout.fit()
  follow(sb.display)
  vim.api.nvim_set_current_win(sb.input)
end

--- The windows of this tab showing `buf`.
local function here(buf)
  local tab = vim.api.nvim_get_current_tabpage()
  return vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_tabpage(w) == tab
  end, vim.fn.win_findbuf(buf))
end

--- Switches every window pair in this tab that shows thread `from` (display and input alike) to
--- the thread `to`; without such a window, shows `to` in the sidebar. Returns `to`'s display window.
function M.switch(from_display, to_display, to_input)
  local from_input = vim.b[from_display] and vim.b[from_display].tine_input
  local displays = here(from_display)
  local inputs = from_input and from_input ~= from_display and here(from_input) or {}
  if #displays == 0 then
    M.show(to_display, to_input)
    return M.sidebar().display
  end
  local sb = M.sidebar()
  for i, w in ipairs(displays) do
    local dwin, iwin = put(w, inputs[i], to_display, to_input)
    if sb.display == w then
      sb.input = iwin
    end
    inputs[i] = nil
    displays[i] = dwin
  end
  for _, w in pairs(inputs) do
    vim.api.nvim_win_set_buf(w, to_input)
  end
  vim.api.nvim_set_current_win(displays[1])
  return displays[1]
end

--- `#3 "try a hash map"`, from thread buffer `buf`'s name.
local function thread_named(buf)
  local t = require("tine.names").parts(vim.api.nvim_buf_get_name(buf))
  return t and ('#%d "%s"'):format(t.num, t.title) or "?"
end

--- Opens a fork beside its source, as `mode` says: "vsplit" a column of its own beside the
--- source's (the sidebar widens into the editor for it, layout.lua), "split" stacked above the
--- source in its column, "tab" a tab of its own. Without the room for a column it is stacked,
--- without the room for that it takes the source's windows (and says so: gp goes back).
--- `focus`: the cursor goes to the fork's input.
local function open_beside(display, input, source_display, mode, focus)
  local near = here(source_display)[1]
  if mode == "vsplit" and near and not layout.can_add_column(near) then
    local wide = not layout.column_of(near) and vim.api.nvim_win_get_width(near) >= 2 * layout.MIN_COLUMN + 1
    if not wide then
      mode = "split"
    end
  end
  if mode == "split" and near and not layout.can_stack(near) then
    mode = "replace"
    vim.notify("tine: no room beside the source: the fork took its windows (it goes on; gp goes back to it)", vim.log.levels.INFO)
  elseif mode == "replace" and near then
    vim.notify("tine: the fork took the source's windows (it goes on; gp goes back to it)", vim.log.levels.INFO)
  end
  if mode == "tab" then
    vim.cmd("tabnew")
    local scratch_buf = vim.api.nvim_get_current_buf()
    put(vim.api.nvim_get_current_win(), nil, display, input)
    if vim.api.nvim_buf_is_valid(scratch_buf) and scratch_buf ~= display then
      pcall(vim.api.nvim_buf_delete, scratch_buf, {})
    end
    layout.label_tabs()
  elseif not near then
    M.show(display, input)
    return
  elseif mode == "replace" then
    M.switch(source_display, display, input)
  elseif mode == "split" then
    vim.api.nvim_set_current_win(near)
    vim.cmd("aboveleft split")
    put(vim.api.nvim_get_current_win(), nil, display, input)
  else
    -- A column of its own: the source's input moves under the source's display first, so that
    -- each thread's display and input stay one column.
    local source_input = vim.b[source_display].tine_input
    local iwin = source_input ~= source_display and here(source_input)[1] or nil
    vim.api.nvim_set_current_win(near)
    vim.cmd("belowright vsplit")
    local fwin = vim.api.nvim_get_current_win()
    if iwin then
      vim.fn.win_splitmove(iwin, near, { rightbelow = true })
    end
    put(fwin, nil, display, input)
  end
  layout.fit()
  for _, w in ipairs(vim.fn.win_findbuf(display)) do
    follow(w)
  end
  layout.keep_ends()
  for _, w in ipairs(focus and vim.fn.win_findbuf(input) or {}) do
    vim.api.nvim_set_current_win(w)
  end
end

--- A fork opens beside its source (open_beside). `opened.take_cursor` false (a fork made later
--- than asked, |tine-fork-wait|): the cursor stays where the user is now, in the mode they are
--- in, and the message area says the fork opened.
---@param opened { prefill: string, take_cursor: boolean }
function M.open_fork(display, input, source_display, mode, opened)
  if opened.prefill ~= "" then
    vim.api.nvim_buf_set_lines(input, 0, -1, false, vim.split(opened.prefill, "\n"))
  end
  if opened.take_cursor then
    return open_beside(display, input, source_display, mode, true)
  end
  local user_win = vim.api.nvim_get_current_win()
  open_beside(display, input, source_display, mode, false)
  if vim.api.nvim_win_is_valid(user_win) then
    vim.api.nvim_set_current_win(user_win)
  end
  local beside = source_display ~= -1 and vim.api.nvim_buf_is_valid(source_display) and (" beside " .. thread_named(source_display)) or ""
  vim.notify(("tine: the fork %s opened%s (the cursor stays where it is)"):format(thread_named(display), beside), vim.log.levels.INFO)
end

--- Forks the user ended here (a key, the list, :Tine fork): their windows may close at once.
local ended_by_user = {}

--- The user asked fork `id` to end (it may end later, once it has written its summary), or the
--- asking failed (`asked` false).
function M.user_ends(id, asked)
  ended_by_user[id] = asked or nil
end

--- Fork `fork` ended: its windows go to the parent (`parent_display`/`parent_input`, -1 when it
--- has none), which shows the report at its end. Where the parent is already in sight, an end the
--- user asked for closes the fork's windows instead; an end that came by itself (an idle time-out,
--- the agent) never closes the window the user is in.
function M.fork_ended(fork, fork_display, fork_input, parent_display, parent_input)
  local by_user = ended_by_user[fork] == true
  ended_by_user[fork] = nil
  local current = vim.api.nvim_get_current_win()
  local has_parent = parent_display ~= -1 and vim.api.nvim_buf_is_valid(parent_display)
  local fork_wins = vim.list_extend(vim.fn.win_findbuf(fork_display), vim.fn.win_findbuf(fork_input))
  local user_here = vim.tbl_contains(fork_wins, current)
  local focus = nil
  local tabs = {}
  for _, w in ipairs(fork_wins) do
    tabs[vim.api.nvim_win_get_tabpage(w)] = true
  end
  for tab in pairs(tabs) do
    vim.api.nvim_set_current_tabpage(tab)
    local wins = vim.tbl_filter(function(w)
      return vim.api.nvim_win_get_tabpage(w) == tab
    end, fork_wins)
    local parent_shown = has_parent and #here(parent_display) > 0
    local under_user = not by_user and vim.tbl_contains(wins, current)
    if has_parent and (not parent_shown or under_user) then
      focus = M.switch(fork_display, parent_display, parent_input)
    else
      for _, w in ipairs(wins) do
        if valid_win(w) and #vim.api.nvim_tabpage_list_wins(tab) > 1 then
          vim.api.nvim_win_close(w, false)
        end
      end
      adopt()
      focus = focus or (has_parent and here(parent_display)[1]) or nil
    end
    layout.fit()
  end
  for _, w in ipairs(has_parent and vim.fn.win_findbuf(parent_display) or {}) do
    follow(w)
  end
  if focus and valid_win(focus) and (user_here or not valid_win(current)) then
    vim.api.nvim_set_current_win(focus)
  elseif valid_win(current) then
    vim.api.nvim_set_current_win(current)
  end
end

--- The layout follows the screen: on a resize the sidebar keeps its width (layout.fit) and the
--- displays their last lines; when a thread's window closes, the others take its room.
local group = vim.api.nvim_create_augroup("tine.ui", { clear = true })
vim.api.nvim_create_autocmd("VimResized", {
  group = group,
  callback = function()
    layout.fit()
    layout.keep_ends()
  end,
})
vim.api.nvim_create_autocmd("WinClosed", {
  group = group,
  callback = function(ev)
    local win = tonumber(ev.match)
    if win and valid_win(win) and vim.b[vim.api.nvim_win_get_buf(win)].tine_thread then
      vim.schedule(function()
        adopt()
        layout.fit()
      end)
    end
  end,
})

return M
