/**
 * Sessions of the code-snapshot tests: a real git project whose user repository must come out
 * of the test as it went in, and a first turn that edits its files through the mock.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { response, textReply } from "../mock-anthropic/script.ts";
import { typeAndSend } from "./chat-driver.ts";
import { gitProject, type UserGitState, userGitState } from "./git-project.ts";
import { type NvimBinary, type Session, withNeovim } from "./neovim.ts";

export const HELLO = "hello from a fixture\n";

/** Tools run without approval here: these tests are about what they leave behind. */
export const SETUP = { tools_needing_approval: [] };

/** A git project whose first turn edits hello.txt (edit_file) and makes new.txt (bash_command); returns the thread's id once the turn ended. */
export async function editingTurn(s: Session): Promise<string> {
  s.mock.reply(
    response([
      { toolUse: { id: "e1", name: "edit_file", input: { path: "hello.txt", find: "hello", replace: "goodbye" } } },
      { toolUse: { id: "b1", name: "bash_command", input: { command: "printf 'x\\ny\\n' > new.txt" } } },
    ]),
    textReply("Done."),
  );
  await s.cmd("Tine");
  const id = (await s.threads())[0]!.id;
  await typeAndSend(s, "edit the files");
  await s.waitForDisplay(id, "▸ 2 files changed (+3 −1)");
  return id;
}

/** What `F` on a message of editingTurn's thread (working in `cwd`) asks of the fork's code. */
export const forkCodeChoices = (cwd: string) => [
  "Keep the code as it is now",
  `Restore the files to this message: rewrites the files "edit the files" works on (${cwd})`,
  'Restore them in a worktree fork: "edit the files" keeps its files',
];

/** The parts of the user's repository tine never writes (status changes as the files do). */
export const untouched = (st: UserGitState) => ({ index: st.index, refs: st.refs, config: st.config, head: st.head });

/** A session in git project `cwd` (made one, holding hello.txt, unless it is one already); the user's repository is checked after it. */
export async function withGitProject(
  nv: NvimBinary,
  cwd: string,
  fn: (s: Session, before: UserGitState) => Promise<void>,
  setup: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<void> {
  if (!existsSync(join(cwd, ".git"))) gitProject(cwd, { "hello.txt": HELLO });
  const before = userGitState(cwd);
  await withNeovim(nv, (s) => fn(s, before), { cwd, setup: { ...SETUP, ...setup }, env });
  assert.deepEqual(untouched(userGitState(cwd)), untouched(before));
}

/**
 * tine's private snapshot store of project `cwd` in a test session (XDG_DATA_HOME is in the
 * project), or null before its first snapshot wrote its index (the repository may still be being made).
 */
export function snapshotStore(cwd: string): { gitDir: string; index: string } | null {
  const dir = join(cwd, ".data", "nvim", "tine", "snapshots");
  const git = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith(".git")) : undefined;
  const store = git ? { gitDir: join(dir, git), index: join(dir, git.replace(/\.git$/, ".index")) } : null;
  return store && existsSync(store.index) ? store : null;
}

/** Runs git on the snapshot store of project `cwd` (through its own index). */
export function storeGit(cwd: string, ...args: string[]): string {
  const store = snapshotStore(cwd);
  if (!store) throw new Error(`no snapshot store for ${cwd}`);
  const env = { ...process.env, GIT_DIR: store.gitDir, GIT_INDEX_FILE: store.index };
  return execFileSync("git", args, { cwd, env, encoding: "utf8" });
}

/** A first turn in a new thread (no tools); returns its id. */
export async function firstThread(s: Session): Promise<string> {
  s.mock.reply(textReply("Hi."));
  await s.cmd("Tine");
  const id = (await s.threads())[0]!.id;
  await typeAndSend(s, "hi");
  await s.waitForDisplay(id, "Hi.\n── end_turn");
  await s.waitForStatus(id, "idle");
  return id;
}

/** A fork of `id` in a worktree of its own whose turn writes `word` over "hello" in hello.txt (edit_file) and makes `<word>.txt` (bash_command); its id, number and folder. */
export async function editingFork(s: Session, id: string, word: string): Promise<{ id: string; num: number; cwd: string }> {
  s.mock.reply(
    response([
      { toolUse: { id: `e-${word}`, name: "edit_file", input: { path: "hello.txt", find: "hello", replace: word } } },
      { toolUse: { id: `b-${word}`, name: "bash_command", input: { command: `printf '${word}\\n' > ${word}.txt` } } },
    ]),
    textReply(`${word} done.`),
  );
  const fork = await s.lua<string>(`return require("tine").fork(..., "edit as ${word}", { worktree = true })`, id);
  await s.waitForDisplay(fork, `${word} done.\n── end_turn`);
  await s.waitForStatus(fork, "idle");
  const info = await s.thread(fork);
  return { id: fork, num: info.num, cwd: info.cwd! };
}
