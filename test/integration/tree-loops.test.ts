/**
 * Transcripts whose parent pointers form a loop (a damaged or hand-made file: a fork pointing at
 * itself, two forks pointing at each other) against the list and `threads()`: every thread still
 * shows, the looped ones as roots and marked, and nothing else in the project is hidden.
 */
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { oneExchange } from "../helpers/fixtures.ts";
import { tempProjects, withNeovim } from "../helpers/neovim.ts";
import { headerLine } from "../helpers/stored-header.ts";

const nv = inject("nvim");
const project = tempProjects();

/** The one project folder of the store under `cwd`. */
function storeDir(cwd: string): string {
  const root = join(cwd, ".data", "nvim", "tine", "projects");
  const [only] = readdirSync(root);
  return join(root, only!);
}

const reply = (text: string) =>
  JSON.stringify({
    t: "append",
    m: { role: "assistant", content: [{ type: "text", text }] },
    meta: {
      stopReason: "end_turn",
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    },
  });
const question = (text: string) => JSON.stringify({ t: "append", m: { role: "user", content: [{ type: "text", text }] } });
const forkOf = (id: string) => ({ relation: "fork", id, records: 0, atMessage: 0, messages: 0 });

/** A transcript as another writer left it: its header (`parent` as given) and one exchange. */
function writeThread(dir: string, cwd: string, id: string, num: number, title: string, parent: unknown): void {
  const lines = [headerLine({ id, num, title, cwd, created: num, parent }), question(`${title} q`), reply(`${title} a`)];
  writeFileSync(join(dir, `${id}.jsonl`), `${lines.join("\n")}\n`, { mode: 0o600 });
}

describe(`parent pointers that loop (${nv.version})`, () => {
  it("a fork pointing at itself and two pointing at each other show as roots, marked; the other threads and threads() work", async () => {
    const cwd = project();
    let plain = "";
    await withNeovim(
      nv,
      async (s) => {
        plain = await oneExchange(s, "plain thread", "Plain answer.");
      },
      { cwd },
    );
    const dir = storeDir(cwd);
    writeThread(dir, cwd, "self-loop", 7, "self loop", forkOf("self-loop"));
    writeThread(dir, cwd, "loop-one", 8, "loop one", forkOf("loop-two"));
    writeThread(dir, cwd, "loop-two", 9, "loop two", forkOf("loop-one"));
    // Hangs under a thread of the loop: it keeps its place there.
    writeThread(dir, cwd, "under-loop", 10, "under the loop", { relation: "handoff", id: "loop-one", atMessage: 1 });
    await withNeovim(
      nv,
      async (s) => {
        await s.lua("vim.o.columns = 200"); // list lines unwrapped
        const threads = await s.threads();
        assert.deepEqual(
          threads.map((t) => [t.title, t.parent_id]),
          [
            ["self loop", null],
            ["loop one", null],
            ["loop two", null],
            ["under the loop", "loop-one"],
            ["plain thread", null],
          ],
        );
        assert.equal(threads.at(-1)!.id, plain);
        await s.openList();
        await s.listLine("under the loop");
        const lines = await s.listLines();
        const line = (title: string) => lines.find((l) => l.includes(` ${title}  `)) ?? `(no line for ${title})`;
        assert.match(line("plain thread"), /^ +#1 {2}plain thread {2}○ stored · 2 msgs/, lines.join("\n"));
        for (const [num, title] of [
          [7, "self loop"],
          [8, "loop one"],
          [9, "loop two"],
        ] as const) {
          // A root: not indented, no fork mark.
          assert.match(line(title), new RegExp(`^ +#${num} {2}${title} {2}○ stored · 2 msgs`), lines.join("\n"));
          assert.match(line(title), /⚠ its parent pointer loops back to it \(damaged transcript\): listed as a root/);
        }
        assert.match(line("under the loop"), /^ +#10 {4}↪ under the loop {2}○ stored/, lines.join("\n"));
        assert.doesNotMatch(line("under the loop"), /loops back/);
        assert.equal(lines.indexOf(line("under the loop")), lines.indexOf(line("loop one")) + 1, "under its parent");
        // Opening one says why it cannot be (its history would start in itself); nothing else changes.
        await s.onListLine("self loop", "<CR>");
        await s.notified(/^tine: self loop: its parent pointer loops back to it \(damaged transcript\): it cannot be opened$/);
        // The other threads work as ever: the plain one opens and shows its messages.
        await s.open(plain);
        await s.waitForDisplay(plain, "Plain answer.");
        assert.equal((await s.threads()).length, 5);
      },
      { cwd },
    );
  });
});
