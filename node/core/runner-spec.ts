/**
 * How a thread is run, as its stored header keeps it (the runner's kind and arguments, the project
 * instructions it started with, its own model choice), and the checks of those read back from a
 * file. What runs a thread is chat/runner.ts; how instructions are found and read is
 * context/instructions.ts.
 */
import { isAbsolute } from "node:path";
import { isUuid } from "../util/uuid.ts";
import type { AgentChoices } from "./agent-choices.ts";
import type { ModelChoice } from "./model-choice.ts";
import { isObject } from "./shapes.ts";

/** How a thread is run, as its stored header keeps it: enough to run it again after a restart. */
export type RunnerSpec = StoredKind & {
  /**
   * The project instructions its runner sends after tine's system prompt, as they were read when
   * the thread started (context/instructions.ts): kept so its requests never change, in a fork
   * or after a restart. Absent when it sends none (turned off, none found, a thread from before
   * they were read, or a runner whose program reads its own, as Claude Code does).
   */
  readonly instructions?: ThreadInstructions;
  /** Its own model and thinking (`:Tine model`); absent: setup's. Stored as a record, not in the header (it changes). */
  readonly model?: ModelChoice;
  /**
   * What the user chose of the settings its program offers (an ACP agent's mode, model, effort:
   * `:Tine model`); absent: none. Stored as a record, not in the header (it changes).
   */
  readonly settings?: AgentChoices;
};

/**
 * What each kind of runner stores to run again (one case per kind: chat/runner.ts's `RunnerKind`
 * modules run them). Here, below every kind, because the store reads them back.
 */
type StoredKind =
  | { readonly kind: "api" }
  /**
   * `args`: what the user added to `claude_command` (the program itself is never stored). `cwd`:
   * the folder its CLI runs in (and keeps its session by) when not the project's: a fork in a
   * worktree of its own.
   */
  | { readonly kind: "claude-code"; readonly args: readonly string[]; readonly sessionId: string; readonly cwd?: string }
  /**
   * An ACP agent's session: `agent` is its configured NAME in acp_agents (never a command: the
   * configured one runs it), `sessionId` the agent's id for it, `cwd` its folder when not the project's.
   * `approximate`: a fork made as a new session told the conversation (acp/fork-way.ts), not the agent's own fork.
   */
  | { readonly kind: "acp"; readonly agent: string; readonly sessionId: string; readonly cwd?: string; readonly approximate?: true };

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

/** The `kind` of a stored spec. */
export type SpecKind = RunnerSpec["kind"];

/** A stored spec of kind `K`. */
export type RunnerSpecOf<K extends SpecKind> = Extract<RunnerSpec, { readonly kind: K }>;

type Checked<S> = { ok: true; spec: S } | { ok: false; why: string };

/**
 * How each kind's stored spec is checked, field by field (only these fields are kept): one entry
 * per kind, the one place a stored kind is known; `checkRunnerSpec` looks the kind up here.
 */
const STORED_KINDS: { readonly [K in SpecKind]: (r: Record<string, unknown>) => Checked<RunnerSpecOf<K>> } = {
  api: () => ({ ok: true, spec: { kind: "api" } }),
  "claude-code": (r) => {
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
  },
  acp: (r) => {
    const agent = r["agent"];
    const sessionId = r["sessionId"];
    // A name looked up in acp_agents (what runs is the configured command), as setup allows names.
    if (typeof agent !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(agent)) return { ok: false, why: "runner.agent is not an agent name" };
    // Only ever sent back to that agent, as a JSON string: any short printable text.
    if (typeof sessionId !== "string" || !/^[\x21-\x7e]{1,200}$/.test(sessionId))
      return { ok: false, why: "runner.sessionId is not a session id" };
    const cwd = r["cwd"];
    if (cwd !== undefined && (typeof cwd !== "string" || !isAbsolute(cwd))) return { ok: false, why: "runner.cwd is not an absolute path" };
    const approximate = r["approximate"];
    if (approximate !== undefined && approximate !== true) return { ok: false, why: "runner.approximate is not true" };
    return {
      ok: true,
      spec: { kind: "acp", agent, sessionId, ...(cwd !== undefined ? { cwd } : {}), ...(approximate ? { approximate } : {}) },
    };
  },
};

/** Whether `kind` is one this version stores (an own key of the table: `toString` is none). */
export function isSpecKind(kind: unknown): kind is SpecKind {
  return typeof kind === "string" && Object.hasOwn(STORED_KINDS, kind);
}

/** Checks a spec read from a file; `why` says what is wrong. */
export function checkRunnerSpec(v: unknown): Checked<RunnerSpec> {
  if (!v || typeof v !== "object" || Array.isArray(v)) return { ok: false, why: "runner is not an object" };
  const r = v as Record<string, unknown>;
  const kind = r["kind"];
  if (!isSpecKind(kind)) return { ok: false, why: `unknown runner kind ${JSON.stringify(kind)}` };
  return STORED_KINDS[kind](r);
}

/**
 * The runner of a header written before `runner` existed: none (tine's agent), or a Claude Code
 * command and session. The stored program is never run: only the arguments after it are kept, and
 * the configured `claude_command` runs them.
 */
export function legacyRunner(claude: unknown): unknown {
  if (claude === undefined) return { kind: "api" };
  const c = claude as { command?: unknown; sessionId?: unknown } | null;
  return { kind: "claude-code", args: Array.isArray(c?.command) ? c.command.slice(1) : c?.command, sessionId: c?.sessionId };
}

/** Instructions read back from a stored thread, field by field (only these fields are kept), or null when they are of another shape. */
export function checkInstructions(v: unknown): ThreadInstructions | null {
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
