/**
 * The snapshots threads ask for, taken off the dispatch loop (never on a stream's path): each
 * answer is dispatched to its thread as a `code` message. Where snapshots are off, the user is
 * told once, the first time a tool would have been recorded. `settled` is what the code
 * operations wait for: a turn that has ended has its last snapshot among its marks by then.
 */
import type { Dispatch } from "../chat/msgs.ts";
import type { CodeMark, CodeRecorder } from "../core/code-marks.ts";
import type { ThreadId } from "../core/ids.ts";
import type { CodeSnapshots } from "../snapshot/code.ts";

export function codeRecorder(
  /** The snapshots of the folder a thread works in (the project's, or its worktree's). */
  snapshotsOf: (thread: ThreadId) => CodeSnapshots,
  dispatch: Dispatch,
  tell: (text: string, error: boolean) => void,
): CodeRecorder {
  let toldOff = false;
  let toldFailed = false;
  /** Snapshots asked for whose answer has not reached its thread yet. */
  const inFlight = new Set<Promise<void>>();
  return {
    prime: (thread) => snapshotsOf(thread).prime(),
    record(thread, at, since, purpose) {
      const answered = (async () => {
        let mark: CodeMark | null = null;
        const snapshots = snapshotsOf(thread);
        try {
          // A turn's end is recorded while the user reads and types: nobody waits for it.
          const taken = await snapshots.take(thread, purpose === "turn-end");
          if (taken) {
            const turn =
              since === null ? {} : { turn: { from: since, files: since === taken.id ? [] : await snapshots.changes(since, taken.id) } };
            mark = { at, id: taken.id, skipped: taken.skipped, ...turn };
          } else if (purpose === "tools" && !toldOff) {
            toldOff = true;
            const health = await snapshots.health();
            if (!health.on) tell(`tine: code snapshots are off (${health.why}): :Tine restore cannot bring files back`, false);
          }
        } catch (error) {
          // The turn goes on without this snapshot; a repeated failure is not repeated to the user.
          if (!toldFailed) tell(`tine: a code snapshot failed: ${(error as Error).message}`, true);
          toldFailed = true;
        }
        dispatch({ type: "thread-msg", id: thread, msg: { type: "code", at, purpose, mark } });
      })();
      inFlight.add(answered);
      void answered.finally(() => inFlight.delete(answered));
    },
    // Only those asked for until now: a thread that keeps working does not keep the caller waiting.
    settled: () => Promise.allSettled([...inFlight]).then(() => {}),
  };
}
