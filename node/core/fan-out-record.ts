/**
 * What a fan-out fork's transcript keeps of its fan-out (node/fork/fanout.ts), so that a restart
 * finds the group again: its place in it (header), and its check's last end (a `check` record).
 * Read back from an untrusted file field by field: a value of another shape is none (the thread
 * still loads), and nothing read here is ever run (a check's command is not kept: see `checked`).
 */
import { isThreadId, type ThreadId } from "./ids.ts";

/** A fan-out fork's place in its fan-out, as its header keeps it. */
export type FanOutPlace = {
  /** The fan-out's id (its first fork's id): the forks that share it are one group. */
  readonly group: ThreadId;
  /** Its place among its siblings, from 1, of `of`. */
  readonly index: number;
  readonly of: number;
  /** The first line of the prompt every fork of it ran (the source's display notes it). */
  readonly prompt: string;
  /**
   * Its fan-out had a check. After a restart a later turn is checked by setup's `check_command`
   * (a command read from a file is never run), so only whether there was one is kept.
   */
  readonly checked: boolean;
};

/** How a fork's check ended: `ok` when it exited 0; `output`: the tail of what it printed. */
export type CheckResult = { readonly ok: boolean; readonly code: number | null; readonly output: string };

/** The most forks one fan-out may be read back with (well over any `fanout_max` in use). */
const MOST_FORKS = 64;
/** The longest prompt line and check output read back (what is written is shorter: fanout.ts, checks.ts). */
const LONGEST_PROMPT = 200;
const LONGEST_OUTPUT = 8192;

const isPlace = (v: unknown, most: number): v is number => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= most;

/** A place as written: the prompt's first line, cut. */
export function fanOutPlace(group: ThreadId, index: number, of: number, prompt: string, checked: boolean): FanOutPlace {
  const line = prompt.split("\n")[0]!;
  return { group, index, of, prompt: line.length > LONGEST_PROMPT ? line.slice(0, LONGEST_PROMPT) : line, checked };
}

/** A header's `fanOut`, field by field, or null (none, or not one). */
export function fanOutPlaceFrom(v: unknown): FanOutPlace | null {
  if (typeof v !== "object" || v === null) return null;
  const { group, index, of, prompt, checked } = v as Record<string, unknown>;
  if (!isThreadId(group) || !isPlace(of, MOST_FORKS) || !isPlace(index, of as number)) return null;
  if (typeof prompt !== "string" || prompt.length > LONGEST_PROMPT || prompt.includes("\n") || typeof checked !== "boolean") return null;
  return { group, index, of: of as number, prompt, checked };
}

/** A `check` record's result, field by field, or undefined when it is not one (null: the check was cleared by a later turn). */
export function checkResultFrom(v: unknown): CheckResult | null | undefined {
  if (v === null) return null;
  if (typeof v !== "object") return undefined;
  const { ok, code, output } = v as Record<string, unknown>;
  if (typeof ok !== "boolean" || typeof output !== "string" || output.length > LONGEST_OUTPUT) return undefined;
  if (code !== null && !Number.isSafeInteger(code)) return undefined;
  // A pass is an exit with 0, and only that: a record saying otherwise is not one.
  if (ok !== (code === 0)) return undefined;
  return { ok, code: code as number | null, output };
}
