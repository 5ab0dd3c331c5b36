/** What Neovim draws of a window, read from its screen (screenstring), as a user sees it. */
import type { Session } from "./neovim.ts";

/** The status line of each window showing `buf`, as drawn on the screen (its columns only). */
export const statusLines = (s: Session, buf: number) =>
  s.lua<string[]>(
    `local buf = ...
    vim.cmd("redraw!")
    local out = {}
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      local top, left = unpack(vim.fn.win_screenpos(win))
      local row, cells = top + vim.api.nvim_win_get_height(win), {}
      for col = left, left + vim.api.nvim_win_get_width(win) - 1 do cells[#cells + 1] = vim.fn.screenstring(row, col) end
      out[#out + 1] = table.concat(cells)
    end
    return out`,
    buf,
  );

/** The rows of the first window showing `buf`, as drawn on the screen (its columns only). */
export const windowRows = (s: Session, buf: number) =>
  s.lua<string[]>(
    `local win = vim.fn.win_findbuf(...)[1]
    vim.cmd("redraw!")
    local top, left = unpack(vim.fn.win_screenpos(win))
    local out = {}
    for row = top, top + vim.api.nvim_win_get_height(win) - 1 do
      local cells = {}
      for col = left, left + vim.api.nvim_win_get_width(win) - 1 do cells[#cells + 1] = vim.fn.screenstring(row, col) end
      out[#out + 1] = (table.concat(cells):gsub("%s+$", ""))
    end
    return out`,
    buf,
  );
