/**
 * A stdio MCP server as a transport for the SDK's Client, in place of the SDK's own: that one
 * joins the server's output again at every chunk (20 MB of one message took seconds of the host's
 * time) and, past 10 MB, throws and closes the server, so a large result came back as "the server
 * exited during the call". Here a message is read in time linear in its size up to
 * MAX_MESSAGE_BYTES (its text then capped as any result's, results.ts); a larger one is answered
 * as too large, with its size, and the server goes on serving. Bundled with the SDK (sdk-entry.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { answeredId, MAX_MESSAGE_BYTES, MessageLines, RESULT_TOO_LARGE } from "./message-lines.ts";

/** What a server inherits of the host's environment besides its `env` (as the SDK's transport): never the host's credentials. */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** After stdin closes, how long a server may take to exit before SIGTERM, and then before SIGKILL (as the SDK's transport). */
const EXIT_GRACE_MS = 2000;

export type StdioLaunch = {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
};

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = process.env[name];
    // A shell function exported as a variable (`() { …`) is not passed on.
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return env;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | null = null;
  private readonly lines: MessageLines;

  constructor(
    private readonly launch: StdioLaunch,
    /** The server's stderr, as it comes. */
    private readonly stderr: (text: string) => void,
    maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {
    this.lines = new MessageLines(maxMessageBytes);
  }

  /** The server's process id while it runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("the stdio transport is already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.launch.command, [...this.launch.args], {
        env: { ...inheritedEnv(), ...this.launch.env },
        cwd: this.launch.cwd,
        stdio: ["pipe", "pipe", "pipe"],
      });
      this.child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        this.child = null;
        this.onclose?.();
      });
      child.stdin!.on("error", (error) => this.onerror?.(error));
      child.stdout!.on("error", (error) => this.onerror?.(error));
      child.stdout!.on("data", (chunk: Buffer) => this.read(chunk));
      child.stderr!.on("data", (chunk: Buffer) => this.stderr(chunk.toString("utf8")));
    });
  }

  private read(chunk: Buffer): void {
    for (const line of this.lines.push(chunk)) {
      switch (line.type) {
        case "message": {
          let message: JSONRPCMessage;
          try {
            message = JSONRPCMessageSchema.parse(JSON.parse(line.text));
          } catch (error) {
            this.onerror?.(error instanceof Error ? error : new Error(String(error)));
            continue;
          }
          this.onmessage?.(message);
          break;
        }
        case "too-large": {
          const id = answeredId(line);
          const why = `a message of ${line.bytes} bytes, over the ${MAX_MESSAGE_BYTES} read from a server`;
          // The request it answers fails now, rather than waiting out mcp_timeout; one that names none is dropped.
          if (id === null) this.onerror?.(new Error(`dropped ${why}`));
          else
            this.onmessage?.({
              jsonrpc: "2.0",
              id,
              error: { code: RESULT_TOO_LARGE, message: `not read: ${why}`, data: { bytes: line.bytes } },
            });
          break;
        }
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Its stdin closed, as the protocol ends a stdio server; SIGTERM if it has not exited after a while, then SIGKILL. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const exitedWithin = () =>
      Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), EXIT_GRACE_MS).unref())]);
    child.stdin?.end();
    if (await exitedWithin()) return;
    child.kill("SIGTERM");
    if (await exitedWithin()) return;
    child.kill("SIGKILL");
  }
}
