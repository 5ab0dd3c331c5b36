/** What the integration tests do again and again: type into a thread's input, read requests. */
import { textReply } from "../mock-anthropic/script.ts";
import type { Session, ThreadRef } from "./neovim.ts";

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

/**
 * Scripts `answer` as the next reply, sends `prompt` from the focused input and waits until
 * thread `ref` shows `waitFor` (by default the answer and the end of its turn).
 */
export async function exchange(
  s: Session,
  ref: ThreadRef,
  prompt: string,
  answer: string,
  { waitFor = `${answer}\n── end_turn` }: { waitFor?: string } = {},
): Promise<void> {
  s.mock.reply(textReply(answer));
  await typeAndSend(s, prompt);
  await s.waitForDisplay(ref, waitFor);
}

/** The request bodies the mock received, in order. */
export const bodies = (s: Session): any[] => s.mock.requests.map((r) => r.body as any);

/** Each message as its blocks' text (or type), joined with `|`. */
export const texts = (messages: any[]): string[] => messages.map((m) => m.content.map((b: any) => b.text ?? b.type).join("|"));
