/**
 * The footer of a thread's display: what its status means for the user and what to do next (an
 * error and how to send again, a stop other than a plain end, a retry under way). Drawn under the
 * reply by thread-view.ts, above the queued messages.
 */
import type { Thread } from "../chat/thread.ts";
import type { StopReason } from "../core/agent.ts";

/** What a stop other than a plain end means for the user, and what to do next. */
const STOP_NOTES: Partial<Record<StopReason, string>> = {
  aborted: "⏹ Aborted",
  max_tokens: "⚠ Stopped at the max_tokens limit: send (e.g. “continue”) to go on, or raise max_tokens in setup()",
  refusal: "⚠ The model declined to respond: rephrase and send again, or fork from an earlier message (F)",
  pause_turn: "⏸ The server paused this turn several times: send (e.g. “continue”) to resume it",
  model_context_window_exceeded: "⚠ The conversation filled the model's context window: fork from an earlier message (F)",
};

/** The footer's lines for the thread's status (one blank line when there is nothing to say). */
export function footerLines(thread: Thread): string[] {
  const s = thread.runner.status;
  if (s.type === "error") return [`⚠ Error: ${s.message}`, "  R (or :Tine retry) sends it again; a new message replaces it", ""];
  if (s.type === "stopped") {
    const note = STOP_NOTES[s.stopReason];
    if (note) return [note, ""];
  }
  if (s.type === "streaming" && s.retry !== undefined) {
    const seconds = Math.max(0, Math.round((s.retry.at - Date.now()) / 1000));
    return [`↻ ${s.retry.why}`, `  trying again in ${seconds} s (attempt ${s.attempt + 1}) · <C-c> aborts`, ""];
  }
  if (s.type === "streaming" && s.attempt > 0) return [`↻ retrying (attempt ${s.attempt + 1})`, ""];
  return [""];
}
