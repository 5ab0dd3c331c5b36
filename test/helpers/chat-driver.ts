/** What the integration tests do again and again: type into a thread's input, read requests. */
import type { Session } from "./neovim.ts";

/** Types `text` into the input buffer that has the focus and presses <CR>, as a user would. */
export async function typeAndSend(s: Session, text: string): Promise<void> {
  await s.lua(
    `
    local input = vim.api.nvim_get_current_buf()
    assert(vim.api.nvim_buf_get_name(input):match("/input$"), "focus is not in an input buffer")
    vim.api.nvim_buf_set_lines(input, 0, -1, false, vim.split(..., "\\n"))`,
    text,
  );
  await s.keys("<CR>");
}

/** The request bodies the mock received, in order. */
export const bodies = (s: Session): any[] => s.mock.requests.map((r) => r.body as any);

/** Each message as its blocks' text (or type), joined with `|`. */
export const texts = (messages: any[]): string[] => messages.map((m) => m.content.map((b: any) => b.text ?? b.type).join("|"));
