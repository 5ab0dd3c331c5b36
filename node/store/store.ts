/**
 * The one module that touches stored threads. Layout:
 *
 *   <data_dir>/projects/<name>-<hash of cwd>/<thread id>.jsonl   one transcript per thread (0600)
 *                                            <thread id>.lock    pid of the host writing it
 *                                            index.json          cache of the list's summaries
 *                                            nums/<n>            thread numbers claimed
 *
 * A fork's transcript starts with a pointer into its parent's (id and record count), never a copy.
 * Loading replays the parent's log up to that count, recursively; parsed logs and the states at
 * fork points are cached, so forks loaded together share their prefix in memory.
 *
 * Over 300 lines: it is the one module that touches the data folder (files, locks, the index), so
 * that no rule about what is trusted there lives anywhere else.
 */

import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { History } from "../core/history.ts";
import { isThreadId } from "../core/ids.ts";
import { projectKey } from "../core/project-key.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import { endOfLastLine, kindOf, openRegular } from "../util/regular-file.ts";
import { acquireLock, lockHolder, releaseLock } from "./lock.ts";
import { LogWriter, writeAll } from "./log-writer.ts";
import { claimNumber, releaseNumber } from "./numbers.ts";
import { encode, FORMAT_VERSION, type Header, type ParentPointer } from "./records.ts";
import { emptyState, type LogProblem, type LogState, type ParsedLog, readLog, recoverHistory, replay } from "./replay.ts";
import { readIndex, writeIndex } from "./scan-index.ts";
import { type ScanState, scanLog, type ThreadSummary } from "./summary.ts";
import { readTail, type Tail } from "./tail.ts";

export type NewThread = {
  readonly id: string;
  readonly num: number;
  readonly title: string;
  readonly model: string;
  readonly parent: ParentPointer | null;
  readonly origin?: Header["origin"];
  readonly worktree?: Header["worktree"];
  readonly fanOut?: Header["fanOut"];
  readonly runner: Header["runner"];
};

export type LoadedThread = {
  readonly header: Header;
  /** How it runs: its header's runner with the instructions it sends (a fork's are its source's). */
  readonly runner: RunnerSpec;
  /** The state as the log leaves it (a recorder continues from here). */
  readonly raw: LogState;
  /** `raw` with an interrupted turn closed: what the thread continues from. */
  readonly history: History;
  readonly records: number;
  readonly problems: readonly LogProblem[];
};

export type ProjectThreads = {
  readonly cwd: string;
  readonly threads: readonly ThreadSummary[];
  readonly unreadable: readonly Unreadable[];
};
export type Unreadable = { readonly path: string; readonly error: string };

type Cached = { readonly size: number; readonly log: ParsedLog; readonly states: Map<number, LogState>; problems: LogProblem[] };

export class ThreadStore {
  readonly dir: string;
  private readonly writers = new Map<string, LogWriter>();
  private readonly parsed = new Map<string, Cached>();
  /** The highest number the transcripts held when first listed for a claim (null: not yet listed). */
  private listedHighest: number | null = null;

  constructor(
    readonly dataDir: string,
    readonly cwd: string,
    private readonly pid = process.pid,
  ) {
    this.dir = join(dataDir, "projects", projectKey(cwd));
  }

  private path(id: string, dir = this.dir): string {
    if (!isThreadId(id)) throw new Error(`tine: not a thread id: ${id}`);
    return join(dir, `${id}.jsonl`);
  }

  private lockPath(id: string): string {
    return join(this.dir, `${id}.lock`);
  }

  private ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  /**
   * Creates a thread's transcript with its header and opens it for writing (locked). On failure
   * (a full or read-only disk) nothing is left: no file without its header, no lock.
   */
  create(thread: NewThread): LogWriter {
    this.ensureDir();
    // The instructions go beside the runner, and only where no fork pointer leads to them.
    const { runner: spec, ...fields } = thread;
    // The model choice is a record of its own (it changes): written by the first sync.
    const { instructions, model: _chosen, settings: _set, ...runner } = spec;
    const own = instructions && thread.parent?.relation !== "fork" ? { instructions } : {};
    const header: Header = { t: "header", v: FORMAT_VERSION, ...fields, runner, ...own, created: Date.now(), cwd: this.cwd };
    const lock = acquireLock(this.lockPath(thread.id), this.pid);
    if (!lock.ok) throw new Error(`tine: thread ${thread.id} is locked by pid ${lock.pid}`);
    let fd: number | null = null;
    try {
      // Appending: after a failed write is cut back, the next one goes at the new end.
      fd = openSync(this.path(thread.id), "ax", 0o600);
      const bytes = Buffer.from(encode(header));
      writeAll(fd, bytes);
      return this.track(thread.id, fd, 0, bytes.length);
    } catch (error) {
      if (fd !== null) {
        closeSync(fd);
        try {
          unlinkSync(this.path(thread.id));
        } catch {}
      }
      releaseLock(this.lockPath(thread.id), this.pid);
      throw error;
    }
  }

  /**
   * A thread number no other instance on this project has (see numbers.ts), above every number a
   * transcript here holds: forks that ended and threads kept for their forks keep theirs, even
   * when they were made before numbers were claimed.
   */
  claimNum(atLeast: number): number {
    // Transcripts from before `nums/` count once: later numbers are all claimed there, so listing
    // every thread again for each new one (a cost growing with the threads) would add nothing.
    if (this.listedHighest === null) {
      let highest = 0;
      for (const t of this.list().threads) highest = Math.max(highest, t.num);
      this.listedHighest = highest;
    }
    return claimNumber(this.dir, Math.max(atLeast, this.listedHighest + 1));
  }

  /** A claimed number no thread was made with, given back (numbers.ts). */
  releaseNum(n: number): void {
    releaseNumber(this.dir, n);
  }

  /** When thread `id`'s transcript was last written (ms), as the list shows it. */
  modifiedAt(id: string): number {
    return lstatSync(this.path(id)).mtimeMs;
  }

  /** The live process writing `id` in another instance, or null. */
  lockedBy(id: string): number | null {
    if (this.writers.has(id)) return null;
    return lockHolder(this.lockPath(id), this.pid);
  }

  /**
   * Opens a stored thread for writing, or returns who holds it. A partial last line (the host was
   * killed mid-write) is cut first: it never became a record, and appending after it would
   * corrupt the next one. Read, cut and appended through one descriptor that never follows a link.
   */
  openWriter(id: string, records: number): LogWriter | { busy: number } {
    const existing = this.writers.get(id);
    if (existing) return existing;
    const lock = acquireLock(this.lockPath(id), this.pid);
    if (!lock.ok) return { busy: lock.pid };
    let fd: number | null = null;
    try {
      fd = openRegular(this.path(id), "update");
      const size = fstatSync(fd).size;
      const end = endOfLastLine(fd);
      if (end !== size) ftruncateSync(fd, end);
      return this.track(id, fd, records, end);
    } catch (error) {
      // Not writable here (a read-only disk, not a regular file): the lock goes with the writer that was not made.
      if (fd !== null) closeSync(fd);
      releaseLock(this.lockPath(id), this.pid);
      throw error;
    }
  }

  private track(id: string, fd: number, records: number, size: number): LogWriter {
    const writer = new LogWriter(id, fd, records, size, () => {
      this.writers.delete(id);
      releaseLock(this.lockPath(id), this.pid);
    });
    this.writers.set(id, writer);
    return writer;
  }

  /** Closes every writer and releases their locks (the host is going away). */
  close(): void {
    for (const w of [...this.writers.values()]) w.close();
  }

  private parse(id: string, dir = this.dir): Cached {
    const path = this.path(id, dir);
    const size = lstatSync(path).size;
    const hit = this.parsed.get(path);
    if (hit && hit.size === size) return hit;
    const log = readLog(path);
    const cached: Cached = { size, log, states: new Map(), problems: [...log.problems] };
    this.parsed.set(path, cached);
    return cached;
  }

  /**
   * The state of `id`'s log after its first `upTo` change records, its parent's prefix replayed
   * first. States at fork points are kept, so loading several forks replays the parent once.
   */
  stateAt(id: string, upTo?: number, seen: ReadonlySet<string> = new Set()): LogState {
    if (seen.has(id))
      throw new Error(
        `tine: ${this.parse(id).log.header.title}: its parent pointer loops back to it (damaged transcript): it cannot be opened`,
      );
    const cached = this.parse(id);
    const end = Math.min(upTo ?? cached.log.records.length, cached.log.records.length);
    const hit = cached.states.get(end);
    if (hit) return hit;
    const { header } = cached.log;
    let start = 0;
    let state: LogState;
    const below = [...cached.states.keys()].filter((k) => k <= end).sort((a, b) => b - a)[0];
    if (below !== undefined) {
      start = below;
      state = cached.states.get(below)!;
    } else if (header.parent?.relation === "fork") {
      if (!existsSync(this.path(header.parent.id)))
        throw new Error(`tine: ${header.title}: its parent transcript ${this.path(header.parent.id)} is missing`);
      const parent = this.stateAt(header.parent.id, header.parent.records, new Set([...seen, id]));
      // A fork starts from its parent's history only: a turn streaming in the parent is not its own.
      // The code marks of that history are its too (its file starts with them: persistence.ts createFile).
      state = { ...emptyState(header.title), history: parent.history, code: parent.code };
    } else {
      state = emptyState(header.title);
    }
    state = replay(state, cached.log, start, end, cached.problems);
    cached.states.set(end, state);
    return state;
  }

  /** The last messages of `id`'s log, read from its end alone, or null (see tail.ts). */
  tail(id: string, minBytes: number): Tail | null {
    return readTail(this.path(id), minBytes);
  }

  /** Reads a stored thread: its header, its state, and the history to continue from. */
  load(id: string): LoadedThread {
    const cached = this.parse(id);
    const raw = this.stateAt(id);
    const { header } = cached.log;
    // A fork sends what its source sent: the instructions of the first header up its pointers (checked by stateAt) that is no fork's.
    let source = header;
    while (source.parent?.relation === "fork") source = this.parse(source.parent.id).log.header;
    const runner = {
      ...header.runner,
      ...(source.instructions ? { instructions: source.instructions } : {}),
      ...(raw.model ? { model: raw.model } : {}),
      ...(raw.settings ? { settings: raw.settings } : {}),
    };
    return { header, runner, raw, history: recoverHistory(raw), records: cached.log.records.length, problems: cached.problems };
  }

  /** This project's threads (and transcripts that could not be read), from headers and the index. */
  list(): ProjectThreads {
    return this.listDir(this.dir, this.cwd);
  }

  /** Every project's threads, grouped by project. */
  listAll(): ProjectThreads[] {
    const root = join(this.dataDir, "projects");
    if (!existsSync(root)) return [];
    return readdirSync(root)
      .map((name) => this.listDir(join(root, name), null))
      .filter((p) => p.threads.length || p.unreadable.length);
  }

  private listDir(dir: string, knownCwd: string | null): ProjectThreads {
    if (!existsSync(dir)) return { cwd: knownCwd ?? dir, threads: [], unreadable: [] };
    const indexPath = join(dir, "index.json");
    const index = readIndex(indexPath);
    const next: Record<string, ScanState> = {};
    const threads: ThreadSummary[] = [];
    const unreadable: Unreadable[] = [];
    let changed = false;
    for (const name of readdirSync(dir)) {
      if (!name.endsWith(".jsonl")) continue;
      const path = join(dir, name);
      try {
        const seen = lstatSync(path);
        if (!seen.isFile()) {
          unreadable.push({ path, error: `${kindOf(seen)}: tine opens only regular files there, never through a link` });
          continue;
        }
        const before = index.get(name) ?? null;
        const state = scanLog(path, seen, before);
        next[name] = state;
        if (state !== before) changed = true;
        if (state.summary) threads.push(state.summary);
        else unreadable.push({ path, error: state.error ?? "unreadable" });
      } catch (error) {
        unreadable.push({ path, error: (error as Error).message });
      }
    }
    if (changed || index.size !== Object.keys(next).length) writeIndex(indexPath, next, this.pid);
    threads.sort((a, b) => a.created - b.created);
    return { cwd: knownCwd ?? threads[0]?.cwd ?? dir, threads, unreadable };
  }

  /**
   * Deletes a thread. Forks point into their parent's log, so a log with forks is kept (marked
   * deleted, hidden from the list) until its last fork is deleted; then it goes too.
   */
  delete(id: string): void {
    const holder = this.lockedBy(id);
    if (holder !== null) throw new Error(`tine: the thread is open in another Neovim (pid ${holder})`);
    const all = this.list().threads;
    // Only forks replay their parent's log; a hand-off merely hangs under it.
    const hasForks = (tid: string) => all.some((t) => t.parent?.relation === "fork" && t.parent.id === tid && existsSync(this.path(t.id)));
    if (hasForks(id)) {
      const own = this.writers.get(id);
      if (own) own.append([{ t: "deleted" }]);
      else {
        const fd = openRegular(this.path(id), "append");
        writeSync(fd, encode({ t: "deleted" }));
        closeSync(fd);
      }
      return;
    }
    this.writers.get(id)?.close();
    this.remove(id);
    // A deleted parent kept only for this fork can go now (each once: pointers read from files may loop).
    const gone = new Set([id]);
    let parent = all.find((t) => t.id === id)?.parent?.id;
    while (parent && !gone.has(parent)) {
      gone.add(parent);
      const p = all.find((t) => t.id === parent);
      if (!p?.deleted || hasForks(p.id)) break;
      this.remove(p.id);
      parent = p.parent?.id;
    }
  }

  private remove(id: string): void {
    unlinkSync(this.path(id));
    this.parsed.delete(this.path(id));
    try {
      unlinkSync(this.lockPath(id));
    } catch {}
  }
}
