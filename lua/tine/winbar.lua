-- The display window's winbar: what the host says of the thread's usage and cache (node/usage/),
-- kept in the display buffer's b:tine_winbar as parts, fitted to each window's width when Neovim
-- draws it. A window shows it while it holds a display buffer; one that goes to another buffer
-- gets its own winbar back.
local M = {}

-- A statusline of its own: each window draws the parts that fit its width (M.draw).
local BAR = "%{%v:lua.require'tine.winbar'.draw()%}"
local SEP = "  ·  "

---@alias tine.WinbarPart { text: string, short: string?, drop: integer }

--- The parts that fit `width` columns, joined: while too wide, the part with the highest `drop`
--- shows its short form, or is left out when it has none (left). What is left keeps its order.
---@param parts tine.WinbarPart[]
---@param width integer
---@return string
function M.fit(parts, width)
  local shown = {}
  for i, part in ipairs(parts) do
    shown[i] = { text = part.text, short = part.short, drop = part.drop, keep = true }
  end
  local function text()
    local out = {}
    for _, p in ipairs(shown) do
      if p.keep then
        out[#out + 1] = p.text
      end
    end
    return table.concat(out, SEP)
  end
  -- The next step that makes it narrower: shorten, or leave out, the part dropped first.
  local function narrower()
    local next = nil
    for _, p in ipairs(shown) do
      if p.keep and p.drop > 0 and (next == nil or p.drop > next.drop) then
        next = p
      end
    end
    if not next then
      return false
    end
    if next.short then
      next.text, next.short = next.short, nil
    else
      next.keep = false
    end
    return true
  end
  while vim.fn.strdisplaywidth(text()) > width and narrower() do
  end
  return text()
end

--- The winbar of the window being drawn, `%` literal (Neovim makes that window the current one
--- while it evaluates a `%{}` item, for nvim_eval_statusline too).
function M.draw()
  local win = vim.api.nvim_get_current_win()
  local parts = vim.b[vim.api.nvim_win_get_buf(win)].tine_winbar
  if type(parts) ~= "table" then
    return ""
  end
  -- What is never left out (a cache warning) may still be too wide: `%<` cuts it from its start.
  return "%<" .. M.fit(parts, vim.api.nvim_win_get_width(win)):gsub("%%", "%%%%")
end

--- The host's parts for a display buffer (sent only when they change).
---@param parts tine.WinbarPart[]
function M.set(buf, parts)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.b[buf].tine_winbar = parts
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    M.attach(win)
  end
  vim.cmd.redrawstatus({ bang = true })
end

--- Shows the winbar in `win` while it holds a display buffer with parts; puts back none when it no
--- longer does.
function M.attach(win)
  local parts = vim.b[vim.api.nvim_win_get_buf(win)].tine_winbar
  local has = type(parts) == "table" and #parts > 0
  if has and vim.wo[win].winbar ~= BAR then
    vim.wo[win].winbar = BAR
  elseif not has and vim.wo[win].winbar == BAR then
    vim.wo[win].winbar = ""
  end
end

vim.api.nvim_create_autocmd("BufWinEnter", {
  group = vim.api.nvim_create_augroup("tine.winbar", { clear = true }),
  callback = function()
    M.attach(vim.api.nvim_get_current_win())
  end,
})

return M
