-- A thread's display is markdown, its markup hidden (conceallevel 2) so that replies read as
-- prose. One markup is not hidden there: the brackets of a shortcut link (`[tine]`, `[1]`, `[x]`),
-- which markdown's tree-sitter highlights conceal although a bare `[text]` with no definition is
-- no link: tine's notes lead with `[tine]`, and the user must see every text as it was written.
-- The display's highlighter (when tree-sitter highlights it at all) runs the highlights query of
-- markdown_inline without that one pattern; every other one, the user's queries included, stays.
local M = {}

--- The pattern that conceals a shortcut link's brackets, as Neovim's and nvim-treesitter's
--- markdown_inline/highlights.scm write it.
local SHORTCUT_CONCEAL = '%(shortcut_link%s*%[%s*"%["%s*"%]"%s*%]%s*@[%w._]+%s*%(#set! conceal ""%)%)'

--- The highlighters made here: a display whose highlighter is one of them is done.
local ours = setmetatable({}, { __mode = "k" })

--- The markdown_inline highlights query without the shortcut-link conceal, or nil when it has none.
local function query_text()
  local parts = {}
  for _, file in ipairs(vim.treesitter.query.get_files("markdown_inline", "highlights")) do
    local ok, lines = pcall(vim.fn.readfile, file)
    if ok then
      parts[#parts + 1] = table.concat(lines, "\n")
    end
  end
  local kept, n = table.concat(parts, "\n"):gsub(SHORTCUT_CONCEAL, "")
  return n > 0 and kept or nil
end

--- Shows the brackets of shortcut links in display `buf`, if tree-sitter highlights it.
---@param buf integer
function M.show_brackets(buf)
  local highlighter = vim.treesitter.highlighter.active[buf]
  if not highlighter or ours[highlighter] then
    return
  end
  local text = query_text()
  if not text then
    return
  end
  local parser = highlighter.tree
  vim.treesitter.stop(buf)
  local ok, made = pcall(vim.treesitter.highlighter.new, parser, { queries = { markdown_inline = text } })
  if ok then
    ours[made] = true
  else
    -- Highlighted as before rather than not at all.
    vim.treesitter.start(buf)
  end
end

return M
