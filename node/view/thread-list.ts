/**
 * The thread list: one line per thread, forks indented under their parent at the message they
 * branched from, each with its number (the one `:Tine diff` takes), its label, live status,
 * message count and last activity. Stored threads that are not loaded show as `stored`, or `busy`
 * while another Neovim writes them. With every project (`:Tine threads!`), this project's ended
 * forks follow (how each ended), then other projects' trees, drawn by the same rules. What the
 * user does to the view itself lives here too: a filter by title (`/`) and folded subtrees (`zc`).
 *
 * Over 300 lines: it is the one drawing of the list; this project's tree, its ended forks and
 * other projects' trees share its walk, its rows and the filter and folds the walk honours.
 */
import type { Chat } from "../chat/chat.ts";
import type { ForkEnd, StoredThread } from "../chat/msgs.ts";
import type { ThreadStatus } from "../chat/runner.ts";
import type { Thread } from "../chat/thread.ts";
import type { Relation } from "../chat/tree.ts";
import type { ThreadId } from "../core/ids.ts";
import type { RunnerSpec } from "../core/runner-spec.ts";
import type { WaitingMerge } from "../core/waiting-merge.ts";
import type { WinbarPart } from "../usage/winbar.ts";

const STATUS_ICON: Record<ThreadStatus | "stored", string> = {
  idle: "·",
  streaming: "⋯",
  waiting: "⏳",
  error: "⚠",
  busy: "🔒",
  running: "▷",
  exited: "■",
  stored: "○",
};

/** Another project's threads, as listed from disk: its tree by the same rules as this one's. */
export type OtherProject = { cwd: string; threads: readonly StoredThread[] };

/** A fork that ended (discarded, reported, or promoted from a worktree of its own), kept on disk: `<CR>` on it restores it. */
export type EndedFork = StoredThread & { how: ForkEnd };

export type ListScope = { type: "project" } | { type: "all"; ended: readonly EndedFork[]; others: readonly OtherProject[] };

export type ListExtras = {
  /** What a thread's requests used and cost (live or stored), its subtree's, a fork's cache miss (node/usage/book.ts). */
  usage(id: ThreadId): string[];
  /** The display window's winbar of a live thread (none: no winbar). */
  winbar(thread: Thread): readonly WinbarPart[];
  /** Last activity of a live thread, when known. */
  updated(id: ThreadId): number | undefined;
  /** The label of a stored thread run by `spec` (no runner exists for it). */
  label(spec: RunnerSpec): string;
  /** Transcripts of this project that could not be read. */
  unreadable(): readonly { path: string; error: string }[];
  /** Why a live thread is not being saved (its last write failed), or undefined when it is. */
  notSaved(id: ThreadId): string | undefined;
  /** Messages in the conversation of a thread whose runner keeps its own (a Claude Code session), or null. */
  ownMessages(spec: RunnerSpec): number | null;
  /** The folder a live thread works in when it is not the project's (a worktree fork's worktree), or null. */
  worksIn(id: ThreadId): string | null;
  /** Whether a live thread's tools run in the sandbox, and nothing inside it waits for approval (an unattended fork's). */
  unattended(id: ThreadId): boolean;
  /** The fork waiting for a thread (its rest, or its program's turn to end: node/fork/), if any. */
  waitingFork(sourceId: ThreadId): { readonly prompt: string } | undefined;
  /** Whether a stored (or ended) thread's worktree is still on disk (a reported fork's stays), and one tine made for this project. */
  onDisk(path: string): boolean;
  /** The conflicted merges of worktree forks promoted into a live thread that wait to be accepted (its display shows each). */
  merges(id: ThreadId): readonly WaitingMerge[];
  /** A folder as a row names it: short (util/shown-path.ts). */
  shownPath(path: string): string;
  /** What a fan-out fork's row adds (its place in its fan-out, its check's verdict: node/fork/fanout.ts), or null. */
  fanOutMark(id: ThreadId): string | null;
  /** Whether fan-out fork `id`'s check runs now (node/fork/checks.ts): at rest, it is not idle yet. */
  checking(id: ThreadId): boolean;
  /** What a thread's display notes of the fan-outs made from it, a line each. */
  fanOutNotes(id: ThreadId): readonly string[];
  /** What a live thread's request waits for before it goes that the user must do (sign in to an MCP server), a line each. */
  waitNotes(id: ThreadId): readonly string[];
};

/** A time as the list shows it: the clock today, the date before. */
export function when(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  const clock = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return new Date(now).toDateString() === d.toDateString()
    ? clock
    : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock}`;
}

/** What a list line stands for. */
export type ListItem =
  | { type: "thread"; id: ThreadId }
  | { type: "waiting-fork"; sourceId: ThreadId }
  | { type: "ended-fork"; id: ThreadId }
  | null;

/** What `zc`, `zo` and `za` do to a subtree. */
export type FoldHow = "close" | "open" | "toggle";

/** One thread as its line shows it. */
type Row = {
  num: number | null;
  /** How it hangs under its parent, when it does: its mark before the title. */
  relation?: Relation;
  /** Its runner's mark (`[claude] `) and title. */
  title: string;
  label: string | null;
  status: ThreadStatus | "stored";
  statusText: string;
  details: string[];
  active: boolean;
};

/** A tree as the list walks it: its roots, each thread's children and parent, and its line. */
type Tree = {
  roots: readonly ThreadId[];
  children(id: ThreadId): readonly ThreadId[];
  parent(id: ThreadId): ThreadId | undefined;
  row(id: ThreadId): Row;
  /** What goes on the line, for `<CR>` and the other keys; null for another project's thread. */
  item(id: ThreadId): ListItem;
  /** Lines shown after the thread's forks (a fork waiting for it). */
  after?(id: ThreadId, depth: number): { line: string; item: ListItem }[];
};

const msgs = (n: number) => `${n} msg${n === 1 ? "" : "s"}`;

/** The mark before a child's title: a fork's ⑂, a hand-off's ↪; a compaction's title carries its own (⇣). */
const RELATION_MARK: Record<Relation, string> = { fork: "⑂ ", handoff: "↪ ", compact: "" };

export class ThreadList {
  private items: ListItem[] = [];
  /** Only threads whose title or label holds this (case aside) show, with their ancestors; "" shows all. */
  filter = "";
  /** Threads whose forks are hidden (`zc`), for this session. */
  readonly folded = new Set<ThreadId>();

  render(chat: Chat, scope: ListScope, extras: ListExtras): string[] {
    const lines: string[] = [];
    this.items = [];
    const add = (line: string, item: ListItem) => {
      lines.push(line);
      this.items.push(item);
    };
    const ended = scope.type === "all" ? scope.ended : [];
    const nums = [...chat.threads.values(), ...chat.stored.values(), ...ended].map((t) => t.num);
    const numWidth = 1 + String(Math.max(0, ...nums)).length;
    const blank = " ".repeat(numWidth);
    const lineOf = (row: Row, depth: number, hidden: number) => {
      const num = row.num === null ? blank : `#${row.num}`.padStart(numWidth);
      const label = row.label ? `  🏷 ${row.label}` : "";
      const details = [...row.details, ...(hidden ? [`▸ ${hidden} fork${hidden === 1 ? "" : "s"} folded (zo)`] : [])];
      const fork = depth ? RELATION_MARK[row.relation ?? "fork"] : "";
      const head = `${row.active ? "▶" : " "} ${num}  ${"  ".repeat(depth)}${fork}${row.title}${label}`;
      return `${head}  ${STATUS_ICON[row.status]} ${row.statusText} · ${details.join(" · ")}`;
    };
    const needle = this.filter.toLowerCase();
    if (needle) add(`/ ${this.filter}: threads whose title or label holds it (/ changes it, <Esc> clears it)`, null);
    const draw = (tree: Tree) => {
      // With a filter: the threads that match and every thread above them.
      let shown: Set<ThreadId> | null = null;
      if (needle) {
        shown = new Set();
        const all = (ids: readonly ThreadId[]): ThreadId[] => ids.flatMap((id) => [id, ...all(tree.children(id))]);
        for (const id of all(tree.roots)) {
          const row = tree.row(id);
          if (!`${row.title} ${row.label ?? ""}`.toLowerCase().includes(needle)) continue;
          for (let at: ThreadId | undefined = id; at !== undefined && !shown.has(at); at = tree.parent(at)) shown.add(at);
        }
      }
      const visible = (ids: readonly ThreadId[]) => (shown ? ids.filter((id) => shown.has(id)) : ids);
      const count = (id: ThreadId): number => visible(tree.children(id)).reduce((n, c) => n + 1 + count(c), 0);
      const visit = (id: ThreadId, depth: number) => {
        const children = visible(tree.children(id));
        const folded = this.folded.has(id) && children.length > 0;
        add(lineOf(tree.row(id), depth, folded ? count(id) : 0), tree.item(id));
        if (folded) return;
        for (const child of children) visit(child, depth + 1);
        for (const a of tree.after?.(id, depth) ?? []) add(a.line, a.item);
      };
      for (const id of visible(tree.roots)) visit(id, 0);
    };
    const before = lines.length;
    draw(this.projectTree(chat, extras, blank));
    if (lines.length === before) add(needle ? `(no thread here holds "${this.filter}")` : "(no threads yet: :Tine new)", null);
    for (const u of extras.unreadable()) add(`⚠ unreadable transcript ${u.path}: ${u.error}`, null);
    if (scope.type === "all") {
      if (scope.ended.length) {
        add("", null);
        add("── ended forks of this project (<CR> restores one)", null);
        for (const f of scope.ended) {
          // Its number and label as it had them: the fork is known by them when it is looked for.
          const row = storedRow(f, extras);
          const label = row.label ? `  🏷 ${row.label}` : "";
          add(`  ${`#${f.num}`.padStart(numWidth)}  ${row.title}${label}  ○ ended (${f.how}) · ${row.details.join(" · ")}`, {
            type: "ended-fork",
            id: f.id,
          });
        }
      }
      for (const project of scope.others) {
        add("", null);
        add(`── ${project.cwd} (another project: :cd there to open its threads)`, null);
        draw(otherTree(project, extras));
      }
    }
    return lines;
  }

  /** This project's live and stored threads: roots (and forks whose parent was deleted) in creation order. */
  private projectTree(chat: Chat, extras: ListExtras, blank: string): Tree {
    const parent = (id: ThreadId) => {
      const p = chat.lineage.get(id)?.parentId;
      return p !== undefined && chat.has(p) ? p : undefined;
    };
    const created = (id: ThreadId) => chat.threads.get(id)?.created ?? chat.stored.get(id)?.created ?? 0;
    const roots = [...chat.threads.keys(), ...chat.stored.keys()].filter((id) => parent(id) === undefined);
    roots.sort((a, b) => created(a) - created(b));
    // Siblings by number, the order they were made in: stored ones are linked in the store folder's order.
    const num = (id: ThreadId) => chat.threads.get(id)?.num ?? chat.stored.get(id)?.num ?? 0;
    return {
      roots,
      children: (id) => chat.childrenOf(id).sort((a, b) => num(a) - num(b)),
      parent,
      row: (id) => ({ ...threadRow(chat, id, extras), relation: chat.lineage.get(id)?.relation }),
      item: (id) => ({ type: "thread", id }),
      after: (id, depth) => {
        const waiting = extras.waitingFork(id);
        if (!waiting) return [];
        const prompt = waiting.prompt ? ` "${waiting.prompt.split("\n")[0]}"` : "";
        const line = `  ${blank}  ${"  ".repeat(depth + 1)}⑂ ⏸ fork${prompt} waits for this reply to finish (<C-c> cancels)`;
        return [{ line, item: { type: "waiting-fork", sourceId: id } }];
      },
    };
  }

  /**
   * Folds (`zc`), opens (`zo`) or toggles (`za`) the subtree at a line, as Vim's folds do: on a
   * thread without forks, `zc` folds its parent's. Returns the thread whose line the cursor goes
   * to, or null when the line shows no thread.
   */
  fold(chat: Chat, line: number, how: FoldHow): ThreadId | null {
    const id = this.idAt(line);
    if (id === null) return null;
    const parent = chat.lineage.get(id)?.parentId;
    const target = chat.childrenOf(id).length || parent === undefined || !chat.has(parent) ? id : parent;
    const open = how === "open" || (how === "toggle" && this.folded.has(id));
    if (open) this.folded.delete(id);
    else this.folded.add(target);
    return open ? id : target;
  }

  itemAt(line: number): ListItem {
    return this.items[line] ?? null;
  }

  idAt(line: number): ThreadId | null {
    const item = this.itemAt(line);
    return item?.type === "thread" ? item.id : null;
  }

  /** The line (0-based) showing thread `id`, or null when it is not shown (filtered out, folded). */
  lineOf(id: ThreadId): number | null {
    const at = this.items.findIndex((item) => item?.type === "thread" && item.id === id);
    return at < 0 ? null : at;
  }
}

/** A thread of this project, live or stored. */
function threadRow(chat: Chat, id: ThreadId, extras: ListExtras): Row {
  const live = chat.threads.get(id);
  const stored = chat.stored.get(id);
  if (!live) return { ...storedRow(stored!, extras), active: false };
  const busyBy = live.readOnlyBy;
  const status = live.status;
  const activity = busyBy === null ? live.runner.statusDetail() : "";
  // A fan-out fork at rest whose check runs is not done yet: "checking", not "idle".
  const shown = busyBy !== null ? `busy (pid ${busyBy})` : status === "idle" && extras.checking(id) ? "checking" : status;
  const statusText = shown + activity + (chat.forks.get(id)?.background ? " (background)" : "");
  const count = extras.ownMessages(live.runner.spec) ?? live.runner.history.length;
  const at = extras.updated(id) ?? stored?.updated;
  const notSaved = extras.notSaved(id);
  const worksIn = extras.worksIn(id);
  const fanOut = extras.fanOutMark(id);
  // Messages waiting to go: an idle thread holding some (after an abort, an error) is not done.
  const waiting = live.queue.length;
  const queue = waiting ? [`${waiting} ${live.queue.held !== null ? "held" : "queued"}`] : [];
  return {
    num: live.num,
    title: live.runner.label + live.title,
    label: live.labels.thread,
    status,
    statusText,
    details: [
      ...queue,
      ...(fanOut ? [fanOut] : []),
      msgs(count),
      ...extras.usage(id),
      ...(at ? [when(at)] : []),
      ...(extras.unattended(id) ? [UNATTENDED] : []),
      ...(worksIn ? [`⎇ ${extras.shownPath(worksIn)}`] : []),
      ...(notSaved ? [`⚠ not saved: ${notSaved}`] : []),
    ],
    active: chat.activeId === id,
  };
}

/** A thread known from its file (not loaded here, or another project's). */
function storedRow(t: StoredThread, extras: ListExtras): Row {
  // Written by another Neovim: known from its lock before the thread is opened here.
  const status = t.busyBy !== null ? "busy" : "stored";
  // A stored fan-out fork is grouped again after a restart (node/fork/fanout.ts `found`): its place and check show as a live one's.
  const fanOut = extras.fanOutMark(t.id);
  return {
    num: t.num,
    title: extras.label(t.runner) + t.title,
    label: t.label,
    status,
    statusText: t.busyBy !== null ? `busy (pid ${t.busyBy})` : t.interrupted ? "interrupted (<CR> goes on)" : status,
    details: [
      // Its queue as it comes back when opened: held. Another Neovim's queue is its own (its status says busy).
      ...(t.queued && t.busyBy === null ? [`${t.queued} held`] : []),
      ...(fanOut ? [fanOut] : []),
      msgs(extras.ownMessages(t.runner) ?? t.messages),
      ...extras.usage(t.id),
      when(t.updated),
      ...(t.worktree?.unattended ? [UNATTENDED] : []),
      ...(t.worktree && extras.onDisk(t.worktree.path) ? [`⎇ ${extras.shownPath(t.worktree.path)}`] : []),
      ...(t.problems ? [`⚠ ${t.problems} unreadable line(s)`] : []),
      ...(t.looped ? [LOOPED] : []),
    ],
    active: false,
  };
}

/** A fork whose tools run in the sandbox, without approvals inside it. */
export const UNATTENDED = "🔒 unattended";

const LOOPED = "⚠ its parent pointer loops back to it (damaged transcript): listed as a root";

/** Another project's tree: its threads are not this project's to open, so no line acts on them. */
function otherTree(project: OtherProject, extras: ListExtras): Tree {
  const byId = new Map(project.threads.map((t) => [t.id, t]));
  const parent = (id: ThreadId) => {
    const p = byId.get(id)?.parentId;
    return p && byId.has(p) ? p : undefined;
  };
  return {
    roots: project.threads.filter((t) => parent(t.id) === undefined).map((t) => t.id),
    children: (id) => project.threads.filter((t) => t.parentId === id).map((t) => t.id),
    parent,
    row: (id) => ({ ...storedRow(byId.get(id)!, extras), num: null, relation: byId.get(id)!.relation }),
    item: () => null,
  };
}
