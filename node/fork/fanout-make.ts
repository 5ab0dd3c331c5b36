/**
 * Making a fan-out (`fanout(id, prompt, opts)`): what it asks checked, with nothing made on bad
 * input; the group kept (fanout.ts's FanOuts keeps the groups and what they show); then each fork
 * started through the one fork flow (flow.ts, `start`), each in a worktree of its own made from one
 * snapshot of its source's files, unattended where the sandbox can start, each on its model when
 * `models` are given.
 */
import type { Chat } from "../chat/chat.ts";
import type { NewThread } from "../chat/mint.ts";
import type { ForkClone } from "../chat/msgs.ts";
import { threadName } from "../chat/names.ts";
import { modelNameOf } from "../chat/runner.ts";
import type { SendContext } from "../context/follow.ts";
import type { SnapshotId } from "../core/code-marks.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ForkFlow, ForkFolders } from "./flow.ts";

/** What `fanout(id, prompt, opts)` asks (`:ForkThread --n N`, `@fork×N`, `N f` in the list). */
export type FanOutAsk = {
  /** How many forks (1 to `fanout_max`); absent: one per model given, else 2. */
  readonly n?: number;
  /** Models the forks run on, in turn (fork i on models[i mod their number]); absent: the source's. */
  readonly models?: readonly string[];
  /** Run in each fork's worktree when its turn ends (absent: `check_command`; false: none). */
  readonly check?: string | false;
};

/** One fan-out: its forks in the order they were made, and what checks them. */
export type FanOut = {
  readonly id: string;
  readonly sourceId: ThreadId;
  readonly prompt: string;
  readonly forks: readonly ThreadId[];
  /** How many forks it was made with: each keeps its place ("2/3") when others end. */
  readonly made: number;
  /** The shell command each fork's check runs, or null. */
  readonly check: string | null;
  /**
   * Its forks were checked: their verdicts show. After a restart `check` is setup's
   * `check_command` (a command read from a transcript is never run), which may be none.
   */
  readonly checked: boolean;
  /** Its forks' tools run in the sandbox (false where it cannot start: they ask for approval). */
  readonly unattended: boolean;
  /** The snapshot every fork's worktree was made from: what their changes are measured against. */
  readonly base: SnapshotId;
};

/** What making a fan-out asks of the host (part of fanout.ts's FanOutHost). */
export type FanOutMakeHost = {
  readonly chat: Chat;
  readonly flow: Pick<ForkFlow, "start" | "unattendedRefusal">;
  readonly folders: Pick<ForkFolders, "available">;
  /** The source's files now, recorded (the snapshot every fork's worktree is made from), kept for `owner`. */
  baseNow(sourceId: ThreadId, owner: ThreadId): Promise<SnapshotId | null>;
  /** Why `name` is no model a thread may choose (providers/models.ts), or null. */
  unknownModel(name: string): string | null;
  /** `fanout_max`. */
  readonly max: number;
  /** `check_command` (false: none). */
  readonly checkCommand: string | false;
  tell(text: string, error: boolean): void;
};

/** Where the groups are kept (fanout.ts's FanOuts): a group made, a fork that was not, a group's forks now. */
export type FanOutGroups = {
  add(group: FanOut): void;
  forget(id: ThreadId): void;
  forksOf(groupId: string): readonly ThreadId[];
};

export class FanOutMaker {
  /** The user was told that fan-out forks are made attended here (no sandbox): once is enough. */
  private attendedSaid = false;

  constructor(
    private readonly host: FanOutMakeHost,
    private readonly groups: FanOutGroups,
  ) {}

  /**
   * Makes the forks of a fan-out of `sourceId` (a live thread at rest or streaming; never one
   * whose program is mid-turn) and returns their ids once each has been asked for. Throws, with
   * nothing made, on bad input or where worktrees cannot be made. `context`: what the prompt's
   * mentions resolved to (host/send.ts resolves them for every form of a fan-out).
   */
  async make(sourceId: ThreadId, prompt: string, ask: FanOutAsk = {}, context?: SendContext): Promise<ThreadId[]> {
    const { chat } = this.host;
    const source = chat.threads.get(sourceId);
    if (!source)
      throw new Error(
        chat.stored.has(sourceId)
          ? `tine: ${threadName(chat, sourceId)} is not open: open it to fan out from it`
          : `tine: no thread ${JSON.stringify(sourceId)} to fan out from (threads() gives the ids)`,
      );
    const text = prompt.trim();
    if (!text) throw new Error("tine: a fan-out needs a prompt: each fork runs it");
    const models = ask.models ?? [];
    if (models.some((m) => typeof m !== "string" || m.trim() === "")) throw new Error("tine: fanout's models are model names");
    const unknown = models.map((m) => this.host.unknownModel(m)).find((why) => why !== null);
    if (unknown) throw new Error(unknown);
    const n = ask.n ?? (models.length || 2);
    if (!Number.isInteger(n) || n < 1 || n > this.host.max)
      throw new Error(`tine: a fan-out makes 1 to ${this.host.max} forks (fanout_max), not ${n}`);
    if (source.runner.midTurn())
      throw new Error(`tine: ${source.title}'s program is mid-turn: fan out once its turn ends (its files are half-written)`);
    if (models.length && modelNameOf(source.runner) === null)
      throw new Error(`tine: ${source.title}'s program chooses its own model: fan out without models`);
    if (!(await this.host.folders.available()))
      throw new Error(
        "tine: each fork of a fan-out works in a git worktree of its own, which cannot be made here (git, a repository and snapshots are needed)",
      );
    const unattended = await this.unattended(sourceId);
    const check = ask.check === undefined ? this.host.checkCommand || null : ask.check || null;
    const made = Array.from({ length: n }, () => chat.mint());
    // Forks not made give their numbers back, the last first (chat/mint.ts).
    const unmint = (which: readonly NewThread[]) => {
      for (const m of which.toReversed()) chat.unmint(m);
    };
    const base = await this.host.baseNow(sourceId, made[0]!.id).catch((e: Error) => {
      unmint(made);
      throw e;
    });
    if (!base) {
      unmint(made);
      throw new Error("tine: the source's files could not be recorded: no fork made");
    }
    const group: FanOut = {
      id: made[0]!.id,
      sourceId,
      prompt: text,
      forks: made.map((m) => m.id),
      made: n,
      check,
      checked: check !== null,
      unattended,
      base,
    };
    this.groups.add(group);
    const started = await Promise.all(
      made.map(({ id, num }, i) => {
        const model = models.length ? { model: models[i % models.length]!, effort: "setup" as const } : undefined;
        const fork: ForkClone = {
          sourceId,
          newId: id,
          num,
          prompt: text,
          ...(context ? { context } : {}),
          opener: { by: "fan-out", group: group.id, place: { index: i + 1, of: n }, ...(model ? { model } : {}) },
        };
        // Taken at once, its worktree written meanwhile (its tools wait for it): every fork asks the model at once.
        return this.host.flow.start({ when: "worktree-meanwhile", fork, base, unattended }).then(
          () => true,
          (e: Error) => {
            this.host.tell(`tine: fork ${i + 1} of ${n} of the fan-out was not made: ${e.message}`, true);
            return false;
          },
        );
      }),
    );
    // One not made (its worktree failed) is no fork of the group: the user is told, and it is not counted or returned.
    for (const [i, { id }] of made.entries()) if (!started[i]) this.groups.forget(id);
    unmint(made.filter((_, i) => !started[i]));
    const forks = this.groups.forksOf(group.id);
    if (!forks.length) throw new Error("tine: no fork of the fan-out was made");
    const how = unattended ? "unattended (🔒), " : "";
    this.host.tell(
      `tine: ${forks.length === 1 ? "1 fork" : `${forks.length} forks`} of "${source.title}" run${forks.length === 1 ? "s" : ""} the prompt, ${how}each in a worktree of its own: the list shows them under it`,
      false,
    );
    return forks.slice();
  }

  /** Unattended where the sandbox can start; else attended, and the user told once. */
  private async unattended(sourceId: ThreadId): Promise<boolean> {
    const refusal = await this.host.flow.unattendedRefusal(sourceId);
    if (!refusal) return true;
    if (!this.attendedSaid)
      this.host.tell(`${refusal}. Meanwhile fan-out forks are made as ordinary worktree forks (their tools ask for approval)`, false);
    this.attendedSaid = true;
    return false;
  }
}
