-- The status line of a window showing a thread's buffer: `#3 try a hash map [input]`, then
-- Neovim's own flags and ruler. Neovim's default status line cuts a name too long for its window
-- from the start, so that thread columns side by side lost their numbers and titles' starts
-- (`<et-5-5; thin ⑂4 [-]`); here the title is cut at its end, leaving room for the flags and the
-- ruler. Only where the user kept Neovim's default 'statusline': one of their own (a plugin's)
-- is theirs to draw. A window that goes to another buffer gets the user's status line back.
local names = require("tine.names")

local M = {}

local LINE = "%{%v:lua.require'tine.statusline'.draw()%}"
--- Neovim's default after the name: its flags, then its ruler (`:help 'statusline'`).
local FLAGS, RULER = " %h%w%m%r", "%-14.(%l,%c%V%) %P"
--- Columns kept for them: a flag (` [-]`) and the ruler (14, a space, `Bot`) with a space before.
local FLAGS_WIDTH, RULER_WIDTH = 4, 19

--- `text` in at most `width` columns: cut at its end, `…` marking the cut.
---@param text string
---@param width integer
---@return string
function M.cut(text, width)
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  if width <= 0 then
    return ""
  end
  local chars = vim.fn.strchars(text)
  while chars > 0 and vim.fn.strdisplaywidth(vim.fn.strcharpart(text, 0, chars)) > width - 1 do
    chars = chars - 1
  end
  return vim.fn.strcharpart(text, 0, chars) .. "…"
end

--- The status line of the window being drawn (Neovim makes it the current one while it evaluates
--- a `%{}` item), `%` literal in the name.
function M.draw()
  local win = vim.api.nvim_get_current_win()
  local thread = names.parts(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)))
  local right = FLAGS .. "%=" .. (vim.o.ruler and RULER or "")
  if not thread then
    return "%<%f" .. right
  end
  local suffix = names.SUFFIX[thread.kind]
  local room = vim.api.nvim_win_get_width(win) - FLAGS_WIDTH - (vim.o.ruler and RULER_WIDTH or 0)
  local number = ("#%d"):format(thread.num)
  -- The number always; the title as far as it fits beside it and the kind.
  local title = M.cut(thread.title, room - vim.fn.strdisplaywidth(number .. " " .. suffix))
  local head = title == "" and number .. suffix or ("%s %s%s"):format(number, title, suffix)
  -- `%<` after the name: what does not fit is cut from the flags and the ruler, never the name.
  return head:gsub("%%", "%%%%") .. "%<" .. right
end

--- Whether the user's 'statusline' is Neovim's default (empty before 0.11, an expression after).
local function default_statusline()
  local global = vim.go.statusline
  return global == "" or global == vim.api.nvim_get_option_info2("statusline", {}).default
end

--- Draws `win`'s status line while it shows a thread's buffer; gives the user's back when it no
--- longer does.
---@param win integer
function M.attach(win)
  if not vim.api.nvim_win_is_valid(win) then
    return
  end
  local thread = names.parts(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)))
  -- The window's own value (vim.wo gives the global one where it has none).
  local scope = { scope = "local", win = win }
  local own = vim.api.nvim_get_option_value("statusline", scope)
  if thread and own == "" and default_statusline() then
    vim.api.nvim_set_option_value("statusline", LINE, scope)
  elseif not thread and own == LINE then
    vim.api.nvim_set_option_value("statusline", "", scope)
  end
end

local group = vim.api.nvim_create_augroup("tine.statusline", { clear = true })
vim.api.nvim_create_autocmd("BufWinEnter", {
  group = group,
  callback = function()
    M.attach(vim.api.nvim_get_current_win())
  end,
})
-- A buffer named after a thread once it is shown (`:Tine` shows its buffers before the host
-- names them).
vim.api.nvim_create_autocmd("BufFilePost", {
  group = group,
  callback = function(args)
    for _, win in ipairs(vim.fn.win_findbuf(args.buf)) do
      M.attach(win)
    end
  end,
})

return M
