/**
 * Fork ×N: one prompt to N forks at once, each a background fork in a worktree of its own made
 * from the same snapshot of its source's files (so their changes line up against one starting
 * point), unattended where the sandbox can start, each on its model when `models` are given. A
 * fan-out fork does not report and end when its turn ends: it waits, done, for the user's choice
 * (promote one, graft, discard; chat/forks.ts). The groups are kept here, by id, with their forks'
 * checks and what the list, the displays and :Tine compare show of them; making one is
 * fanout-make.ts's job. Each fork's transcript keeps its place in its group and its check's end
 * (core/fan-out-record.ts), from which `found` groups stored forks again after a restart.
 */
import { modelNameOf } from "../chat/runner.ts";
import type { SendContext } from "../context/follow.ts";
import type { SnapshotId } from "../core/code-marks.ts";
import { type CheckResult, type FanOutPlace, fanOutPlace } from "../core/fan-out-record.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import type { CodeSnapshots } from "../snapshot/code.ts";
import type { ThreadSummary } from "../store/summary.ts";
import type { Environment } from "../tools/environment.ts";
import type { CountedThread } from "../usage/book.ts";
import { lastRequestModel, NO_STORED_USAGE } from "../usage/stored.ts";
import { checkVerdict, ForkChecks } from "./checks.ts";
import { type ComparedFork, compareForks, forksToCompare } from "./compare.ts";
import { type FanOut, type FanOutAsk, type FanOutMakeHost, FanOutMaker } from "./fanout-make.ts";
import type { ForkFolders } from "./flow.ts";

export type { FanOut, FanOutAsk } from "./fanout-make.ts";

export type FanOutHost = FanOutMakeHost & {
  /** Where forks can be made, and where each works (its worktree, its environment: the sandbox when unattended, its snapshots). */
  readonly folders: Pick<ForkFolders, "available" | "unattendedRefusal"> & {
    of(id: ThreadId): {
      readonly root: string;
      readonly environment: Environment;
      readonly snapshots: CodeSnapshots;
      /** Settles once its files are there (a fan-out fork's worktree is written while it asks the model). */
      readonly ready: Promise<void>;
    };
  };
  /** What a fork's requests cost and read from the cache (a stored fork's, as its transcript's scan keeps them). */
  readonly usage: {
    info(thread: CountedThread): UsageFigures;
    storedInfo(id: ThreadId, counts: boolean): UsageFigures | null;
  };
  /** A fork's check started or ended: what shows it redraws. */
  changed(id: ThreadId): void;
  /** A file changed in a fork's worktree while it was at rest (a hand from outside): a :Tine compare view showing it redraws. */
  filesChanged(id: ThreadId): void;
  /** A fork's check ended (null: cleared by a later turn): its transcript keeps it. */
  keepCheck(id: ThreadId, result: CheckResult | null): void;
};

type UsageFigures = { readonly cost_usd: number | null; readonly cache_read: number };

/** How long a fork's worktree stays unchanged before a :Tine compare view showing it is told of its changes. */
const FILES_CHANGED_QUIET_MS = 150;

/** A fan-out's prompt as its notes name it: its first line, cut at 60 characters. */
function promptLine(prompt: string): string {
  const line = prompt.split("\n")[0]!;
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}

/** Whether the last turn of `history` was cut off (an abort, a quit while it worked: the replay marks it so). */
function lastTurnInterrupted(history: History): boolean {
  for (let i = history.length - 1; i >= 0; i--) {
    const entry = history.at(i);
    if (entry.message.role === "assistant") return entry.meta?.interrupted === true;
  }
  return false;
}

export class FanOuts {
  private readonly groups = new Map<string, FanOut>();
  private readonly groupOfFork = new Map<ThreadId, string>();
  /** Each fork's place in its fan-out (from 1): a group found again lists its forks in this order. */
  private readonly places = new Map<ThreadId, number>();
  /** The fan-outs whose forks were all done, said once each (`allDone`). */
  private readonly doneSaid = new Set<string>();
  /** The forks whose worktree changed at rest, told after FILES_CHANGED_QUIET_MS without another change. */
  private readonly filesChangedSoon = new Map<ThreadId, NodeJS.Timeout>();
  /** Each fork's check, run when it comes to rest (checks.ts); the host tells it of each batch. */
  readonly checks: ForkChecks;
  private readonly maker: FanOutMaker;

  constructor(private readonly host: FanOutHost) {
    this.maker = new FanOutMaker(host, {
      add: (group) => {
        this.groups.set(group.id, group);
        for (const [i, id] of group.forks.entries()) {
          this.groupOfFork.set(id, group.id);
          this.places.set(id, i + 1);
        }
      },
      forget: (id) => this.forget(id),
      forksOf: (groupId) => this.groups.get(groupId)?.forks ?? [],
    });
    this.checks = new ForkChecks({
      thread: (id) => {
        const live = host.chat.threads.get(id);
        if (live) return { atRest: live.atRest, status: live.status, interrupted: lastTurnInterrupted(live.runner.history) };
        const stored = host.chat.stored.get(id);
        return stored && { atRest: true, status: "stored", interrupted: stored.interrupted };
      },
      checkOf: (id) => this.of(id)?.check,
      environmentOf: async (id) => {
        const workspace = host.folders.of(id);
        await workspace.ready;
        return workspace.environment;
      },
      changed: (id) => {
        // Done: its snapshot is taken now and kept while its worktree is quiet, so the first compare reads none of its files.
        if (this.checks.state(id) === "done")
          Promise.resolve()
            .then(() => host.folders.of(id).snapshots.takeWhileQuiet(id, true, () => this.filesChanged(id)))
            .catch(() => {});
        host.changed(id);
        this.allDone(id);
      },
      kept: (id, result) => host.keepCheck(id, result),
    });
  }

  /** The fan-out fork `id` belongs to, if any. */
  of(id: ThreadId): FanOut | undefined {
    const group = this.groupOfFork.get(id);
    return group === undefined ? undefined : this.groups.get(group);
  }

  /** The fan-out `groupId` names (`FanOut.id`), while a fork of it is live. */
  group(groupId: string): FanOut | undefined {
    return this.groups.get(groupId);
  }

  /** The fan-outs made from thread `sourceId`, oldest first. */
  from(sourceId: ThreadId): FanOut[] {
    return [...this.groups.values()].filter((g) => g.sourceId === sourceId);
  }

  /** Makes the forks of a fan-out of `sourceId` (fanout-make.ts) and returns their ids; throws, with nothing made, on bad input. */
  fanout(sourceId: ThreadId, prompt: string, ask: FanOutAsk = {}, context?: SendContext): Promise<ThreadId[]> {
    return this.maker.make(sourceId, prompt, ask, context);
  }

  /** `compare(ask)`: the forks `ask` stands for (compare.ts's forksToCompare), each as it is now. */
  compare(ask: ThreadId | readonly ThreadId[]): Promise<ComparedFork[]> {
    const { host } = this;
    const ids = forksToCompare(this, ask, host.chat);
    return compareForks(
      {
        fanouts: this,
        checks: this.checks,
        thread: (id) => {
          const live = host.chat.threads.get(id);
          if (live) return { title: live.title, num: live.num, model: modelNameOf(live.runner) };
          const stored = host.chat.stored.get(id);
          if (!stored) return undefined;
          // Its choice when it kept one, else the model its last request named (as a live one's next request would).
          const model =
            stored.runner.kind === "api" ? (stored.runner.model?.model ?? lastRequestModel(stored.usage ?? NO_STORED_USAGE)) : null;
          return { title: stored.title, num: stored.num, model };
        },
        workspace: (id) => host.folders.of(id),
        usage: (id) => {
          const thread = host.chat.threads.get(id);
          return (thread ? host.usage.info(thread) : host.usage.storedInfo(id, true)) ?? { cost_usd: null, cache_read: 0 };
        },
        filesChanged: (id) => this.filesChanged(id),
      },
      ids,
    );
  }

  /** What fork `id`'s header keeps of its fan-out (its place, the prompt's first line, whether it is checked), or undefined: none's. */
  placeOf(id: ThreadId): FanOutPlace | undefined {
    const group = this.of(id);
    const index = this.places.get(id);
    if (!group || index === undefined) return undefined;
    return fanOutPlace(group.id, index, Math.max(index, group.made), group.prompt, group.checked);
  }

  /**
   * The stored forks of fan-outs (a restart, `:Tine threads!` restoring one), grouped again by what
   * their transcripts keep: a fork joins its group only where its source, its worktree's snapshot
   * and its place agree with the group's (a planted header does not join another's group), and
   * its check's last end shows again. After a restart a later turn is checked by `check_command`.
   */
  found(summaries: readonly ThreadSummary[]): void {
    for (const s of summaries) {
      const place = s.fanOut;
      if (!place || s.ended || s.deleted || this.groupOfFork.has(s.id)) continue;
      if (s.parent?.relation !== "fork" || !s.worktree) continue;
      const known = this.groups.get(place.group);
      if (known && (known.sourceId !== s.parent.id || known.base !== s.worktree.base)) continue;
      if (known?.forks.some((f) => this.places.get(f) === place.index)) continue;
      const group: FanOut = known ?? {
        id: place.group,
        sourceId: s.parent.id,
        prompt: place.prompt,
        forks: [],
        made: place.of,
        check: place.checked ? this.host.checkCommand || null : null,
        checked: place.checked,
        unattended: s.worktree.unattended === true,
        base: s.worktree.base as SnapshotId,
      };
      this.places.set(s.id, place.index);
      const forks = [...group.forks, s.id].sort((a, b) => this.places.get(a)! - this.places.get(b)!);
      this.groups.set(group.id, { ...group, forks });
      this.groupOfFork.set(s.id, group.id);
      this.checks.found(s.id, s.check);
    }
  }

  /** What the list's line of fan-out fork `id` adds: `⑂×3 2/3` and its check's verdict; null for another thread. */
  listMark(id: ThreadId): string | null {
    const group = this.of(id);
    if (!group) return null;
    const verdict = !group.checked ? "" : ` check ${checkVerdict(this.checks.result(id), this.checks.running(id))}`;
    return `⑂×${group.made} ${this.places.get(id)}/${group.made}${verdict}`;
  }

  /** What the display of thread `id` notes: a fan-out fork its place and check as the list shows them; a source a line per fan-out. */
  notes(id: ThreadId): string[] {
    const mark = this.listMark(id);
    const own = mark === null ? [] : [`${mark} · :Tine compare`];
    return own.concat(
      // Counted as it was made, as its forks count it (`⑂×3 2/3`): a fork promoted or discarded leaves the count.
      this.from(id).map((g) => `⑂×${g.made} fan-out: ${promptLine(g.prompt)} · :Tine compare`),
    );
  }

  /** Fork `id` left the chat (ended, deleted): its check stops, it leaves its group; an empty group goes. */
  forget(id: ThreadId): void {
    this.checks.forget(id);
    const groupId = this.groupOfFork.get(id);
    if (groupId === undefined) return;
    this.groupOfFork.delete(id);
    this.places.delete(id);
    const group = this.groups.get(groupId)!;
    const forks = group.forks.filter((f) => f !== id);
    if (forks.length) this.groups.set(groupId, { ...group, forks });
    else this.groups.delete(groupId);
  }

  /**
   * Fork `id`'s check started or ended, or it came to rest unchecked: once every fork of its
   * fan-out has ended its work (done, or interrupted: cut off, which is not counted done), the
   * user is told, once, and where to look.
   */
  private allDone(id: ThreadId): void {
    const group = this.of(id);
    if (!group || this.doneSaid.has(group.id)) return;
    const states = group.forks.map((f) => this.checks.state(f));
    if (!states.every((s) => s === "done" || s === "interrupted")) return;
    this.doneSaid.add(group.id);
    const done = states.filter((s) => s === "done").length;
    const cut = states.length - done;
    const passed = group.forks.filter((f) => this.checks.result(f)?.ok).length;
    const checks = group.checked ? ` (${passed} check${passed === 1 ? "" : "s"} passed)` : "";
    const interrupted = cut ? `, ${cut} interrupted` : "";
    this.host.tell(
      `tine: fan-out "${promptLine(group.prompt)}": ${done} of ${states.length} done${interrupted}${checks} · :Tine compare`,
      false,
    );
  }

  /**
   * A file changed in fork `id`'s worktree at rest: told once the burst is over (a save writes
   * several times, a `git checkout` many files), so a compare view asks again once, not per write.
   */
  private filesChanged(id: ThreadId): void {
    clearTimeout(this.filesChangedSoon.get(id));
    const timer = setTimeout(() => {
      this.filesChangedSoon.delete(id);
      if (this.of(id)) this.host.filesChanged(id);
    }, FILES_CHANGED_QUIET_MS);
    timer.unref();
    this.filesChangedSoon.set(id, timer);
  }
}
