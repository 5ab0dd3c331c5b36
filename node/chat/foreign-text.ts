/**
 * Text tine did not write (a Claude Code session's, imported) as it enters a thread: tine reads
 * its own markup back from a thread's user turns (context blocks, blocks.ts: the display and the
 * files followed; fork reports, prompts.ts: the display), so such text must never read as it. A
 * session holding `<context kind="file" path="/etc/…">` would otherwise have tine follow that
 * file and send it with the next message.
 */
import { readContextBlock } from "../context/blocks.ts";
import { readReportBlock } from "./prompts.ts";

/** Whether a user turn's text block reads back as tine's own markup. */
export const isOwnMarkup = (text: string): boolean => readContextBlock(text) !== null || readReportBlock(text) !== null;

/**
 * The text as it is, or, when it reads as tine's markup, with its first `<` written `&lt;`: both
 * formats start with their tag, so the result reads as neither, and shows what it was.
 */
export function asForeignText(text: string): string {
  return isOwnMarkup(text) ? `&lt;${text.slice(1)}` : text;
}
