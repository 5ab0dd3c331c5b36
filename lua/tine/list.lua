-- The thread list: `:Tine threads[!]` opens it, and what its keys do, each to the thread on the
-- cursor line. buffers.lua creates the list's buffer and sets the keys; the host writes its lines.
local fork = require("tine.fork")
local host = require("tine.host")
local tine = require("tine")
local util = require("tine.util")

local guarded = util.guarded

local M = {}

--- :Tine threads[!]: the thread list.
---@param all? boolean every project's threads, grouped by project
function M.open_list(all)
  local ok, list = guarded(host.request, "thread_list", all == true)
  if not ok then
    return
  end
  local wins = vim.fn.win_findbuf(list.bufnr)
  if #wins > 0 then
    return vim.api.nvim_set_current_win(wins[1])
  end
  vim.cmd("topleft 10split")
  vim.api.nvim_win_set_buf(0, list.bufnr)
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

--- `<CR>` in the list: opens the thread on the line (or restores an ended fork).
function M.open_from_list()
  local item = host.request("list_item", vim.api.nvim_win_get_cursor(0)[1] - 1)
  if item and item.type == "ended-fork" then
    return guarded(host.request, "restore", item.id)
  end
  local ok, id = guarded(list_thread)
  if ok then
    guarded(tine.open, id)
  end
end

--- `f` in the list: forks the thread on the line (asks for the prompt).
function M.fork_from_list()
  local ok, id = guarded(list_thread)
  if ok then
    fork.ask_and_fork(id, vim.empty_dict())
  end
end

--- The fork keys in the list: ends the fork on the line.
---@param action "discard"|"promote"|"report"
function M.fork_end_from_list(action)
  local ok, id = guarded(list_thread)
  if ok then
    tine.fork_end(action, id)
  end
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

---@param id string
---@return string
local function title_of(id)
  for _, t in ipairs(tine.threads()) do
    if t.id == id then
      return t.title
    end
  end
  return id
end

--- `r` in the list: renames the thread on the line (asks for the title).
function M.rename_from_list()
  local ok, id = guarded(list_thread)
  if not ok then
    return
  end
  vim.ui.input({ prompt = "Rename thread: ", default = title_of(id) }, function(answer)
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
  local choice =
    vim.fn.confirm(('Delete "%s"? Its forks keep their history.'):format(title_of(id)), "&Delete\n&Cancel", 2)
  if choice == 1 then
    guarded(tine.delete, id)
  end
end

return M
