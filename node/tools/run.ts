/**
 * Runs one client tool call in the thread's Environment: what each tool does with the model's input
 * and how its outcome is worded. All IO goes through the environment (the edge); the Thread only
 * sees results.
 */
import { isAbsolute, relative, sep } from "node:path";
import { sizeOf } from "./byte-size.ts";
import type { CommandResult, Environment } from "./environment.ts";
import type { ToolOutcome } from "./source.ts";
import { isToolName } from "./specs.ts";

// The host stops every tool process when it exits (host/index.ts): that is the local shell's to do.
export { killAllToolProcesses } from "./local-shell.ts";

export type { ToolOutcome } from "./source.ts";

const MAX_OUTPUT = 30_000;
const clip = (s: string) => (s.length > MAX_OUTPUT ? `${s.slice(0, MAX_OUTPUT)}\n[output cut at ${MAX_OUTPUT} characters]` : s);
const ok = (text: string): ToolOutcome => ({ text: clip(text), isError: false });
const fail = (text: string): ToolOutcome => ({ text, isError: true });

function str(input: unknown, key: string): string {
  const v = (input as Record<string, unknown> | null)?.[key];
  if (typeof v !== "string") throw new Error(`input.${key} must be a string`);
  return v;
}

/**
 * How results name `path` (the model's): relative to the thread's folder when it lies there (as
 * spelled, `..` folded), else absolute. A folder's own path never reaches the model, so results
 * stay true when the thread's history moves to another folder (a worktree fork promoted into
 * its parent: the worktree goes, the same relative paths live on in the parent's folder).
 */
function shownPath(env: Environment, path: string): string {
  const absolute = env.resolve(path);
  const rel = relative(env.root, absolute);
  if (rel === "") return ".";
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? absolute : rel;
}

/** An error's message for the model: a file system error names its path as results do (`shownPath`). */
function errorText(error: unknown, env: Environment): string {
  if (!(error instanceof Error)) return String(error);
  const path = (error as NodeJS.ErrnoException).path;
  return typeof path === "string" && isAbsolute(path) ? error.message.replaceAll(path, shownPath(env, path)) : error.message;
}

/** Carries out `name` with `input` in `env`; aborting `signal` stops a running command. */
export async function runTool(name: string, input: unknown, env: Environment, signal: AbortSignal): Promise<ToolOutcome> {
  if (!isToolName(name)) return fail(`Unknown tool: ${name}`);
  try {
    // The environment resolves a relative path against its folder: it acts where the model meant.
    const path = () => shownPath(env, str(input, "path"));
    switch (name) {
      case "get_file":
        return await getFile(env, path());
      case "list_directory": {
        const entries = await env.listDirectory(path());
        return ok(
          entries
            .map((e) => (e.isDirectory ? `${e.name}/` : e.name))
            .sort()
            .join("\n"),
        );
      }
      case "edit_file":
        return await editFile(env, path(), str(input, "find"), str(input, "replace"));
      case "bash_command":
        return bashOutcome(await env.runCommand(str(input, "command"), signal));
    }
  } catch (error) {
    return fail(errorText(error, env));
  }
}

// ---- Files: text only ----

/** get_file reads files up to this size; a larger one is refused (the model can read parts with bash). */
export const GET_FILE_MAX_BYTES = 256 * 1024;
/** edit_file edits files up to this size. */
const EDIT_FILE_MAX_BYTES = 8 * 1024 * 1024;

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

async function getFile(env: Environment, path: string): Promise<ToolOutcome> {
  const bytes = await env.readFile(path, { bytes: GET_FILE_MAX_BYTES, tool: "get_file" });
  const text = asText(bytes);
  if (text === null) return fail(`${path} is a binary file (${sizeOf(bytes.length)}, not UTF-8 text): get_file does not show it`);
  return ok(text);
}

/** True when every line break of `text` is \r\n (and there is at least one). */
const isCrlf = (text: string) => text.includes("\r\n") && !/(^|[^\r])\n/.test(text);
const toCrlf = (s: string) => s.replace(/(?<!\r)\n/g, "\r\n");

async function editFile(env: Environment, path: string, find: string, replace: string): Promise<ToolOutcome> {
  // Asked before the read, so an edit cannot probe a file it may not write.
  const refusal = env.writeRefusal(path);
  if (refusal) return fail(`${refusal}: edit_file does not write through it`);
  let bytes: Buffer;
  try {
    bytes = await env.readFile(path, { bytes: EDIT_FILE_MAX_BYTES, tool: "edit_file" });
  } catch (error) {
    if (find === "" && (error as NodeJS.ErrnoException).code === "ENOENT") {
      await env.writeFile(path, Buffer.from(replace, "utf8"), "create");
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
  await env.writeFile(path, Buffer.from(text.slice(0, at) + r + text.slice(at + f.length), "utf8"), "replace");
  return ok(`Edited ${path}`);
}

// ---- bash_command: what the model is told of how a command ended ----

function bashOutcome({ output, end }: CommandResult): ToolOutcome {
  switch (end.type) {
    case "aborted":
      return fail(`${output}\n[aborted: the command and everything it started were stopped]`);
    case "timed-out":
      return fail(
        `${output}\n[stopped after ${end.afterSec} s: the command ran longer than the time limit (bash_timeout), so it and everything it started were killed]`,
      );
    case "exited": {
      const note = end.leftBehind ? "\n[processes the command left running in the background were stopped]" : "";
      if (end.code === 0) return ok(output + note);
      return fail(`${output}${note}\n[${end.signal ? `killed by ${end.signal}` : `exit code ${end.code}`}]`);
    }
  }
}
