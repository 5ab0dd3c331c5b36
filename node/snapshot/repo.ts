/**
 * The snapshot store of one project: a private bare git repository of tine's own under
 * `<data_dir>/snapshots/<project>.git`, written through a persistent index of its own
 * (`<project>.index`) with the project's top folder as work tree. The user's repository (its
 * index, HEAD, branches, hooks, config) is only ever read, never written.
 *
 * A snapshot is a commit of every tracked and untracked, non-ignored file, except files over
 * `maxFileBytes`, which are named in its message and left out. Its ref lives under its owner
 * (`refs/tine/<owner>/<sha>`: a thread, or the restore's safety copy), so housekeeping can drop
 * the snapshots of threads that are gone. Work through one index is serialized, through different
 * indexes side by side (lanes.ts); a lock an earlier host left on the store is waited out (stale-lock.ts).
 *
 * Over 300 lines because every git command on the private repository is run here: taking, reading
 * and pruning share its state (the last tree committed, the refs made). What git's output says is
 * read in git-output.ts; what a snapshot leaves out, in excludes.ts; how many files are written, in packed-add.ts.
 */
import { existsSync, mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { FileChange, SnapshotId } from "../core/code-marks.ts";
import { projectKey } from "../core/project-key.ts";
import { type RunGit, splitNul } from "../tools/git.ts";
import { diskSize, sizeOf } from "./disk-size.ts";
import { ATTRIBUTES, defaultExcludesFile, excludesText, writeIfChanged } from "./excludes.ts";
import { hunksOf, hunksPerFile, parseBatch, parseChanges, skippedInMessage, snapshotMessage, treeEntries } from "./git-output.ts";
import { GitLanes } from "./lanes.ts";
import { isLink, underLinks } from "./links.ts";
import { inParts, packedAdd } from "./packed-add.ts";
import { pastStaleLocks } from "./stale-lock.ts";
import { foreignWorkTree } from "./work-tree.ts";

export type Taken = {
  readonly id: SnapshotId;
  readonly skipped: readonly string[];
  /** Files read and hashed into the index for it (0: the index was up to date). */
  readonly indexed: number;
};

/** A file as a snapshot holds it: its bytes and git's mode (100644, 100755, 120000 for a link). */
export type StoredFile = { readonly mode: string; readonly bytes: Buffer };

const SNAPSHOT_REFS = "refs/tine/";
/** Refs that hold what the worktrees on disk still need (see `prune`), made again at each housekeeping. */
const WORKTREE_REFS = "refs/tine-worktrees/";

/** A worktree on disk made from this store, as housekeeping keeps it: its folder and its fork point. */
export type KeptWorktree = { readonly root: string; readonly base: SnapshotId };

/** How often the index's stat data is refreshed behind the snapshots. */
const REFRESH_EVERY_MS = 60_000;

export class SnapshotRepo {
  /** The last snapshot taken here and its tree: an unchanged tree is not committed again. */
  private last: { id: SnapshotId; tree: string; skipped: string } | null = null;
  /** Refs made by this host (`owner/sha`): not written twice. */
  private readonly refs = new Set<string>();
  private excludes = "";
  /** When the index's stat data was last refreshed (ms). */
  private refreshed = 0;
  /** The first snapshot, begun before anyone asked for one (prime). */
  private primed: Promise<void> | null = null;
  /** How many files added at once are written (packed-add.ts). */
  private readonly packedAdd: (count: number) => Promise<string[]>;
  /** Takes someone waits for, queued or running: the background work before them runs at normal priority. */
  private waiting = 0;
  private readonly waited = [() => void this.waiting--, () => void this.waiting--] as const;

  private constructor(
    /** The project's top folder (the work tree snapshots hold). */
    readonly root: string,
    /** The private repository. */
    readonly gitDir: string,
    private readonly indexFile: string,
    /** The project's own git folder (its info/exclude is honoured). */
    private readonly projectGitDir: string,
    private readonly dataDir: string,
    private readonly maxFileBytes: number,
    /** The user's excludes file (core.excludesFile, or git's default). */
    private readonly userExcludes: string,
    /** How git is run for the work tree's environment (Environment.git). */
    readonly git: RunGit,
    private readonly lanes: GitLanes = new GitLanes(),
  ) {
    this.packedAdd = packedAdd(git, root);
  }

  /**
   * The same private store seen from another work tree (a fork's worktree, made from the
   * project): its own index, the project's ignore rules, the same queue of work (housekeeping
   * must not drop objects a view is writing).
   */
  view(root: string, git: RunGit = this.git): SnapshotRepo {
    return new SnapshotRepo(
      root,
      this.gitDir,
      this.viewIndex(root),
      this.projectGitDir,
      this.dataDir,
      this.maxFileBytes,
      this.userExcludes,
      git,
      this.lanes,
    );
  }

  /** The index a view of work tree `root` writes through (removed with the worktree). */
  viewIndex(root: string): string {
    return join(dirname(this.gitDir), `${projectKey(root)}.index`);
  }

  /**
   * Writes every file snapshot `id` holds into this work tree (a new, empty folder), and makes
   * the index say so: the next snapshot of it reads no file again. The split index is off here,
   * and so is the untracked cache: the index stands alone (a worktree's own git copies it).
   */
  checkout(id: SnapshotId): Promise<string> {
    return this.serial(async () => {
      const plain = ["-c", "core.splitIndex=false", "-c", "core.untrackedCache=false"];
      await this.run([...plain, "read-tree", id]);
      // Written by as many workers as there are cores.
      await this.run([...plain, "-c", "checkout.workers=0", "checkout-index", "-a", "-f", "-u"]);
      const tree = (await this.run(["rev-parse", `${id}^{tree}`])).stdout.toString("utf8").trim();
      this.last = { id, tree, skipped: "" };
      // Every file's stat data was just written: no refresh is due (eight forks' would read 80,000 files at once).
      this.refreshed = Date.now();
      return this.indexFile;
    });
  }

  /** The user's repository's objects and its HEAD commit (null before the first commit): read, never written. */
  async userHead(): Promise<{ objects: string; head: string | null }> {
    const out = await this.git(["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: this.root, user: true });
    const head = await this.git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], { cwd: this.root, user: true, okCodes: [1] });
    const sha = head.stdout.toString("utf8").trim();
    return { objects: join(out.stdout.toString("utf8").trim(), "objects"), head: sha || null };
  }

  /**
   * The store of the git repository `cwd` is in, made when missing; throws with the reason
   * snapshots cannot be taken (git missing, not a repository). `git`: how the project's environment runs it.
   */
  static async open(cwd: string, dataDir: string, maxFileBytes: number, git: RunGit): Promise<SnapshotRepo> {
    let out: string[];
    try {
      out = (await git(["rev-parse", "--show-toplevel", "--absolute-git-dir"], { cwd, user: true })).stdout.toString("utf8").split("\n");
    } catch (error) {
      const e = error as { code?: unknown; stderr?: string };
      if (e.code === "ENOENT") throw new Error("git was not found on PATH");
      throw new Error(`${cwd} is not in a git repository`);
    }
    const [root, projectGitDir] = [out[0]!, out[1]!];
    if (!root) throw new Error(`${cwd} is in a git repository without a work tree`);
    const foreign = foreignWorkTree(root, projectGitDir);
    if (foreign) throw new Error(`${foreign}: tine takes no snapshots there`);
    const dir = join(dataDir, "snapshots");
    const key = projectKey(root);
    const gitDir = join(dir, `${key}.git`);
    if (!existsSync(join(gitDir, "HEAD"))) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      await git(["init", "--bare", "--quiet", gitDir], { cwd: dir });
      // Directory mtimes spare a full walk of untracked folders when nothing changed; a split
      // index writes only what changed, not all 10,000 entries, after each change.
      await git(["config", "core.untrackedCache", "true"], { cwd: dir, env: { GIT_DIR: gitDir } });
      await git(["config", "core.splitIndex", "true"], { cwd: dir, env: { GIT_DIR: gitDir } });
    }
    mkdirSync(join(gitDir, "info"), { recursive: true });
    writeIfChanged(join(gitDir, "info", "attributes"), ATTRIBUTES);
    const configured = await git(["config", "--path", "--get", "core.excludesFile"], { cwd: root, user: true, okCodes: [1] });
    const excludes = configured.stdout.toString("utf8").trim() || defaultExcludesFile();
    return new SnapshotRepo(root, gitDir, join(dir, `${key}.index`), projectGitDir, dataDir, maxFileBytes, excludes, git);
  }

  /** Where the last restore's undo is kept (undo-record.ts). */
  get undoFile(): string {
    return join(this.gitDir, "tine-undo.json");
  }

  private env(): Record<string, string> {
    return { GIT_DIR: this.gitDir, GIT_WORK_TREE: this.root, GIT_INDEX_FILE: this.indexFile, GIT_LITERAL_PATHSPECS: "1" };
  }

  /** Runs git on the store through this index; a lock an earlier host left there is waited out (stale-lock.ts). */
  private run(args: readonly string[], input?: string | Buffer, okCodes?: readonly number[], background = false, index = this.indexFile) {
    const env = { ...this.env(), GIT_INDEX_FILE: index };
    return pastStaleLocks(dirname(this.gitDir), () => this.git(args, { cwd: this.root, env, input, okCodes, background }));
  }

  /** Runs `work` after every earlier one through this index, and after housekeeping asked for before it (lanes.ts). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    return this.lanes.serial(this.indexFile, work);
  }

  /**
   * A snapshot of the project's files now, kept under `owner` (a thread id, or "undo");
   * `background`: nobody waits for it (git runs at a lower priority).
   */
  take(owner: string, background = false): Promise<Taken> {
    if (!background) this.waiting++;
    const taken = this.serial(() => this.takeNow(background));
    if (!background) void taken.then(...this.waited);
    // After it, where no one waits: its ref, and now and then the stat data of files whose content
    // did not change (touched by a build or a checkout), so later listings need not read them again.
    void this.serial(async () => {
      const { id } = await taken;
      const ref = `${owner}/${id}`;
      if (!this.refs.has(ref)) await this.run(["update-ref", `${SNAPSHOT_REFS}${ref}`, id], undefined, undefined, true);
      this.refs.add(ref);
      if (Date.now() - this.refreshed < REFRESH_EVERY_MS) return;
      this.refreshed = Date.now();
      await this.run(["update-index", "-q", "--refresh"], undefined, [1], true);
    }).catch(() => {});
    return taken;
  }

  /**
   * Takes a snapshot in the background, kept for nobody, when this host has taken none yet: the
   * index then holds every file's hash, and the snapshot a turn's tools wait for (queued behind
   * this one) only hashes what changed since.
   */
  prime(): Promise<void> {
    this.primed ??= this.last ? Promise.resolve() : this.serial(async () => void (await this.takeNow(true)));
    return this.primed;
  }

  private async takeNow(background: boolean): Promise<Taken> {
    // Background until someone waits for what follows it (a take queued behind the first snapshot).
    const run = (args: readonly string[], input?: string) => this.run(args, input, undefined, background && this.waiting === 0);
    await this.syncExcludes();
    const listed = [...new Set(splitNul((await run(["ls-files", "-z", "-m", "-o", "--exclude-standard"])).stdout))];
    // A folder that became a link: the files the index holds under it leave it (git refuses a path beyond a link), the link is kept as one.
    const links = new Set(listed.filter((path) => isLink(join(this.root, path))));
    const beyond = new Set(links.size ? underLinks(splitNul((await run(["ls-files", "-z"])).stdout), links) : []);
    if (beyond.size) await run(["update-index", "-z", "--force-remove", "--stdin"], `${[...beyond].join("\0")}\0`);
    const add: string[] = [];
    const skipped: string[] = [];
    for (const path of listed) {
      // A nested repository shows as its folder: it is not part of this project's snapshot.
      if (path.endsWith("/") || beyond.has(path)) continue;
      const size = sizeOf(join(this.root, path));
      if (size !== null && size > this.maxFileBytes) skipped.push(path);
      else add.push(path);
    }
    const packed = await this.packedAdd(add.length);
    for (const part of packed.length ? inParts(add) : add.length ? [add] : [])
      await run([...packed, "update-index", "-z", "--add", "--remove", "--stdin"], `${part.join("\0")}\0`);
    // A file that grew past the limit leaves the index: the snapshot names it instead of holding stale bytes.
    if (skipped.length) await run(["update-index", "-z", "--force-remove", "--stdin"], `${skipped.join("\0")}\0`);
    skipped.sort();
    const skippedKey = skipped.join("\0");
    let last = this.last;
    if (!last || add.length || beyond.size || skippedKey !== last.skipped) {
      const tree = (await run(["write-tree"])).stdout.toString("utf8").trim();
      if (!last || tree !== last.tree || skippedKey !== last.skipped) {
        const message = snapshotMessage(skipped, this.maxFileBytes);
        const id = (await run(["commit-tree", tree, "-F", "-"], message)).stdout.toString("utf8").trim();
        last = { id, tree, skipped: skippedKey };
        this.last = last;
      }
    }
    return { id: last.id, skipped, indexed: add.length };
  }

  /** The project's ignore rules, as `git status` applies them, written for this repository (excludes.ts). */
  private async syncExcludes(): Promise<void> {
    const text = excludesText(this.root, this.projectGitDir, this.userExcludes, this.dataDir);
    if (text === this.excludes) return;
    writeIfChanged(join(this.gitDir, "info", "exclude"), text);
    this.excludes = text;
  }

  /** The files that differ from snapshot `from` to `to`, by path. */
  changes(from: SnapshotId, to: SnapshotId): Promise<FileChange[]> {
    return this.serial(async () => {
      const out = splitNul((await this.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", "--numstat", from, to])).stdout);
      return parseChanges(out);
    });
  }

  /** The unified diff of one file from `from` to `to`, from its first hunk on. */
  fileDiff(from: SnapshotId, to: SnapshotId, path: string): Promise<string[]> {
    return this.serial(async () => {
      const text = (await this.run(["diff-tree", "-p", "--no-renames", "--no-color", from, to, "--", path])).stdout.toString("utf8");
      return hunksOf(text);
    });
  }

  /** Every file's unified diff from `from` to `to` in one run of git, in `changes`' order. */
  fileDiffs(from: SnapshotId, to: SnapshotId): Promise<string[][]> {
    return this.serial(async () =>
      hunksPerFile((await this.run(["diff-tree", "-r", "-p", "--no-renames", "--no-color", from, to])).stdout.toString("utf8")),
    );
  }

  /** The given files as snapshot `id` holds them (null: it holds none at that path). */
  read(id: SnapshotId, paths: readonly string[]): Promise<Map<string, StoredFile | null>> {
    return this.serial(async () => {
      const entries = treeEntries(splitNul((await this.run(["ls-tree", "-r", "-z", id])).stdout), new Set(paths));
      const out = new Map<string, StoredFile | null>(paths.map((p) => [p, null]));
      const shas = [...entries.values()].map((e) => e.sha);
      if (shas.length === 0) return out;
      const blobs = parseBatch((await this.run(["cat-file", "--batch"], `${shas.join("\n")}\n`)).stdout);
      for (const [path, e] of entries) out.set(path, { mode: e.mode, bytes: blobs.get(e.sha)! });
      return out;
    });
  }

  /** The size of each file snapshot `id` holds (what a worktree made from it writes). */
  fileSizes(id: SnapshotId): Promise<number[]> {
    return this.serial(async () =>
      splitNul((await this.run(["ls-tree", "-r", "-l", "-z", id])).stdout).map((line) => Number(line.split(/\s+/)[3]) || 0),
    );
  }

  /** The paths snapshot `id` left out as too big. */
  skippedIn(id: SnapshotId): Promise<string[]> {
    return this.serial(async () => {
      const message = (await this.run(["cat-file", "commit", id])).stdout.toString("utf8");
      return skippedInMessage(message);
    });
  }

  /** Whether the repository still holds snapshot `id` (housekeeping drops old ones). */
  has(id: SnapshotId): Promise<boolean> {
    return this.serial(async () => (await this.run(["cat-file", "-e", `${id}^{commit}`], undefined, [1, 128])).code === 0);
  }

  /** Whether the last housekeeping was `interval` ms before `now` or longer ago (or never ran); marks it run now when so. */
  pruneDue(now: number, interval: number): boolean {
    const stamp = join(this.gitDir, "tine-pruned");
    let last = 0;
    try {
      last = statSync(stamp).mtimeMs;
    } catch {
      // never ran
    }
    if (now - last < interval) return false;
    writeFileSync(stamp, "");
    utimesSync(stamp, now / 1000, now / 1000);
    return true;
  }

  /**
   * Drops the refs of snapshots whose owner is not in `owners` (a thread that is gone), and of
   * every snapshot older than `cutoff` (ms since the epoch); then git drops what no ref holds,
   * except what `worktrees` (those on disk) still need, however old: see `keepWorktrees`.
   */
  prune(owners: ReadonlySet<string>, cutoff: number, worktrees: readonly KeptWorktree[] = []): Promise<number> {
    return this.lanes.alone(async () => {
      const listing = (await this.run(["for-each-ref", "--format=%(refname) %(committerdate:unix)", SNAPSHOT_REFS])).stdout.toString(
        "utf8",
      );
      const drop: string[] = [];
      for (const line of listing.split("\n")) {
        if (!line) continue;
        const [ref, time] = line.split(" ");
        const owner = ref!.slice(SNAPSHOT_REFS.length).split("/")[0]!;
        if (!owners.has(owner) || Number(time) * 1000 < cutoff) drop.push(ref!);
      }
      if (drop.length) await this.run(["update-ref", "--stdin"], drop.map((r) => `delete ${r}\n`).join(""));
      for (const r of drop) this.refs.delete(r.slice(SNAPSHOT_REFS.length));
      await this.keepWorktrees(worktrees);
      // The last snapshot may have lost its ref: the next one is committed afresh.
      this.last = null;
      await this.run(["gc", "--quiet", "--prune=now"]);
      return drop.length;
    });
  }

  /**
   * Refs for what each worktree still needs from this store: its fork point (a promote merges
   * from it) and the files its index here names (its next snapshot writes only what changed
   * since, the rest by the hashes this index holds). The project's own index is kept by git itself.
   */
  private async keepWorktrees(worktrees: readonly KeptWorktree[]): Promise<void> {
    const wanted = new Map<string, string>();
    for (const w of worktrees) {
      const key = `${WORKTREE_REFS}${projectKey(w.root)}`;
      wanted.set(`${key}/base`, w.base);
      const index = this.viewIndex(w.root);
      if (!existsSync(index)) continue;
      const tree = await this.run(["write-tree"], undefined, undefined, false, index).catch(() => null);
      if (tree) wanted.set(`${key}/index`, tree.stdout.toString("utf8").trim());
    }
    // Only objects still here can be held (a fork point dropped before this housekeeping is gone).
    const shas = [...new Set(wanted.values())];
    const check = shas.length ? (await this.run(["cat-file", "--batch-check"], `${shas.join("\n")}\n`)).stdout.toString("utf8") : "";
    const missing = new Set(check.split("\n").flatMap((line) => (line.endsWith(" missing") ? [line.split(" ")[0]!] : [])));
    const held = (await this.run(["for-each-ref", "--format=%(refname)", WORKTREE_REFS])).stdout.toString("utf8").split("\n");
    const commands = [
      ...held.filter((ref) => ref && !wanted.has(ref)).map((ref) => `delete ${ref}\n`),
      ...[...wanted].filter(([, sha]) => !missing.has(sha)).map(([ref, sha]) => `update ${ref} ${sha}\n`),
    ];
    if (commands.length) await this.run(["update-ref", "--stdin"], commands.join(""));
  }

  /** Bytes the repository and its index take on disk. */
  size(): number {
    return diskSize(this.gitDir) + (sizeOf(this.indexFile) ?? 0);
  }
}
