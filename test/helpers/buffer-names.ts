/**
 * tine's thread buffers by name (lua/tine/names.lua): `tine #3 title` (the display), with
 * ` [input]` (its input) or ` [claude]` (a Claude Code thread's terminal). Neovim keeps such a
 * name as a path under the working directory, so it is read from its last part.
 */
import { basename } from "node:path";
import type { Session } from "./neovim.ts";

export type TineBufferKind = "display" | "input" | "claude";

/** Thread `num`'s buffer, of `kind` when given (any thread's without `num`). */
export function isTine(name: string, num?: number, kind?: TineBufferKind): boolean {
  const m = /^tine #(\d+) .*?( \[input\]| \[claude\])?$/.exec(basename(name));
  if (!m) return false;
  const found: TineBufferKind = m[2] === " [input]" ? "input" : m[2] === " [claude]" ? "claude" : "display";
  return (num === undefined || Number(m[1]) === num) && (kind === undefined || kind === found);
}

/** The names as tab lines and buffer lists show them (their last part). */
export const shortNames = (names: string[]): string[] => names.map((n) => basename(n));

/** The name of the buffer that has the focus, whole. */
export const curBufName = (s: Session) => s.lua<string>("return vim.api.nvim_buf_get_name(0)");
