/**
 * An agent's `session/request_permission`, held for the caller to answer: tine never answers one
 * for the user. It is settled once: by the user's choice (`select`), by `cancel` (the prompt turn
 * was cancelled: the spec wants every pending request of the session answered "cancelled"), or by
 * the agent withdrawing it (`$/cancel_request`, or the connection closing), which `withdrawn` tells.
 */
import type {
  PermissionOption,
  RequestPermissionOutcome,
  RequestPermissionRequest,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk/unstable";

export class PendingPermission {
  readonly sessionId: string;
  readonly toolCall: ToolCallUpdate;
  readonly options: readonly PermissionOption[];
  /** The answer sent to the agent. */
  readonly answer: Promise<RequestPermissionOutcome>;
  /** Resolves when the agent withdrew the request before it was answered (it needs no answer then). */
  readonly withdrawn: Promise<void>;
  private settle!: (outcome: RequestPermissionOutcome) => void;
  private withdraw!: () => void;
  private done = false;

  constructor(request: RequestPermissionRequest, signal: AbortSignal) {
    this.sessionId = request.sessionId;
    this.toolCall = request.toolCall;
    this.options = request.options;
    this.answer = new Promise((resolve) => (this.settle = resolve));
    this.withdrawn = new Promise((resolve) => (this.withdraw = resolve));
    const onAbort = () => {
      if (this.done) return;
      this.done = true;
      this.withdraw();
      this.settle({ outcome: "cancelled" });
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  }

  get settled(): boolean {
    return this.done;
  }

  /** Answers with the option the user chose; an id the agent did not offer throws (nothing is sent). */
  select(optionId: string): void {
    if (!this.options.some((o) => o.optionId === optionId)) {
      throw new Error(`"${optionId}" is not one of the options the agent offered (${this.options.map((o) => o.optionId).join(", ")})`);
    }
    this.finish({ outcome: "selected", optionId });
  }

  /** Answers "cancelled" (the turn was cancelled). */
  cancel(): void {
    this.finish({ outcome: "cancelled" });
  }

  private finish(outcome: RequestPermissionOutcome): void {
    if (this.done) return;
    this.done = true;
    this.settle(outcome);
  }
}
