/**
 * The agent's streaming, read without the SDK's schema check. The SDK checks each message against
 * its zod schema (twice for a `session/update`), which costs more host CPU than the fold and the
 * drawing of an update together (test/bench/acp-updates.bench.ts). A line that is a
 * `session/update` of the kinds a turn is made of (text chunks, tool calls and their updates) is
 * checked here by hand instead (update-check.ts, which takes only what the schema would take as
 * it is) and handed on as a new object of the fields checked. Every other line, and an update
 * line that does not fit exactly, goes on to the SDK as it came.
 *
 * Order: an update taken here is handed on at once, while lines given to the SDK are handled a
 * little later; so an update is only taken here while no update given to the SDK waits to be
 * handled (`waiting()`), else it goes the SDK's way behind it.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { reportLater } from "../util/report-later.ts";
import { checkedUpdate, parsedLine } from "./update-check.ts";

/** Bytes every line this takes has; others are not parsed here. */
const MARK = Buffer.from('"session/update"');
/** The method as a JSON writer that escapes slashes spells it (PHP's does): never taken here, but counted. */
const ESCAPED_MARK = Buffer.from('"session\\/update"');

export type FastUpdates = {
  /** Whether an update given to the SDK has not been handled yet. */
  readonly waiting: () => boolean;
  /** An update taken here, for session `sessionId`. */
  readonly update: (sessionId: string, update: SessionUpdate) => void;
  /** A line holding `"session/update"` went to the SDK, as parsed here (the counterpart of `waiting`; sdk-updates.ts). */
  readonly passed: (message: unknown) => void;
};

/**
 * What the agent's stdout lines (stdout-lines.ts) are offered to: takes the update a line holds
 * when it is checked by hand and nothing given to the SDK waits, and says whether it did.
 */
export function takeCheckedUpdates(to: FastUpdates): (line: Buffer) => boolean {
  return (line) => {
    if (line.indexOf(MARK) === -1) {
      if (line.indexOf(ESCAPED_MARK) !== -1) to.passed(parsedLine(line.toString("utf8")));
      return false;
    }
    // Parsed once, here: for the hand check, and for the count of what the SDK is given.
    const message = parsedLine(line.toString("utf8"));
    if (!to.waiting()) {
      const taken = checkedUpdate(message);
      if (taken) {
        try {
          to.update(taken.sessionId, taken.update);
        } catch (error) {
          // A listener that threw may have applied it in part: never handed to the SDK as well
          // (applied twice), and the agent's stream goes on.
          reportLater(error);
        }
        return true;
      }
    }
    to.passed(message);
    return false;
  };
}
