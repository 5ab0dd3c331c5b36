/**
 * The promote-merge fault tests' fork: a worktree fork whose one turn appends a line to every file
 * under f/ of a project of many files, and a wait on the files outside Neovim (busy meanwhile).
 */
import { response, textReply } from "../mock-anthropic/script.ts";
import type { Session } from "./neovim.ts";

/** `f/0000.txt`, `f/0001.txt`, … (`count` of them). */
export const fileNames = (count: number) => Array.from({ length: count }, (_, i) => `f/${String(i).padStart(4, "0")}.txt`);
export const original = (name: string) => `${name} as committed\n`;
export const changed = (name: string) => `${original(name)}changed by the fork\n`;

/** Polls `check` until it holds, outside Neovim (which is busy waiting for the host). */
export async function eventually(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A fork of `id` in a worktree of its own whose turn changes every file under f/; its id and folder. */
export async function forkChangingAll(s: Session, id: string): Promise<{ id: string; cwd: string }> {
  s.mock.reply(
    response([
      {
        toolUse: {
          id: "all",
          name: "bash_command",
          input: { command: `for f in f/*.txt; do printf 'changed by the fork\\n' >> "$f"; done` },
        },
      },
    ]),
    textReply("All changed."),
  );
  const fork = await s.lua<string>(`return require("tine").fork(..., "change them all", { worktree = true })`, id);
  await s.waitForDisplay(fork, "All changed.\n── end_turn");
  await s.waitForStatus(fork, "idle");
  return { id: fork, cwd: (await s.thread(fork)).cwd! };
}
