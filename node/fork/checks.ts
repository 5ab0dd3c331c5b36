/**
 * The checks of fan-out forks: when such a fork comes to rest after a turn (its prompt's, and each
 * later one), its fan-out's `check` command runs in its worktree through its own Environment (so
 * in the sandbox when it is unattended, bounded by bash_timeout), off the host's loop; its end is
 * kept here, with the fork, as data. The host tells this after each dispatch batch which threads
 * changed (`batched`); a fork that starts another turn, ends or is discarded while its check runs
 * has the check aborted (its files are no longer what it checked).
 */
import type { CheckResult } from "../core/fan-out-record.ts";
import type { ThreadId } from "../core/ids.ts";
import type { CommandResult, Environment } from "../tools/environment.ts";

export type { CheckResult } from "../core/fan-out-record.ts";

/**
 * Where a fan-out fork is, as `compare` gives it: working, waiting for an approval, checking (its
 * turn ended, its check runs: the list's word too), done (its turn and its check ended), or interrupted (its turn was cut off: an abort, Neovim quit while it
 * worked): at rest, but not done, as its work did not end.
 */
export type ForkState = "running" | "waiting" | "checking" | "done" | "interrupted";

/** What of a fork's check its output keeps: its last bytes (what a failing test prints last). */
export const CHECK_OUTPUT_TAIL = 4096;

/** A thread as the checks see it; `interrupted`: its last turn was cut off. */
export type CheckedThread = { readonly atRest: boolean; readonly status: string; readonly interrupted: boolean };

export type ChecksHost = {
  thread(id: ThreadId): CheckedThread | undefined;
  /** The check command of the fan-out fork `id` belongs to; undefined: it is none's; null: its fan-out has none. */
  checkOf(id: ThreadId): string | null | undefined;
  /** Where fork `id`'s tools run (its worktree; the sandbox when it is unattended), once its files are there. */
  environmentOf(id: ThreadId): Promise<Environment>;
  /** A fork's check started or ended: what shows it redraws. */
  changed(id: ThreadId): void;
  /** A fork's check ended (null: a later turn cleared it): its transcript keeps it (fanout.ts). */
  kept(id: ThreadId, result: CheckResult | null): void;
};

/** The tail of `output`, at most `max` characters, cut at a line where it can be. */
export function outputTail(output: string, max = CHECK_OUTPUT_TAIL): string {
  if (output.length <= max) return output;
  const tail = output.slice(-max);
  const line = tail.indexOf("\n");
  return `…${line >= 0 && line < max / 2 ? tail.slice(line) : tail}`;
}

/** The output with a note of how it ended on a line of its own: the note alone when there was no output. */
const withNote = (output: string, note: string) => (output === "" ? note : `${output}${output.endsWith("\n") ? "" : "\n"}${note}`);

/** What a check's command result keeps: exit status, and the tail of its output with how it was stopped. */
export function checkResult(result: CommandResult): CheckResult {
  const { end } = result;
  switch (end.type) {
    case "exited":
      return {
        ok: end.code === 0,
        code: end.code,
        output: outputTail(end.signal ? withNote(result.output, `(killed by ${end.signal})`) : result.output),
      };
    case "timed-out":
      return {
        ok: false,
        code: null,
        output: outputTail(withNote(result.output, `(the check ran past bash_timeout: stopped after ${end.afterSec}s)`)),
      };
    case "aborted":
      return { ok: false, code: null, output: outputTail(withNote(result.output, "(aborted)")) };
  }
}

/** A check's verdict as the list and :Tine compare show it: ✓, ✗ and the exit code, … while it runs, - for none. */
export function checkVerdict(result: CheckResult | undefined, running: boolean): string {
  if (running) return "…";
  if (!result) return "-";
  return result.ok ? "✓" : result.code === null ? "✗" : `✗ ${result.code}`;
}

export class ForkChecks {
  /** Whether each fan-out fork was at rest after the last batch that changed it (new ones are: a fork starts at rest). */
  private readonly seenAtRest = new Map<ThreadId, boolean>();
  /** The forks that came to rest after a turn at least once. */
  private readonly rested = new Set<ThreadId>();
  private readonly runs = new Map<ThreadId, AbortController>();
  private readonly results = new Map<ThreadId, CheckResult>();

  constructor(private readonly host: ChecksHost) {}

  /** After a dispatch batch: the fan-out forks among `changed` that came to rest have their check run. */
  batched(changed: readonly ThreadId[]): void {
    for (const id of changed) {
      const check = this.host.checkOf(id);
      if (check === undefined) continue;
      const thread = this.host.thread(id);
      if (!thread) continue;
      const was = this.seenAtRest.get(id) ?? true;
      this.seenAtRest.set(id, thread.atRest);
      if (!thread.atRest) {
        // Another turn: what the check checks is changing.
        this.abort(id);
        continue;
      }
      if (was) continue;
      this.rested.add(id);
      if (check !== null) this.start(id, check);
      else this.host.changed(id);
    }
  }

  /** How fork `id`'s last check ended; undefined until one has. */
  result(id: ThreadId): CheckResult | undefined {
    return this.results.get(id);
  }

  running(id: ThreadId): boolean {
    return this.runs.has(id);
  }

  state(id: ThreadId): ForkState {
    const thread = this.host.thread(id);
    if (thread?.status === "waiting") return "waiting";
    if (!thread?.atRest || !this.rested.has(id)) return "running";
    if (this.runs.has(id)) return "checking";
    return thread.interrupted ? "interrupted" : "done";
  }

  /**
   * Stored fork `id` was found again (a restart): it came to rest before, and its check's last
   * end, as its transcript kept it, shows again.
   */
  found(id: ThreadId, result: CheckResult | null): void {
    this.rested.add(id);
    if (result) this.results.set(id, result);
  }

  /** Fork `id` ended or was deleted: its check, if it runs, is aborted, and what was kept of it goes. */
  forget(id: ThreadId): void {
    this.abort(id);
    this.seenAtRest.delete(id);
    this.rested.delete(id);
    this.results.delete(id);
  }

  private abort(id: ThreadId): void {
    const run = this.runs.get(id);
    if (!run) return;
    this.runs.delete(id);
    run.abort();
    this.host.changed(id);
  }

  private start(id: ThreadId, command: string): void {
    this.abort(id);
    const run = new AbortController();
    this.runs.set(id, run);
    // What it said of the files before this turn is no longer true, here or after a restart.
    if (this.results.delete(id)) this.host.kept(id, null);
    this.host.changed(id);
    // A fork whose worktree is still being written (a fan-out's, made meanwhile) is checked once it is.
    Promise.resolve()
      .then(() => this.host.environmentOf(id))
      .then((environment: Environment) => environment.runCommand(command, run.signal))
      .then(
        (result) => this.ended(id, run, checkResult(result)),
        (error: Error) => this.ended(id, run, { ok: false, code: null, output: `(the check could not start: ${error.message})` }),
      );
  }

  /** A run ended: kept unless it was aborted (a newer run, or none, is what counts now). */
  private ended(id: ThreadId, run: AbortController, result: CheckResult): void {
    if (this.runs.get(id) !== run) return;
    this.runs.delete(id);
    this.results.set(id, result);
    this.host.kept(id, result);
    this.host.changed(id);
  }
}
