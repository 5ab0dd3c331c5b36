-- tine.nvim: chat with Claude agents in Neovim and fork the conversation at any moment.
-- The public Lua API (`:help tine-api`) and the commands' implementations. Every call is a
-- synchronous request to the host.
local config = require("tine.config")
local host = require("tine.host")
local ui = require("tine.ui")

local M = {}

function M.setup(opts)
  config.setup(opts)
end

local function err(message)
  vim.notify(tostring(message), vim.log.levels.ERROR)
end

--- Runs `fn`, reporting a failure with vim.notify; returns ok, result.
local function guarded(fn, ...)
  local ok, result = pcall(fn, ...)
  if not ok then err(result) end
  return ok, result
end

-- ---- :help tine-api ----

function M.threads()
  return host.request("threads")
end

function M.current()
  return host.request("current")
end

function M.messages(id)
  return host.request("messages", id)
end

--- The same entry as typing in the input buffer and pressing <CR>.
function M.send(id, text)
  return host.request("send", id, text)
end

function M.abort(id)
  return guarded(host.request, "abort", id)
end

--- Forks thread `id`; returns the new thread's id. opts: { at_message = n (0-based) }.
function M.fork(id, prompt, opts)
  return host.request("fork", id, prompt or "", opts or vim.empty_dict())
end

-- ---- commands and keymaps ----

function M.toggle()
  if ui.sidebar_open() then return ui.close_sidebar() end
  local ok, t = guarded(host.request, "active_buffers")
  if ok then ui.show(t.display, t.input) end
end

function M.new_thread()
  local ok, t = guarded(host.request, "new_thread")
  if ok then ui.show(t.display, t.input) end
end

--- <CR> in an input buffer: the input is cleared only when the host accepted it.
function M.send_input(buf)
  local id = vim.b[buf].tine_thread
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  if vim.trim(text) == "" then return end
  local ok = guarded(host.request, "send", id, text)
  if ok and vim.api.nvim_buf_is_valid(buf) then vim.api.nvim_buf_set_lines(buf, 0, -1, false, {}) end
end

function M.send_current()
  local buf = vim.api.nvim_get_current_buf()
  if not vim.b[buf].tine_thread then return err("tine: not in a tine thread buffer") end
  local ok, t = guarded(host.request, "active_buffers")
  if not ok then return end
  local id = vim.b[buf].tine_thread
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.b[b].tine_thread == id and vim.api.nvim_buf_get_name(b):match("/input$") then return M.send_input(b) end
  end
  return M.send_input(t.input)
end

function M.abort_current()
  local id = vim.b.tine_thread or M.current()
  if id then M.abort(id) end
end

function M.line_action(id, action)
  guarded(host.request, "line_action", id, vim.api.nvim_win_get_cursor(0)[1] - 1, action)
end

local function current_thread()
  local id = vim.b.tine_thread
  if not id then
    error("tine: :ForkThread works in a thread's display or input buffer (this buffer is not one)", 0)
  end
  return id
end

local function ask_and_fork(id, opts)
  vim.ui.input({ prompt = "Fork prompt (empty: fork only): " }, function(answer)
    if answer == nil then return end -- cancelled
    guarded(M.fork, id, answer, opts)
  end)
end

--- :ForkThread[!] [prompt]. With a bang (or `F`), forks at the message under the cursor.
function M.fork_command(cmd)
  local ok, id = guarded(current_thread)
  if not ok then return end
  local opts = vim.empty_dict()
  if cmd.bang then
    local at = host.request("locate", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
    if not at then return err("tine: the cursor is not on a message") end
    opts = { at_message = at.message }
  end
  if cmd.args and cmd.args ~= "" then return guarded(M.fork, id, cmd.args, opts) end
  ask_and_fork(id, opts)
end

--- Visual `F`: fork at the selection's last message, the selection quoted in the fork's input.
function M.fork_selection()
  local ok, id = guarded(current_thread)
  if not ok then return end
  local from, to = vim.fn.line("v"), vim.fn.line(".")
  if from > to then from, to = to, from end
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Esc>", true, false, true), "nx", false)
  local lines = vim.api.nvim_buf_get_lines(0, from - 1, to, false)
  local at = host.request("locate", id, to - 1)
  if not at then return err("tine: the selection is not on a message") end
  local quoted = vim.tbl_map(function(l) return "> " .. l end, lines)
  table.insert(quoted, "")
  guarded(M.fork, id, "", { at_message = at.message, prefill = table.concat(quoted, "\n") })
end

function M.go_to_parent(id)
  local ok, lineage = guarded(host.request, "lineage", id)
  if not ok then return end
  if not lineage then return err("tine: this thread is not a fork") end
  local t = host.request("select", lineage.parent_id)
  local wins = vim.fn.win_findbuf(t.display)
  if #wins > 0 then vim.api.nvim_set_current_win(wins[1]) else vim.api.nvim_win_set_buf(0, t.display) end
  local at = host.request("locate_message", lineage.parent_id, lineage.at_message)
  if at then vim.api.nvim_win_set_cursor(0, { at + 1, 0 }) end
end

function M.open_list()
  local ok, list = guarded(host.request, "thread_list")
  if not ok then return end
  local wins = vim.fn.win_findbuf(list.bufnr)
  if #wins > 0 then return vim.api.nvim_set_current_win(wins[1]) end
  vim.cmd("topleft 10split")
  vim.api.nvim_win_set_buf(0, list.bufnr)
end

local function list_thread()
  local id = host.request("thread_at_list_line", vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not id then error("tine: no thread on this line", 0) end
  return id
end

function M.open_from_list()
  local ok, id = guarded(list_thread)
  if not ok then return end
  local t = host.request("select", id)
  ui.show(t.display, t.input)
end

function M.fork_from_list()
  local ok, id = guarded(list_thread)
  if ok then ask_and_fork(id, vim.empty_dict()) end
end

function M.restart()
  host.stop()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.b[buf].tine_thread or vim.api.nvim_buf_get_name(buf) == "tine://threads" then
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  ui.sidebar = { display = nil, input = nil }
  M.toggle()
end

--- :Tine [new|send|abort|threads|restart]
function M.command(args)
  local sub = args.fargs[1]
  if sub == nil then return M.toggle() end
  if sub == "new" then return M.new_thread() end
  if sub == "send" then return M.send_current() end
  if sub == "abort" then return M.abort_current() end
  if sub == "threads" then return M.open_list() end
  if sub == "restart" then return M.restart() end
  err("tine: unknown subcommand " .. sub .. " (new, send, abort, threads, restart)")
end

return M
