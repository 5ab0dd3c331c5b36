/** Which folders a stored header may put a thread in, against real folders, links and markers. */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { claudeCodeKind } from "../claude-code/kind.ts";
import { StoredNotices, sessionFolderRefused, worktreeRefused } from "./stored-folder.ts";
import { MARKER } from "./worktree.ts";

const temp = tempFolders("tine-stored-folder-");

/** A project, its worktree folder holding one worktree tine made (`made`), and a folder outside both. */
function world() {
  const projectRoot = temp();
  const worktrees = join(temp(), "worktrees", "p-123");
  const made = join(worktrees, "1-abcdef12");
  mkdirSync(join(made, ".git"), { recursive: true });
  writeFileSync(join(made, ".git", MARKER), JSON.stringify({ thread: "t", base: "b", project: projectRoot }));
  const outside = temp();
  return { projectRoot, worktrees, made, outside };
}

describe("stored folders", () => {
  it("a worktree tine made for this project, or one it would make again right in its folder, is accepted", () => {
    const { worktrees, made } = world();
    expect(worktreeRefused(made, worktrees)).toBeNull();
    expect(worktreeRefused(`${made}/`, worktrees)).toBeNull();
    expect(worktreeRefused(join(worktrees, "2-gone"), worktrees)).toBeNull();
    // Reached through a link to the worktree folder (a data folder behind a link): the same folder.
    const alias = join(temp(), "alias");
    symlinkSync(worktrees, alias);
    expect(worktreeRefused(join(alias, "1-abcdef12"), worktrees)).toBeNull();
    expect(worktreeRefused(made, alias)).toBeNull();
  });

  it("any other folder is refused, saying why: outside, deeper, climbing out, a link out, a link to nowhere, no marker", () => {
    const { projectRoot, worktrees, made, outside } = world();
    const refused = (path: string) => worktreeRefused(path, worktrees);
    expect(refused(outside)).toMatch(/^it is not a worktree tine made for this project \(those are in .*\)$/);
    expect(refused(projectRoot)).toMatch(/^it is not a worktree tine made/);
    expect(refused(join(outside, "not-there", "deeper"))).toMatch(/^it is not a worktree tine made/);
    expect(refused(join(made, "sub"))).toMatch(/^it is not a worktree tine made/);
    expect(refused(join(worktrees, "2-gone", "sub"))).toMatch(/^it is not a worktree tine made/);
    expect(refused(join(worktrees, "..", "other-project"))).toMatch(/^it is not a worktree tine made/);
    expect(refused(worktrees)).toMatch(/^it is not a worktree tine made/);
    const link = join(worktrees, "3-link");
    symlinkSync(outside, link);
    expect(refused(link)).toBe(`it is not a worktree tine made for this project (those are in ${worktrees}): it leads to ${outside}`);
    const dangling = join(worktrees, "4-dangling");
    symlinkSync(join(outside, "nothing"), dangling);
    expect(refused(dangling)).toMatch(/: it is a link that leads nowhere$/);
    const unmarked = join(worktrees, "5-unmarked");
    mkdirSync(unmarked);
    expect(refused(unmarked)).toMatch(/: it bears no mark of one$/);
  });

  it("a Claude Code session's folder: the project's or a worktree tine made for it, nothing else", () => {
    const { projectRoot, worktrees, made, outside } = world();
    const folders = { projectRoot, worktrees };
    expect(sessionFolderRefused(projectRoot, folders)).toBeNull();
    expect(sessionFolderRefused(`${projectRoot}/.`, folders)).toBeNull();
    expect(sessionFolderRefused(made, folders)).toBeNull();
    const why = "it is neither the project's folder nor a worktree tine made for it";
    expect(sessionFolderRefused(outside, folders)).toBe(why);
    expect(sessionFolderRefused(join(projectRoot, "node_modules", "evil"), folders)).toBe(why);
  });

  it("tells once per thread and kind of notice, naming the stored folder: a Claude Code session's (its runner kind's) and a worktree", () => {
    const { projectRoot, worktrees, made, outside } = world();
    const told: string[] = [];
    const notices = new StoredNotices((text) => told.push(text));
    const kind = claudeCodeKind({
      command: ["claude"],
      cwd: projectRoot,
      transcriptPath: () => "/nonexistent",
      folderRefused: (cwd) => sessionFolderRefused(cwd, { projectRoot, worktrees }),
    });
    const session = (cwd?: string) => ({ kind: "claude-code" as const, args: [], sessionId: "s", ...(cwd ? { cwd } : {}) });
    const used = (id: string, title: string, spec: ReturnType<typeof session>) =>
      notices.runnerNotices(id, kind.storedNotices(spec, title));
    used("a", "A", session(outside));
    used("a", "A", session(outside));
    used("b", "B", session(made));
    used("c", "C", session());
    notices.worktreeRefused("a", "A", outside, "why");
    notices.worktreeRefused("a", "A", outside, "why");
    expect(told).toEqual([
      `tine: A: its Claude Code session runs in the project's folder, not in its stored folder "${outside}": ` +
        "it is neither the project's folder nor a worktree tine made for it (:help tine-trust)",
      `tine: A: works in the project's folder, not in its stored worktree "${outside}": why (:help tine-trust)`,
    ]);
  });
});
