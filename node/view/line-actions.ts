/**
 * A key pressed on a display line, turned into the message it means: `<Tab>` toggles the detail
 * under the cursor (a block, or a file of a change list); `a` / `A` / `d` answer the tool call
 * under the cursor, or the only one waiting (never one the user is not looking at); a denial may
 * carry the user's reason (`D`), which the model is told.
 */
import type { Dispatch } from "../chat/msgs.ts";
import type { Thread } from "../chat/thread.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ThreadView } from "./thread-view.ts";

export type LineAction = "toggle" | "approve" | "approve_always" | "deny";

/** Where a display line is: a message, and in it a block or a changed file (see ThreadView.locate). */
export type LineAt = ReturnType<ThreadView["locate"]>;

export function lineAction(
  thread: Thread,
  at: LineAt,
  action: LineAction,
  dispatch: Dispatch,
  toggleFile: (id: ThreadId, message: number, file: string | null) => void,
  reason?: string,
): void {
  const id = thread.id;
  if (action === "toggle") {
    if (at?.file !== undefined) toggleFile(id, at.message, at.file);
    else if (at?.block != null) dispatch({ type: "thread-msg", id, msg: { type: "toggle-detail", key: `${at.message}:${at.block}` } });
    return;
  }
  const history = thread.runner.history;
  const questions = thread.runner.questions;
  if (questions?.pending().length) {
    // The runner's program asked (an agent's permission request): answered there, by the call under the cursor or the only one.
    const under = at?.block != null && at.message < history.length ? history.at(at.message).message.content[at.block] : undefined;
    const asked = questions.pending();
    const toolId =
      under?.type === "tool_use" && asked.some((q) => q.toolId === under.id) ? under.id : asked.length === 1 ? null : undefined;
    if (toolId === undefined) throw new Error(`tine: ${asked.length} tool calls wait for permission: put the cursor on the one to answer`);
    questions.answer(toolId, action === "deny" ? "reject_once" : action === "approve_always" ? "allow_always" : "allow_once", reason);
    return;
  }
  const pending = thread.toolRuns.filter((r) => r.state === "awaiting-approval");
  const block = at?.block != null && at.message === history.length - 1 ? history.at(at.message).message.content[at.block] : undefined;
  const run = pending.find((r) => block?.type === "tool_use" && r.use.id === block.id) ?? (pending.length === 1 ? pending[0] : undefined);
  if (!run) {
    throw new Error(
      pending.length
        ? `tine: ${pending.length} tool calls wait for approval: put the cursor on the one to ${action === "deny" ? "deny" : "approve"}`
        : "tine: no tool call is awaiting approval",
    );
  }
  dispatch({
    type: "thread-msg",
    id,
    msg:
      action === "deny"
        ? { type: "tool-decision", toolUseId: run.use.id, approved: false, ...(reason?.trim() ? { reason: reason.trim() } : {}) }
        : { type: "tool-decision", toolUseId: run.use.id, approved: true, always: action === "approve_always" },
  });
}
