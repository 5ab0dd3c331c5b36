/**
 * Commands on this machine: bash in its own process group, without the host's credentials, with a
 * time limit and bounded output, and nothing left running afterwards. The local environment's
 * shell; it words nothing for the model (the bash_command tool does).
 */
import { spawn } from "node:child_process";
import { HeadAndTail } from "../util/head-and-tail.ts";
import { startTimer } from "../util/timer.ts";
import { type CommandEnd, type CommandResult, deniedVariables, type ToolLimits } from "./environment.ts";

/** Bytes of output kept from the start and from the end of a command's output; the middle is dropped. */
const OUTPUT_HEAD_BYTES = 12_000;
const OUTPUT_TAIL_BYTES = 12_000;
/** After the command exits, how long a process that escaped its group may hold the output open. */
const STDIO_GRACE_MS = 1000;

export function toolEnv(deny: readonly string[]): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of deniedVariables(deny)) delete env[name];
  return env;
}

/** Process groups of the commands running now (in every local environment), so the host can stop them all when it exits. */
const running = new Set<number>();

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops every running command and everything it started (the host calls it on exit). */
export function killAllToolProcesses(): void {
  for (const pgid of running) killGroup(pgid);
}

/** The program and arguments that run a bash command: bash itself here; a sandbox wraps it (node/sandbox/). */
export type Launcher = (command: string) => { readonly file: string; readonly args: readonly string[] };

const plainBash: Launcher = (command) => ({ file: "bash", args: ["-c", command] });

/** Runs `command` with bash in `cwd`, as Environment.runCommand promises; `launch` says what starts it. */
export function runBash(
  command: string,
  cwd: string,
  limits: ToolLimits,
  signal: AbortSignal,
  launch: Launcher = plainBash,
): Promise<CommandResult> {
  if (signal.aborted) return Promise.reject(new Error("The command was aborted before it started."));
  const timeoutSec = limits.bashTimeoutSec;
  return new Promise((done, failed) => {
    // Its own process group (detached), so abort, the time limit and the host's exit stop all of
    // it, background children included; no stdin, so it never reads the host's RPC channel.
    const { file, args } = launch(command);
    const child = spawn(file, args, { cwd, env: toolEnv(limits.envDeny), detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const pgid = child.pid;
    const output = new HeadAndTail(OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES, "output");
    let stopped: "aborted" | "timed-out" | null = null;
    let leftBehind = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;
    const stop = (why: "aborted" | "timed-out") => {
      stopped ??= why;
      if (pgid !== undefined) killGroup(pgid);
    };
    const onAbort = () => stop("aborted");
    const timer = startTimer(() => stop("timed-out"), timeoutSec * 1000);
    let grace: NodeJS.Timeout | undefined;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      signal.removeEventListener("abort", onAbort);
      if (pgid !== undefined) running.delete(pgid);
      finish();
    };
    if (pgid !== undefined) running.add(pgid);
    signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (d: Buffer) => output.push(d));
    child.stderr.on("data", (d: Buffer) => output.push(d));
    child.on("error", (error) => settle(() => failed(error)));
    child.on("exit", (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      // What the command left running in the background stops with it: nothing outlives a call.
      if (pgid !== undefined && !stopped && groupAlive(pgid)) {
        leftBehind = true;
        killGroup(pgid);
      }
      // A process that left the group (setsid) may still hold the pipes: do not wait on it forever.
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, STDIO_GRACE_MS);
      grace.unref();
    });
    child.on("close", () => {
      const end: CommandEnd =
        stopped === "aborted"
          ? { type: "aborted" }
          : stopped === "timed-out"
            ? { type: "timed-out", afterSec: timeoutSec }
            : { type: "exited", code: exit?.code ?? null, signal: exit?.signal ?? null, leftBehind };
      settle(() => done({ output: output.text(), end }));
    });
  });
}
