-- Where a turn's hunks lie in a buffer now. The host numbers a hunk's lines in the file as the
-- turn left it; the buffer may have changed since (the user's edits, a later turn, an undone
-- hunk), so its lines are mapped through Neovim's own diff of the turn's text against the
-- buffer's: a line before or after everything changed since keeps its place, shifted by what was
-- added or removed above it; a line changed since goes to where its change now is.
local M = {}

local diff = (vim.text and vim.text.diff) or vim.diff

--- `text`'s lines (a last newline ends the last line, it does not start another).
---@param text string
---@return string[]
function M.lines(text)
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  return lines
end

--- Neovim's diff of two lists of lines: `{ old_start, old_count, new_start, new_count }` each (a
--- side of no lines starts at the line it follows).
---@param from string[]
---@param to string[]
---@return integer[][]
local function changes(from, to)
  local a, b = table.concat(from, "\n") .. "\n", table.concat(to, "\n") .. "\n"
  if #from == 0 then
    a = ""
  end
  if #to == 0 then
    b = ""
  end
  return a == b and {} or diff(a, b, { result_type = "indices" })
end

--- The changed lines of each hunk of `hunks` (the host's, whose ranges hold their context too):
--- the changes of Neovim's diff of `before` and `after` that lie in the hunk, by the hunk's place
--- in `hunks`.
---@param before string[]
---@param after string[]
---@param hunks TineHunk[]
---@return table<integer, integer[][]>
function M.regions(before, after, hunks)
  local out = {}
  for i in ipairs(hunks) do
    out[i] = {}
  end
  for _, c in ipairs(changes(before, after)) do
    local first, last = c[3], c[3] + math.max(c[4], 1) - 1
    for i, h in ipairs(hunks) do
      if first >= h.new_start - 1 and last <= h.new_start + math.max(h.new_lines, 1) then
        table.insert(out[i], c)
        break
      end
    end
  end
  return out
end

--- A function mapping a line (1-based) of `from` to the line of `to` it is now.
---@param from string[]
---@param to string[]
---@return fun(line: integer): integer
function M.mapper(from, to)
  local since = changes(from, to)
  return function(line)
    local shift = 0
    for _, c in ipairs(since) do
      local sa, ca, sb, cb = c[1], c[2], c[3], c[4]
      if ca > 0 and line >= sa and line < sa + ca then
        return math.max(1, math.min(sb + math.min(line - sa, math.max(cb - 1, 0)), math.max(#to, 1)))
      end
      -- A change wholly above the line (an insertion after line `sa` is above the lines after it).
      if (ca == 0 and sa < line) or (ca > 0 and sa + ca <= line) then
        shift = shift + cb - ca
      else
        break
      end
    end
    return math.max(1, math.min(line + shift, math.max(#to, 1)))
  end
end

--- Hunk `h`'s lines `{ first, last }` in a buffer through `map` (`side` "new": the lines the turn
--- left, "old": the lines before it, in the text before the turn, which never changes). A hunk
--- of no lines on that side (lines only removed, or only added) is the line it follows.
---@param h TineHunk
---@param side "old"|"new"
---@param map? fun(line: integer): integer
---@return integer, integer
function M.rows(h, side, map)
  local start, count = h[side .. "_start"], h[side .. "_lines"]
  map = map or function(l)
    return l
  end
  if count == 0 then
    local at = map(math.max(start, 1))
    return at, at
  end
  return map(start), map(start + count - 1)
end

return M
