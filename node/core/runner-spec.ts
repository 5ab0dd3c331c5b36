/**
 * How a thread is run, as its stored header keeps it (the runner's kind and arguments, the project
 * instructions it started with, its own model choice), and the checks of those read back from a
 * file. What runs a thread is chat/runner.ts; how instructions are found and read is
 * context/instructions.ts.
 */
import { isAbsolute } from "node:path";
import { isUuid } from "../util/uuid.ts";
import type { ModelChoice } from "./model-choice.ts";

/** How a thread is run, as its stored header keeps it: enough to run it again after a restart. */
export type RunnerSpec = RunnerKind & {
  /**
   * The project instructions its runner sends after tine's system prompt, as they were read when
   * the thread started (context/instructions.ts): kept so its requests never change, in a fork
   * or after a restart. Absent when it sends none (turned off, none found, a thread from before
   * they were read, or a runner whose program reads its own, as Claude Code does).
   */
  readonly instructions?: ThreadInstructions;
  /** Its own model and thinking (`:Tine model`); absent: setup's. Stored as a record, not in the header (it changes). */
  readonly model?: ModelChoice;
};

type RunnerKind =
  | { readonly kind: "api" }
  /**
   * `args`: what the user added to `claude_command` (the program itself is never stored). `cwd`:
   * the folder its CLI runs in (and keeps its session by) when not the project's: a fork in a
   * worktree of its own.
   */
  | { readonly kind: "claude-code"; readonly args: readonly string[]; readonly sessionId: string; readonly cwd?: string };

/** What one file gave the thread, as its banner says it. `path` as shown: relative to the root, `~/…`, or absolute. */
export type InstructionFile =
  | { readonly path: string; readonly state: "read" }
  /** Longer than max_bytes: its first max_bytes were sent, with a note saying so. `size`: its bytes. */
  | { readonly path: string; readonly state: "cut"; readonly size: number }
  /** There, but it could not be read (`why`): nothing of it was sent. */
  | { readonly path: string; readonly state: "unreadable"; readonly why: string }
  /** The project's, but it leads outside the project (to `to`, shown as paths are): never read. */
  | { readonly path: string; readonly state: "outside"; readonly to: string };

/** What a thread started with: the text sent after tine's system prompt ("" for none) and the files it came from. */
export type ThreadInstructions = { readonly text: string; readonly files: readonly InstructionFile[] };

/** Checks a spec read from a file; `why` says what is wrong. */
export function checkRunnerSpec(v: unknown): { ok: true; spec: RunnerSpec } | { ok: false; why: string } {
  if (!v || typeof v !== "object" || Array.isArray(v)) return { ok: false, why: "runner is not an object" };
  const r = v as Record<string, unknown>;
  switch (r["kind"]) {
    case "api":
      return { ok: true, spec: { kind: "api" } };
    case "claude-code": {
      const args = r["args"];
      const sessionId = r["sessionId"];
      if (!Array.isArray(args) || !args.every((a) => typeof a === "string"))
        return { ok: false, why: "runner.args is not a list of strings" };
      // It names a transcript file and goes on a command line: a UUID, as Claude Code requires.
      if (!isUuid(sessionId)) return { ok: false, why: "runner.sessionId is not a UUID" };
      const cwd = r["cwd"];
      if (cwd === undefined) return { ok: true, spec: { kind: "claude-code", args, sessionId } };
      if (typeof cwd !== "string" || !isAbsolute(cwd)) return { ok: false, why: "runner.cwd is not an absolute path" };
      return { ok: true, spec: { kind: "claude-code", args, sessionId, cwd } };
    }
    default:
      return { ok: false, why: `unknown runner kind ${JSON.stringify(r["kind"])}` };
  }
}

/** Instructions read back from a stored thread, field by field (only these fields are kept), or null when they are of another shape. */
export function checkInstructions(v: unknown): ThreadInstructions | null {
  const isObject = (o: unknown): o is Record<string, unknown> => typeof o === "object" && o !== null && !Array.isArray(o);
  if (!isObject(v) || typeof v["text"] !== "string" || !Array.isArray(v["files"])) return null;
  const files: InstructionFile[] = [];
  for (const f of v["files"] as unknown[]) {
    if (!isObject(f) || typeof f["path"] !== "string") return null;
    const path = f["path"];
    const size = f["size"];
    const why = f["why"];
    const to = f["to"];
    if (f["state"] === "read") files.push({ path, state: "read" });
    else if (f["state"] === "cut" && Number.isInteger(size) && (size as number) >= 0)
      files.push({ path, state: "cut", size: size as number });
    else if (f["state"] === "unreadable" && typeof why === "string") files.push({ path, state: "unreadable", why });
    else if (f["state"] === "outside" && typeof to === "string") files.push({ path, state: "outside", to });
    else return null;
  }
  return { text: v["text"], files };
}
