import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitProject } from "../../test/helpers/git-project.ts";
import type { RunGit } from "../tools/git.ts";
import { localGit } from "../tools/local-git.ts";
import { type CodeSnapshots, gitSnapshots } from "./code.ts";

const dirs: string[] = [];
const opened: CodeSnapshots[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.unwatch();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(): string {
  const d = mkdtempSync(join(tmpdir(), "tine-quiet-"));
  dirs.push(d);
  return d;
}

/** A project's snapshots, counting the listings of its files (each a read of every file's stat data). */
function snapshotsOf(root: string) {
  let listings = 0;
  const git: RunGit = (args, run) => {
    if (args.includes("ls-files")) listings++;
    return localGit(args, run);
  };
  const snapshots = gitSnapshots({ enabled: true, cwd: root, dataDir: temp(), maxFileBytes: 1024 * 1024, keepDays: 7, git });
  opened.push(snapshots);
  return { snapshots, listings: () => listings };
}

const text = async (snapshots: CodeSnapshots, id: string, path: string) =>
  (await snapshots.read(id, [path])).get(path)?.bytes.toString() ?? null;

describe("a done fork's snapshot while its folder is quiet (takeWhileQuiet)", () => {
  it("is given again without reading the folder; any change there (an edit, a file renamed over, a file in an empty folder, one removed) gives a new one holding it", async () => {
    const root = temp();
    gitProject(root, { "a.txt": "a\n", "sub/b.txt": "b\n" });
    mkdirSync(join(root, "empty/deeper"), { recursive: true });
    const { snapshots, listings } = snapshotsOf(root);
    const first = (await snapshots.takeWhileQuiet("t"))!;
    const listed = listings();
    expect((await snapshots.takeWhileQuiet("t"))!.id).toBe(first.id);
    expect((await snapshots.takeWhileQuiet("t"))!.id).toBe(first.id);
    expect(listings()).toBe(listed);

    // Each change is asked about at once, as a :Tine compare right after a save would.
    writeFileSync(join(root, "sub/b.txt"), "edited\n");
    const edited = (await snapshots.takeWhileQuiet("t"))!;
    expect(await text(snapshots, edited.id, "sub/b.txt")).toBe("edited\n");

    writeFileSync(join(root, "sub/.b.swp"), "saved\n");
    renameSync(join(root, "sub/.b.swp"), join(root, "sub/b.txt"));
    const renamed = (await snapshots.takeWhileQuiet("t"))!;
    expect(await text(snapshots, renamed.id, "sub/b.txt")).toBe("saved\n");

    writeFileSync(join(root, "empty/deeper/new.txt"), "new\n");
    const made = (await snapshots.takeWhileQuiet("t"))!;
    expect(await text(snapshots, made.id, "empty/deeper/new.txt")).toBe("new\n");

    rmSync(join(root, "a.txt"));
    const removed = (await snapshots.takeWhileQuiet("t"))!;
    expect(await text(snapshots, removed.id, "a.txt")).toBeNull();
    expect(new Set([first.id, edited.id, renamed.id, made.id, removed.id]).size).toBe(5);
    expect((await snapshots.takeWhileQuiet("t"))!.id).toBe(removed.id);
  });

  it("a thread at work again (unwatch) is read afresh, as `take` reads it", async () => {
    const root = temp();
    gitProject(root, { "a.txt": "a\n" });
    const { snapshots, listings } = snapshotsOf(root);
    const first = (await snapshots.takeWhileQuiet("t"))!;
    snapshots.unwatch();
    const listed = listings();
    expect((await snapshots.takeWhileQuiet("t"))!.id).toBe(first.id);
    expect(listings()).toBe(listed + 1);
  });

  it("tells its `changed` once, at the first change after the snapshot, and never once the watch is ended", async () => {
    const root = temp();
    gitProject(root, { "a.txt": "a\n" });
    const { snapshots } = snapshotsOf(root);
    let told = 0;
    let tell = () => {};
    const changed = new Promise<void>((resolve) => (tell = resolve));
    await snapshots.takeWhileQuiet("t", false, () => {
      told++;
      tell();
    });
    writeFileSync(join(root, "a.txt"), "b\n");
    writeFileSync(join(root, "c.txt"), "c\n");
    await changed;
    // A new watch (the next ask), ended before a change: not told.
    await snapshots.takeWhileQuiet("t", false, () => told++);
    snapshots.unwatch();
    writeFileSync(join(root, "a.txt"), "d\n");
    await snapshots.takeWhileQuiet("t");
    expect(told).toBe(1);
  });
});
