/** Runs one client tool call. Effects live here, at the edge; the Thread only sees results. */
import { spawn } from "node:child_process";
import { constants, type Stats } from "node:fs";
import { open, readdir, stat, writeFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import { isInside } from "./approval.ts";
import { isToolName } from "./specs.ts";

export type ToolOutcome = { readonly text: string; readonly isError: boolean };

export type ToolOptions = {
  /** Relative paths resolve against it, and commands run in it. */
  readonly cwd: string;
  /** Aborts the call: a running command is stopped with everything it started. */
  readonly signal: AbortSignal;
  /** Seconds a bash_command may run (default 120). */
  readonly timeoutSec?: number;
  /** Variables removed from tool processes' environment, besides the host's own credentials. */
  readonly envDeny?: readonly string[];
};

const MAX_OUTPUT = 30_000;
const clip = (s: string) => (s.length > MAX_OUTPUT ? `${s.slice(0, MAX_OUTPUT)}\n[output cut at ${MAX_OUTPUT} characters]` : s);
const ok = (text: string): ToolOutcome => ({ text: clip(text), isError: false });
const fail = (text: string): ToolOutcome => ({ text, isError: true });

function str(input: unknown, key: string): string {
  const v = (input as Record<string, unknown> | null)?.[key];
  if (typeof v !== "string") throw new Error(`input.${key} must be a string`);
  return v;
}

export async function runTool(name: string, input: unknown, options: ToolOptions): Promise<ToolOutcome> {
  if (!isToolName(name)) return fail(`Unknown tool: ${name}`);
  const { cwd } = options;
  try {
    const path = (key = "path") => {
      const p = str(input, key);
      return isAbsolute(p) ? p : resolve(cwd, p);
    };
    switch (name) {
      case "get_file":
        return await getFile(path());
      case "list_directory": {
        const entries = await readdir(path(), { withFileTypes: true });
        return ok(
          entries
            .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
            .sort()
            .join("\n"),
        );
      }
      case "edit_file":
        return await editFile(path(), str(input, "find"), str(input, "replace"), cwd);
      case "bash_command":
        return await bash(str(input, "command"), options);
    }
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}

// ---- Files: regular text files only, read with a size cap ----

/** get_file reads files up to this size; a larger one is refused (the model can read parts with bash). */
export const GET_FILE_MAX_BYTES = 256 * 1024;
/** edit_file edits files up to this size. */
const EDIT_FILE_MAX_BYTES = 8 * 1024 * 1024;

const sizeOf = (bytes: number) =>
  bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  if (info.isFIFO()) return "a FIFO (pipe)";
  if (info.isSocket()) return "a socket";
  return "not a regular file";
}

/**
 * The bytes of a regular file of at most `limit.bytes`. Devices, FIFOs and sockets are refused
 * before they are opened (`/dev/stdin` is the host's RPC channel; a FIFO would block), and the
 * size is checked again on the open file, so nothing unbounded is ever read.
 */
async function readRegularFile(path: string, limit: { bytes: number; tool: string }): Promise<Buffer> {
  const refuse = (info: Stats) => {
    if (!info.isFile()) return new Error(`${path} is ${kindOf(info)}: ${limit.tool} only reads regular files`);
    if (info.size > limit.bytes)
      return new Error(
        `${path} is ${sizeOf(info.size)} (${info.size} bytes), more than ${limit.tool} reads (${sizeOf(limit.bytes)}): read parts of it with bash_command (head, sed -n, grep)`,
      );
    return null;
  };
  const before = refuse(await stat(path));
  if (before) throw before;
  // O_NONBLOCK: should the path have become a FIFO since the stat, opening it still returns at once.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    const after = refuse(info);
    if (after) throw after;
    // Read to the end, not to the size stat gave: /proc files say 0. One byte more than allowed
    // tells a file that is (or grew) too large.
    const parts: Buffer[] = [];
    let total = 0;
    while (total <= limit.bytes) {
      const room = Math.min(Math.max(info.size + 1, 64 * 1024), limit.bytes + 1 - total);
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(room), 0, room, null);
      if (bytesRead === 0) break;
      parts.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > limit.bytes)
      throw new Error(
        `${path} is more than ${limit.tool} reads (${sizeOf(limit.bytes)}): read parts of it with bash_command (head, sed -n, grep)`,
      );
    return Buffer.concat(parts, total);
  } finally {
    await handle.close();
  }
}

// ignoreBOM: a byte order mark stays part of the text, so an edit writes it back.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text of a file's bytes, or null when it is binary (a NUL byte, or not UTF-8). */
function asText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

async function getFile(path: string): Promise<ToolOutcome> {
  const bytes = await readRegularFile(path, { bytes: GET_FILE_MAX_BYTES, tool: "get_file" });
  const text = asText(bytes);
  if (text === null) return fail(`${path} is a binary file (${sizeOf(bytes.length)}, not UTF-8 text): get_file does not show it`);
  return ok(text);
}

/** True when every line break of `text` is \r\n (and there is at least one). */
const isCrlf = (text: string) => text.includes("\r\n") && !/(^|[^\r])\n/.test(text);
const toCrlf = (s: string) => s.replace(/(?<!\r)\n/g, "\r\n");

/** True when `path` is lexically inside `cwd` (before symlinks are followed). */
function spelledInside(path: string, cwd: string): boolean {
  const rel = relative(cwd, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

async function editFile(path: string, find: string, replace: string, cwd: string): Promise<ToolOutcome> {
  // A link inside the project that leads out of it would let an edit change what the user never
  // shared. (Paths outside the project are the approval's business, not this rule's.)
  if (spelledInside(path, cwd) && !isInside(path, cwd))
    return fail(`${path} leads outside the working directory through a symbolic link: edit_file does not write through it`);
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path, { bytes: EDIT_FILE_MAX_BYTES, tool: "edit_file" });
  } catch (error) {
    if (find === "" && (error as NodeJS.ErrnoException).code === "ENOENT") {
      // "wx": never created through a dangling symbolic link, nor over a file that appeared meanwhile.
      await writeFile(path, replace, { encoding: "utf8", flag: "wx" });
      return ok(`Created ${path}`);
    }
    throw error;
  }
  const text = asText(bytes);
  if (text === null) return fail(`${path} is a binary file (not UTF-8 text): edit_file does not edit it`);
  // A file whose lines end in \r\n keeps them: `find` and `replace` written with \n are translated.
  const [f, r] = isCrlf(text) ? [toCrlf(find), toCrlf(replace)] : [find, replace];
  const at = text.indexOf(f);
  if (f === "" || at === -1) return fail(`The text to find does not occur in ${path}`);
  if (text.indexOf(f, at + 1) !== -1) return fail(`The text to find occurs more than once in ${path}`);
  await writeFile(path, Buffer.from(text.slice(0, at) + r + text.slice(at + f.length), "utf8"));
  return ok(`Edited ${path}`);
}

// ---- bash_command: its own process group, a time limit, bounded output ----

export const DEFAULT_BASH_TIMEOUT_SEC = 120;
/** Bytes of output kept from the start and from the end of a command's output; the middle is dropped. */
const OUTPUT_HEAD_BYTES = 12_000;
const OUTPUT_TAIL_BYTES = 12_000;
/** After the command exits, how long a process that escaped its group may hold the output open. */
const STDIO_GRACE_MS = 1000;

/** Never in a tool's environment: the host's own credentials. */
const ALWAYS_DENIED = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"];

function toolEnv(deny: readonly string[] = []): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [...ALWAYS_DENIED, ...deny]) delete env[name];
  return env;
}

/** Process groups of the commands running now, so the host can stop them all when it exits. */
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

/** Keeps the first and last bytes of a stream however much comes, and counts what falls between. */
class HeadAndTail {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  push(chunk: Buffer): void {
    if (this.headBytes < OUTPUT_HEAD_BYTES) {
      const taken = chunk.subarray(0, OUTPUT_HEAD_BYTES - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      chunk = chunk.subarray(taken.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes > OUTPUT_TAIL_BYTES) {
      const excess = this.tailBytes - OUTPUT_TAIL_BYTES;
      const first = this.tail[0]!;
      const cut = Math.min(excess, first.length);
      if (cut === first.length) this.tail.shift();
      else this.tail[0] = first.subarray(cut);
      this.tailBytes -= cut;
      this.dropped += cut;
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    return this.dropped ? `${head}\n[… ${this.dropped} bytes of output dropped here …]\n${tail}` : head + tail;
  }
}

function bash(command: string, options: ToolOptions): Promise<ToolOutcome> {
  const { cwd, signal } = options;
  const timeoutSec = options.timeoutSec ?? DEFAULT_BASH_TIMEOUT_SEC;
  if (signal.aborted) return Promise.resolve(fail("The command was aborted before it started."));
  return new Promise((done) => {
    // Its own process group (detached), so abort, the time limit and the host's exit stop all of
    // it, background children included; no stdin, so it never reads the host's RPC channel.
    const child = spawn("bash", ["-c", command], { cwd, env: toolEnv(options.envDeny), detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const pgid = child.pid;
    const output = new HeadAndTail();
    let stopped: "aborted" | "timed-out" | null = null;
    let leftBehind = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;
    const stop = (why: "aborted" | "timed-out") => {
      stopped ??= why;
      if (pgid !== undefined) killGroup(pgid);
    };
    const onAbort = () => stop("aborted");
    // setTimeout takes at most 2^31-1 ms (a longer delay would fire at once).
    const timer = setTimeout(() => stop("timed-out"), Math.min(timeoutSec * 1000, 2 ** 31 - 1));
    let grace: NodeJS.Timeout | undefined;
    const settle = (outcome: ToolOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      signal.removeEventListener("abort", onAbort);
      if (pgid !== undefined) running.delete(pgid);
      done(outcome);
    };
    if (pgid !== undefined) running.add(pgid);
    signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (d: Buffer) => output.push(d));
    child.stderr.on("data", (d: Buffer) => output.push(d));
    child.on("error", (error) => settle(fail(error.message)));
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
      const text = output.text();
      if (stopped === "aborted") return settle(fail(`${text}\n[aborted: the command and everything it started were stopped]`));
      if (stopped === "timed-out")
        return settle(
          fail(
            `${text}\n[stopped after ${timeoutSec} s: the command ran longer than the time limit (bash_timeout), so it and everything it started were killed]`,
          ),
        );
      const note = leftBehind ? "\n[processes the command left running in the background were stopped]" : "";
      if (exit?.code === 0) return settle(ok(text + note));
      settle(fail(`${text}${note}\n[${exit?.signal ? `killed by ${exit.signal}` : `exit code ${exit?.code}`}]`));
    });
  });
}
