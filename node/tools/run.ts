/** Runs one client tool call. Effects live here, at the edge; the Thread only sees results. */
import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { isToolName } from "./specs.ts";

export type ToolOutcome = { readonly text: string; readonly isError: boolean };

const MAX_OUTPUT = 30_000;
const clip = (s: string) => (s.length > MAX_OUTPUT ? `${s.slice(0, MAX_OUTPUT)}\n[output cut at ${MAX_OUTPUT} characters]` : s);
const ok = (text: string): ToolOutcome => ({ text: clip(text), isError: false });
const fail = (text: string): ToolOutcome => ({ text, isError: true });

function str(input: unknown, key: string): string {
  const v = (input as Record<string, unknown> | null)?.[key];
  if (typeof v !== "string") throw new Error(`input.${key} must be a string`);
  return v;
}

export async function runTool(name: string, input: unknown, cwd: string, signal: AbortSignal): Promise<ToolOutcome> {
  if (!isToolName(name)) return fail(`Unknown tool: ${name}`);
  try {
    const path = (key = "path") => {
      const p = str(input, key);
      return isAbsolute(p) ? p : resolve(cwd, p);
    };
    switch (name) {
      case "get_file":
        return ok(await readFile(path(), "utf8"));
      case "list_directory": {
        const entries = await readdir(path(), { withFileTypes: true });
        return ok(entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort().join("\n"));
      }
      case "edit_file":
        return await editFile(path(), str(input, "find"), str(input, "replace"));
      case "bash_command":
        return await bash(str(input, "command"), cwd, signal);
    }
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}

async function editFile(path: string, find: string, replace: string): Promise<ToolOutcome> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (find === "" && (error as NodeJS.ErrnoException).code === "ENOENT") {
      await writeFile(path, replace, "utf8");
      return ok(`Created ${path}`);
    }
    throw error;
  }
  const at = text.indexOf(find);
  if (find === "" || at === -1) return fail(`The text to find does not occur in ${path}`);
  if (text.indexOf(find, at + 1) !== -1) return fail(`The text to find occurs more than once in ${path}`);
  await writeFile(path, text.slice(0, at) + replace + text.slice(at + find.length), "utf8");
  return ok(`Edited ${path}`);
}

function bash(command: string, cwd: string, signal: AbortSignal): Promise<ToolOutcome> {
  return new Promise((done) => {
    const child = spawn("bash", ["-c", command], { cwd, signal, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (output += d.toString("utf8")));
    child.on("error", (error) => done(fail(signal.aborted ? "The command was aborted." : error.message)));
    child.on("close", (code) => done(code === 0 ? ok(output) : fail(`${output}\n[exit code ${code}]`)));
  });
}
