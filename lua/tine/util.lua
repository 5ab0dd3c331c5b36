-- How a failure reaches the user, shared by the API (init.lua), the commands and the keys: an
-- error is shown with vim.notify, a wrong value is named as an error names it.
local M = {}

---@param message any
function M.err(message)
  vim.notify(tostring(message), vim.log.levels.ERROR)
end

--- Runs `fn`, reporting a failure with vim.notify; returns ok, result.
---@param fn function
---@return boolean ok
---@return any result
function M.guarded(fn, ...)
  local ok, result = pcall(fn, ...)
  if not ok then
    M.err(result)
  end
  return ok, result
end

--- Whether thread `id` is in sight in the current tab: a window shows its display or its input.
---@param id string
---@return boolean
function M.thread_in_tab(id)
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.b[vim.api.nvim_win_get_buf(w)].tine_thread == id then
      return true
    end
  end
  return false
end

--- A value as an error shows it: nil, 5, "text", a table.
---@param v any
---@return string
function M.shown(v)
  return type(v) == "table" and "a table" or vim.inspect(v)
end

--- Whether a value from the host is absent: nil, or msgpack's nil (vim.NIL).
function M.null(v)
  return v == nil or v == vim.NIL
end

return M
