-- The names of a thread's buffers: `tine #3 try a hash map` (the display), the same with ` [input]`
-- (its input) or ` [claude]` (a Claude Code thread's terminal). Tab lines and buffer lists show
-- these names: Neovim's default tab line shortens each folder of a name to its first letter (a
-- `tine://3/input` read `t//3/input`) and cuts it from the left, so a name holds no `/`, and opens
-- with the number and the title. Neovim makes such a name a path under the working directory
-- (only `scheme://` names are kept as they are); the buffers are never files (`buftype=nofile`).
local M = {}

---@alias tine.BufferKind "display"|"input"|"claude"

--- What a buffer's name adds to the thread's, by kind.
M.SUFFIX = { display = "", input = " [input]", claude = " [claude]" }

--- The title as a name may hold it: no folder separator, no control character (a thread's
--- buffers, :Tine diff's).
---@param title string
---@return string
function M.safe(title)
  return (title:gsub("[/\\]", "∕"):gsub("%c", " "))
end

--- The name of thread `num`'s buffer of `kind`.
---@param num integer
---@param title string
---@param kind tine.BufferKind
---@return string
function M.thread(num, title, kind)
  return ("tine #%d %s%s"):format(num, M.safe(title), M.SUFFIX[kind])
end

--- A thread buffer's name read back: its number, its title and its kind; nil for another buffer's.
---@param name string
---@return { num: integer, title: string, kind: tine.BufferKind }?
function M.parts(name)
  local num, rest = vim.fn.fnamemodify(name, ":t"):match("^tine #(%d+) (.*)$")
  if not num then
    return nil
  end
  for _, kind in ipairs({ "input", "claude" }) do
    local suffix = M.SUFFIX[kind]
    if rest:sub(-#suffix) == suffix then
      return { num = tonumber(num), title = rest:sub(1, -#suffix - 1), kind = kind }
    end
  end
  return { num = tonumber(num), title = rest, kind = "display" }
end

--- `#3 try a hash map` from a thread buffer's name (any kind), or nil for another buffer's name.
---@param name string
---@return string?
function M.label(name)
  local t = M.parts(name)
  return t and ("#%d %s"):format(t.num, t.title)
end

--- The number in a thread buffer's name, or nil.
---@param name string
---@return integer?
function M.num(name)
  local t = M.parts(name)
  return t and t.num
end

--- Whether `buf` is a thread's input (its display names it: a terminal's one buffer names itself).
---@param buf integer
---@return boolean
function M.is_input(buf)
  local display = vim.b[buf].tine_display
  return vim.b[buf].tine_thread ~= nil and display ~= nil and display ~= buf
end

return M
