/**
 * What can go wrong with an agent, as one typed error whose message is for the user: the caller
 * switches on `kind` (a thread stays usable whichever it is), and shows `message` as it is.
 */
import type { ProcessEnd } from "./agent-process.ts";

export type AcpErrorKind =
  /** The program was not found (ENOENT) or could not be run (EACCES…). */
  | "not-installed"
  /** It started, but `initialize` failed, or it ended before answering. */
  | "initialize-failed"
  /** It exited (or was killed) while tine waited for an answer. */
  | "exited"
  /** It did not answer within the time allowed. */
  | "timed-out"
  /** It answered a request with a JSON-RPC error. */
  | "refused"
  /** tine closed the connection (the thread was closed) while a request waited. */
  | "closed";

export class AcpError extends Error {
  constructor(
    readonly kind: AcpErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "AcpError";
  }
}

/** How an ended process is said: "exited with code 1", "was killed (SIGKILL)". */
export function sayEnd(end: ProcessEnd): string {
  if (end.signal) return `was killed (${end.signal})`;
  return end.code === null ? "exited" : `exited with code ${end.code}`;
}

/** The stderr tail, quoted for a message, or nothing. */
export const withTail = (tail: string) => (tail ? `; it wrote: ${tail.split("\n").slice(-3).join(" | ")}` : "");
