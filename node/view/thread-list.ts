/**
 * The thread list: one line per thread, forks indented under their parent at the message they
 * branched from, live status, message count and last activity. Stored threads that are not
 * loaded show as `stored`, or `busy` while another Neovim writes them. With every project (`:Tine threads!`), other projects' threads follow,
 * grouped under their working directory.
 */
import type { Chat } from "../chat/chat.ts";
import type { ThreadId } from "../chat/msgs.ts";
import type { RunnerSpec, ThreadStatus } from "../chat/runner.ts";

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

/** Another project's thread, as listed from disk. */
export type OtherThread = { id: ThreadId; title: string; parentId: ThreadId | null; messages: number; updated: number };
export type OtherProject = { cwd: string; threads: OtherThread[] };

/** A fork that ended (discarded or reported), kept on disk: `<CR>` on it restores it. */
export type EndedFork = { id: ThreadId; title: string; messages: number; updated: number };

export type ListScope = { type: "project" } | { type: "all"; ended: EndedFork[]; others: OtherProject[] };

export type ListExtras = {
  /** Last activity of a live thread, when known. */
  updated(id: ThreadId): number | undefined;
  /** The label of a stored thread run by `spec` (no runner exists for it). */
  label(spec: RunnerSpec): string;
  /** Transcripts of this project that could not be read. */
  unreadable(): readonly { path: string; error: string }[];
  /** Why a live thread is not being saved (its last write failed), or undefined when it is. */
  notSaved(id: ThreadId): string | undefined;
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

export class ThreadList {
  private items: ListItem[] = [];

  render(chat: Chat, scope: ListScope, extras: ListExtras): string[] {
    const lines: string[] = [];
    this.items = [];
    const add = (line: string, item: ListItem) => {
      lines.push(line);
      this.items.push(item);
    };
    const known = (id: ThreadId) => chat.has(id);
    const visit = (id: ThreadId, depth: number) => {
      const live = chat.threads.get(id);
      const stored = chat.stored.get(id);
      const label = live ? live.runner.label : stored ? extras.label(stored.runner) : "";
      const title = label + (live?.title ?? stored?.title ?? "?");
      // Written by another Neovim: known from its lock before the thread is opened here.
      const busyBy = live ? live.readOnlyBy : (stored?.busyBy ?? null);
      const status = live ? live.status : busyBy !== null ? "busy" : "stored";
      const activity = live && busyBy === null ? live.runner.statusDetail() : "";
      const statusText =
        (busyBy !== null ? `busy (pid ${busyBy})` : status) + activity + (chat.forks.get(id)?.background ? " (background)" : "");
      const count = live ? live.runner.history.length : (stored?.messages ?? 0);
      const at = (live && extras.updated(id)) ?? stored?.updated;
      const notSaved = live ? extras.notSaved(id) : undefined;
      const details = [
        `${count} msg${count === 1 ? "" : "s"}`,
        ...(at ? [when(at)] : []),
        ...(stored?.problems ? [`⚠ ${stored.problems} unreadable line(s)`] : []),
        ...(notSaved ? [`⚠ not saved: ${notSaved}`] : []),
      ];
      const active = chat.activeId === id ? "▶" : " ";
      add(`${active} ${"  ".repeat(depth)}${depth ? "⑂ " : ""}${title}  ${STATUS_ICON[status]} ${statusText} · ${details.join(" · ")}`, {
        type: "thread",
        id,
      });
      for (const child of chat.childrenOf(id)) visit(child, depth + 1);
      const waiting = chat.waitingForks.get(id);
      if (waiting) {
        const prompt = waiting.prompt ? ` "${waiting.prompt.split("\n")[0]}"` : "";
        add(`  ${"  ".repeat(depth + 1)}⑂ ⏸ fork${prompt} waits for this reply to finish (<C-c> cancels)`, {
          type: "waiting-fork",
          sourceId: id,
        });
      }
    };
    const all = [...chat.threads.keys(), ...chat.stored.keys()];
    const created = (id: ThreadId) => chat.threads.get(id)?.created ?? chat.stored.get(id)?.created ?? 0;
    // Roots (and forks whose parent was deleted) in creation order.
    const roots = all.filter((id) => {
      const parent = chat.lineage.get(id)?.parentId;
      return parent === undefined || !known(parent);
    });
    roots.sort((a, b) => created(a) - created(b));
    for (const id of roots) visit(id, 0);
    if (!lines.length) add("(no threads yet: :Tine new)", null);
    for (const u of extras.unreadable()) add(`⚠ unreadable transcript ${u.path}: ${u.error}`, null);
    if (scope.type === "all") {
      if (scope.ended.length) {
        add("", null);
        add("── ended forks of this project (<CR> restores one)", null);
        for (const f of scope.ended)
          add(`  ${f.title}  ○ ended · ${f.messages} msgs · ${when(f.updated)}`, { type: "ended-fork", id: f.id });
      }
      for (const project of scope.others) {
        add("", null);
        add(`── ${project.cwd} (another project: :cd there to open its threads)`, null);
        const inProject = new Set(project.threads.map((t) => t.id));
        const visitOther = (t: OtherThread, depth: number) => {
          add(`  ${"  ".repeat(depth)}${depth ? "⑂ " : ""}${t.title}  ○ stored · ${t.messages} msgs · ${when(t.updated)}`, null);
          for (const c of project.threads.filter((c) => c.parentId === t.id)) visitOther(c, depth + 1);
        };
        for (const t of project.threads.filter((t) => !t.parentId || !inProject.has(t.parentId))) visitOther(t, 0);
      }
    }
    return lines;
  }

  itemAt(line: number): ListItem {
    return this.items[line] ?? null;
  }

  idAt(line: number): ThreadId | null {
    const item = this.itemAt(line);
    return item?.type === "thread" ? item.id : null;
  }
}
