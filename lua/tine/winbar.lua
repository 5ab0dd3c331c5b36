-- The display window's winbar: what the host says of the thread's usage and cache (node/usage/),
-- kept in the display buffer's b:tine_winbar. A window shows it while it holds a display buffer;
-- one that goes to another buffer gets its own winbar back.
local M = {}

-- A statusline of its own (the host marks where a narrow window cuts it: node/usage/winbar.ts).
local BAR = "%{%get(b:, 'tine_winbar', '')%}"

--- The host's text for a display buffer (sent only when it changes).
function M.set(buf, text)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.b[buf].tine_winbar = text
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    M.attach(win)
  end
  vim.cmd.redrawstatus({ bang = true })
end

--- Shows the winbar in `win` while it holds a display buffer; puts back none when it no longer does.
function M.attach(win)
  local has = vim.b[vim.api.nvim_win_get_buf(win)].tine_winbar ~= nil
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
