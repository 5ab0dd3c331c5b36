-- Text that tine draws itself, fitted to a width: a notice under a draft (virtual lines, which
-- Neovim never wraps) and the `g?` float. Pieces are kept whole on a line where they fit, so a key
-- is never parted from what it does.
local M = {}

local function width_of(text)
  return vim.fn.strdisplaywidth(text)
end

--- `text` cut at characters into bits no wider than `width` columns (at least one character each).
---@param text string
---@param width integer
---@return string[]
local function chop(text, width)
  local out = {}
  while width_of(text) > width and vim.fn.strchars(text) > 1 do
    local take = vim.fn.strchars(text) - 1
    while take > 1 and width_of(vim.fn.strcharpart(text, 0, take)) > width do
      take = take - 1
    end
    table.insert(out, vim.fn.strcharpart(text, 0, take))
    text = vim.fn.strcharpart(text, take)
  end
  table.insert(out, text)
  return out
end

---@class tine.PackOpts
---@field sep string between two pieces on a line
---@field indent? string before each line after the first
---@field after_first? string between the first piece and the next, when on one line (default: sep)

--- Lines of at most `width` columns holding `pieces` in order: as many on a line as fit; a piece
--- too wide for a line of its own is broken at its spaces, a word too wide at its characters.
---@param pieces string[]
---@param width integer
---@param opts tine.PackOpts
---@return string[]
function M.pack(pieces, width, opts)
  local indent = opts.indent or ""
  width = math.max(width, width_of(indent) + 1)
  local lines, line = {}, nil
  local function start(text)
    if line then
      table.insert(lines, line)
    end
    line = (#lines == 0 and "" or indent) .. text
  end
  local function put(text, sep)
    if line and width_of(line .. sep .. text) <= width then
      line = line .. sep .. text
    else
      start(text)
    end
  end
  for i, piece in ipairs(pieces) do
    local sep = i == 2 and opts.after_first or opts.sep
    if (line and width_of(line .. sep .. piece) <= width) or width_of(indent .. piece) <= width then
      put(piece, sep)
    else
      for j, word in ipairs(vim.split(piece, " ", { trimempty = true })) do
        for _, bit in ipairs(chop(word, width - width_of(indent))) do
          put(bit, j == 1 and sep or " ")
        end
      end
    end
  end
  if line then
    table.insert(lines, line)
  end
  return lines
end

--- The columns `buf`'s text has in the narrowest window that shows it (nil: none does).
---@param buf integer
---@return integer?
function M.window_width(buf)
  local width = nil
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local info = vim.fn.getwininfo(win)[1]
    width = math.min(width or math.huge, info.width - info.textoff)
  end
  return width
end

--- `text` as lines of at most `width` columns, broken at its spaces.
---@param text string
---@param width integer
---@param indent? string before each line after the first
---@return string[]
function M.words(text, width, indent)
  return M.pack(vim.split(text, " ", { trimempty = true }), width, { sep = " ", indent = indent })
end

return M
