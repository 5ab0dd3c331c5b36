-- The names of a thread's buffers: `tine #3 try a hash map` (the display), the same with ` [input]`
-- (its input) or ` [claude]` (a Claude Code thread's terminal). Tab lines and buffer lists show
-- these names: Neovim's default tab line shortens each folder of a name to its first letter (a
-- `tine://3/input` read `t//3/input`) and cuts it from the left, so a name holds no `/`, and opens
-- with the number and the title. Neovim makes such a name a path under the working directory
-- (only `scheme://` names are kept as they are); the buffers are never files (`buftype=nofile`).
local M = {}

---@alias tine.BufferKind "display"|"input"|"claude"

local suffix = { display = "", input = " [input]", claude = " [claude]" }

--- The title as a name may hold it: no folder separator, no control character.
---@param title string
local function safe(title)
  return (title:gsub("[/\\]", "∕"):gsub("%c", " "))
end

--- The name of thread `num`'s buffer of `kind`.
---@param num integer
---@param title string
---@param kind tine.BufferKind
---@return string
function M.thread(num, title, kind)
  return ("tine #%d %s%s"):format(num, safe(title), suffix[kind])
end

--- `#3 try a hash map` from a thread buffer's name (any kind), or nil for another buffer's name.
---@param name string
---@return string?
function M.label(name)
  local label = vim.fn.fnamemodify(name, ":t"):match("^tine (#%d+ .*)$")
  return label and (label:gsub(" %[input%]$", ""):gsub(" %[claude%]$", ""))
end

--- The number in a thread buffer's name, or nil.
---@param name string
---@return integer?
function M.num(name)
  return tonumber(vim.fn.fnamemodify(name, ":t"):match("^tine #(%d+) "))
end

--- Whether `buf` is a thread's input (its display names it: a terminal's one buffer names itself).
---@param buf integer
---@return boolean
function M.is_input(buf)
  local display = vim.b[buf].tine_display
  return vim.b[buf].tine_thread ~= nil and display ~= nil and display ~= buf
end

return M
