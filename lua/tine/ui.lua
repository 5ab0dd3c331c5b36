-- Windows, buffers and keymaps. Owns no state beyond which windows form the sidebar; everything
-- about threads lives in the host.
local config = require("tine.config")

local M = {}

M.sidebar = { display = nil, input = nil }

local function valid_win(w)
  return w ~= nil and vim.api.nvim_win_is_valid(w)
end

local function scratch(name, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = filetype
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

local function map(buf, modes, lhs, fn, desc)
  if not lhs or lhs == "" then return end
  vim.keymap.set(modes, lhs, fn, { buffer = buf, nowait = true, silent = true, desc = "tine: " .. desc })
end

local function tine()
  return require("tine")
end

function M.create_thread_buffers(id, num, title)
  local km = config.options.keymaps
  local display = scratch(("tine://%d/%s"):format(num, title), "markdown")
  vim.bo[display].modifiable = false
  local input = scratch(("tine://%d/input"):format(num), "markdown")
  vim.b[display].tine_thread = id
  vim.b[input].tine_thread = id
  vim.b[display].tine_input = input

  map(input, "n", km.send, function() tine().send_input(input) end, "send")
  map(input, { "n", "i" }, km.abort, function() tine().abort(id) end, "abort")
  map(display, "n", km.abort, function() tine().abort(id) end, "abort")
  map(display, "n", km.toggle_detail, function() tine().line_action(id, "toggle") end, "expand/collapse")
  map(display, "n", km.approve, function() tine().line_action(id, "approve") end, "approve tool call")
  map(display, "n", km.deny, function() tine().line_action(id, "deny") end, "deny tool call")
  map(display, "n", km.fork_at_message, function() tine().fork_command({ bang = true }) end, "fork at this message")
  map(display, "x", km.fork_at_message, function() tine().fork_selection() end, "fork quoting the selection")
  map(display, "n", km.go_to_parent, function() tine().go_to_parent(id) end, "go to parent thread")
  return { display = display, input = input }
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
local function fill_pair(win, display, input)
  vim.api.nvim_win_set_buf(win, display)
  setup_window(win)
  vim.api.nvim_set_current_win(win)
  vim.cmd(("belowright %dsplit"):format(config.options.sidebar.input_height))
  local iwin = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(iwin, input)
  setup_window(iwin)
  vim.wo[iwin].winfixheight = true
  return win, iwin
end

function M.sidebar_open()
  return valid_win(M.sidebar.display) or valid_win(M.sidebar.input)
end

function M.close_sidebar()
  for _, w in ipairs({ M.sidebar.display, M.sidebar.input }) do
    if valid_win(w) and #vim.api.nvim_list_wins() > 1 then vim.api.nvim_win_close(w, false) end
  end
  M.sidebar = { display = nil, input = nil }
end

--- Shows a thread in the sidebar (opening it if needed) and focuses its input.
function M.show(display, input)
  local sb = config.options.sidebar
  if valid_win(M.sidebar.display) and valid_win(M.sidebar.input) then
    vim.api.nvim_win_set_buf(M.sidebar.display, display)
    vim.api.nvim_win_set_buf(M.sidebar.input, input)
  else
    M.close_sidebar()
    vim.cmd((sb.side == "left" and "topleft" or "botright") .. (" %dvsplit"):format(sb.width))
    M.sidebar.display, M.sidebar.input = fill_pair(vim.api.nvim_get_current_win(), display, input)
  end
  vim.api.nvim_set_current_win(M.sidebar.input)
end

--- Opens a fork beside its source, as `mode` says.
function M.open_fork(display, input, source_display, mode, prefill)
  if prefill and prefill ~= "" then
    vim.api.nvim_buf_set_lines(input, 0, -1, false, vim.split(prefill, "\n"))
  end
  local near = nil
  for _, w in ipairs(vim.fn.win_findbuf(source_display)) do
    if vim.api.nvim_win_get_tabpage(w) == vim.api.nvim_get_current_tabpage() then near = w break end
  end
  if mode == "tab" then
    vim.cmd("tabnew")
    local scratch_buf = vim.api.nvim_get_current_buf()
    fill_pair(vim.api.nvim_get_current_win(), display, input)
    if vim.api.nvim_buf_is_valid(scratch_buf) and scratch_buf ~= display then pcall(vim.api.nvim_buf_delete, scratch_buf, {}) end
  elseif not near then
    M.show(display, input)
    return
  elseif mode == "replace" then
    vim.api.nvim_win_set_buf(near, display)
    local shown = false
    for _, w in ipairs(vim.fn.win_findbuf(vim.b[source_display].tine_input or -1)) do
      vim.api.nvim_win_set_buf(w, input)
      shown = true
    end
    if not shown then fill_pair(near, display, input) end
  else
    vim.api.nvim_set_current_win(near)
    vim.cmd(mode == "split" and "aboveleft split" or "belowright vsplit")
    fill_pair(vim.api.nvim_get_current_win(), display, input)
  end
  for _, w in ipairs(vim.fn.win_findbuf(input)) do vim.api.nvim_set_current_win(w) end
end

--- The display buffer's name follows the thread's title.
function M.set_title(display, num, title)
  if vim.api.nvim_buf_is_valid(display) then pcall(vim.api.nvim_buf_set_name, display, ("tine://%d/%s"):format(num, title)) end
end

--- A deleted thread's buffers go; windows showing them keep their place with another buffer.
function M.close_thread_buffers(display, input)
  for _, buf in ipairs({ input, display }) do
    if vim.api.nvim_buf_is_valid(buf) then
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

function M.create_list_buffer()
  local km = config.options.keymaps
  local buf = scratch("tine://threads", "tine-threads")
  vim.bo[buf].modifiable = false
  map(buf, "n", km.list_open, function() tine().open_from_list() end, "open thread")
  map(buf, "n", km.list_fork, function() tine().fork_from_list() end, "fork thread")
  map(buf, "n", km.list_rename, function() tine().rename_from_list() end, "rename thread")
  map(buf, "n", km.list_delete, function() tine().delete_from_list() end, "delete thread")
  map(buf, "n", km.abort, function() tine().cancel_from_list() end, "cancel a waiting fork / abort")
  return buf
end

--- Called when the host dies: thread buffers no longer update; say so in each.
function M.host_died()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.b[buf].tine_thread and vim.api.nvim_buf_get_name(buf):match("/input$") == nil then
      vim.bo[buf].modifiable = true
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", "⚠ The tine host exited: :Tine restart starts a new one." })
      vim.bo[buf].modifiable = false
    end
  end
end

return M
