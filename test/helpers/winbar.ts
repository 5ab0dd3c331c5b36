/** The display window's winbar as a user sees it (node/usage/winbar.ts makes it). */
import type { Session } from "./neovim.ts";

/** The display window's winbar, as Neovim draws it. */
export function winbar(s: Session, id: string): Promise<string> {
  return s.lua<string>(
    `local id = ...
    for _, t in ipairs(require("tine").threads()) do
      if t.id == id and t.bufnr ~= vim.NIL then
        for _, win in ipairs(vim.fn.win_findbuf(t.bufnr)) do
          local bar = vim.wo[win].winbar
          if bar ~= "" then return vim.api.nvim_eval_statusline(bar, { winid = win, use_winbar = true }).str end
        end
      end
    end
    return ""`,
    id,
  );
}

export const waitForWinbar = async (s: Session, id: string, text: string) => {
  let last = "";
  try {
    await s.until(`the winbar to show ${text}`, async () => {
      last = await winbar(s, id);
      return last.includes(text);
    });
  } catch (error) {
    (error as Error).message += ` (it shows: "${last}")`;
    throw error;
  }
  return last;
};
