/**
 * An agent's process: started without a shell in a process group of its own (so stopping it stops
 * what it started: the Claude adapter runs Claude Code under it), its stderr sent to tine's log
 * line by line, bounded, with the host's credentials blotted out, and stopped with everything it
 * started when it is closed, when it exits by itself, and when the host exits.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { HOST_CREDENTIALS } from "../tools/environment.ts";
import { logLine } from "../util/log-line.ts";
import type { AcpLaunch } from "./agents.ts";

/** The longest stderr line logged (the rest is cut), and how many lines one agent may log in all. */
const MAX_LOG_LINE = 500;
const MAX_LOG_LINES = 400;
/** The last stderr lines kept for an error message (an agent that exits says why there). */
const TAIL_LINES = 8;
/** After SIGTERM, how long the group may take before SIGKILL. */
const TERM_GRACE_MS = 1500;

/** How the process ended. */
export type ProcessEnd = { readonly code: number | null; readonly signal: NodeJS.Signals | null };

/** Process groups of the agents running now, stopped when the host exits. */
const running = new Set<number>();
let exitHook = false;

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

/** Stops every agent's process group at once (the host's exit: no time for grace). */
export function killAllAgents(): void {
  for (const pgid of running) killGroup(pgid, "SIGKILL");
}

/** `text` with the values of the host's credentials (in the agent's environment or the host's) blotted out. */
export function redact(text: string, env: Readonly<Record<string, string | undefined>>): string {
  let out = text;
  for (const name of HOST_CREDENTIALS) {
    for (const value of [env[name], process.env[name]]) {
      if (value && value.length >= 4) out = out.split(value).join(`[${name}]`);
    }
  }
  return out;
}

export class AgentProcess {
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Resolves when the process has exited (never rejects); its group is stopped by then. */
  readonly ended: Promise<ProcessEnd>;
  /** Set when the process could not start (ENOENT: not installed), before `ended` resolves. */
  startError: NodeJS.ErrnoException | null = null;
  end: ProcessEnd | null = null;
  private readonly tail: string[] = [];
  private logged = 0;
  private partial = "";

  constructor(private readonly launch: AcpLaunch) {
    if (!exitHook) {
      exitHook = true;
      process.on("exit", killAllAgents);
    }
    this.child = spawn(launch.program, [...launch.args], {
      cwd: launch.cwd,
      env: launch.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const pgid = this.child.pid;
    if (pgid !== undefined) running.add(pgid);
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (text: string) => this.onStderr(text));
    // A write to an agent that has gone fails as an event; the connection reports the exit instead.
    this.child.stdin.on("error", () => {});
    this.ended = new Promise((resolve) => {
      // Every 'error' is heard (one unheard would be thrown): only one before the start is news.
      this.child.on("error", (error: NodeJS.ErrnoException) => {
        if (this.child.pid === undefined) {
          this.startError = error;
          this.end = { code: null, signal: null };
          resolve(this.end);
        }
      });
      this.child.once("exit", (code, signal) => {
        this.end = { code, signal };
        if (pgid !== undefined) {
          // What it left running stops with it.
          killGroup(pgid, "SIGKILL");
          running.delete(pgid);
        }
        this.flushStderr();
        resolve(this.end);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last lines the agent wrote on stderr, for an error message. */
  stderrTail(): string {
    return this.tail.join("\n");
  }

  /** Stops the agent and everything it started: SIGTERM to its group, SIGKILL after a grace. */
  async stop(): Promise<ProcessEnd> {
    const pgid = this.child.pid;
    if (pgid !== undefined && this.end === null) {
      this.child.stdin.end();
      killGroup(pgid, "SIGTERM");
      const timer = setTimeout(() => killGroup(pgid, "SIGKILL"), TERM_GRACE_MS);
      timer.unref();
      const end = await this.ended;
      clearTimeout(timer);
      return end;
    }
    return this.ended;
  }

  private onStderr(text: string): void {
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    // A line without an end is cut at the limit rather than held without bound.
    if (this.partial.length > MAX_LOG_LINE) {
      lines.push(this.partial);
      this.partial = "";
    }
    for (const line of lines) this.logStderr(line);
  }

  private flushStderr(): void {
    if (this.partial) this.logStderr(this.partial);
    this.partial = "";
  }

  private logStderr(raw: string): void {
    const line = redact(raw.length > MAX_LOG_LINE ? `${raw.slice(0, MAX_LOG_LINE)}… (cut)` : raw, this.launch.env).trimEnd();
    if (!line) return;
    this.tail.push(line);
    if (this.tail.length > TAIL_LINES) this.tail.shift();
    this.logged++;
    if (this.logged <= MAX_LOG_LINES) logLine(`tine: acp agent "${this.launch.name}": ${line}`);
    else if (this.logged === MAX_LOG_LINES + 1) logLine(`tine: acp agent "${this.launch.name}": further stderr is not logged`);
  }
}
