/**
 * A thread whose one turn edited files, for the review's tests in Neovim (`:Tine review`, the
 * signs): lines.txt (20 lines) changed at lines 2 and 18, two hunks of its diff; hello.txt
 * changed; blob.bin, a binary file, made.
 */

import { response, textReply } from "../mock-anthropic/script.ts";
import { typeAndSend } from "./chat-driver.ts";
import { gitProject } from "./git-project.ts";
import type { Session } from "./neovim.ts";

/** 20 lines: a change at line 2 and one at line 18 are two hunks of a diff (3 lines of context each). */
export const LINES = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join("");

/** `text` with its line `n` (from 1) replaced by `line`. */
export const withLine = (text: string, n: number, line: string) =>
  text
    .split("\n")
    .map((l, i) => (i === n - 1 ? line : l))
    .join("\n");

/** lines.txt as the turn leaves it. */
export const EDITED = withLine(withLine(LINES, 2, "LINE 2"), 18, "LINE 18");

/** The project before the turn, in git. */
export function reviewProject(cwd: string): string {
  gitProject(cwd, { "hello.txt": "hello\n", "lines.txt": LINES, "blob.bin": "a\0a" });
  return cwd;
}

/** `require("tine").<fn>(...)`: what it returns, or its error as text. */
export async function api<T>(s: Session, fn: string, ...args: unknown[]): Promise<T | string> {
  return s.lua<T | string>(`local ok, r = pcall(require('tine').${fn}, ...); if ok then return r end; return tostring(r)`, ...args);
}

/** Runs the editing turn in a new thread; its id. */
export async function editingTurn(s: Session): Promise<string> {
  const command = "sed -i 's/^line 2$/LINE 2/; s/^line 18$/LINE 18/' lines.txt && printf 'bye\\n' > hello.txt && printf 'a\\0b' > blob.bin";
  s.mock.reply(response([{ toolUse: { id: "b1", name: "bash_command", input: { command } } }]), textReply("Edited."));
  await s.cmd("Tine");
  const id = (await s.threads())[0]!.id;
  await typeAndSend(s, "edit the files");
  await s.waitForDisplay(id, "▸ 3 files changed");
  await s.waitForStatus(id, "idle");
  return id;
}
