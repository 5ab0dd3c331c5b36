/**
 * A Claude Code session copied as a new session into another project folder: how a `[claude]`
 * thread forks into a worktree of its own. Claude Code keeps sessions by working directory, so a
 * session continued in the worktree must be there, under an id of its own (`--fork-session` would
 * write the fork beside its source, in the source's folder). The source's files are only read.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Every `sessionId` property (at any depth) that is `from` made `to`; whether any was. */
function replaceSessionIds(value: unknown, from: string, to: string): boolean {
  if (Array.isArray(value)) return value.map((v) => replaceSessionIds(v, from, to)).some(Boolean);
  if (!value || typeof value !== "object") return false;
  const record = value as Record<string, unknown>;
  let changed = false;
  for (const [key, v] of Object.entries(record)) {
    if (key === "sessionId" && v === from) {
      record[key] = to;
      changed = true;
    } else if (replaceSessionIds(v, from, to)) changed = true;
  }
  return changed;
}

/**
 * The transcript of session `fromId` with every `sessionId` made `toId`. Lines that name no such
 * id keep their bytes; a line that is not JSON (a last line cut mid-write) is kept as it is: the
 * CLI skips it, as it would in the source.
 */
export function renameSession(transcript: string, fromId: string, toId: string): string {
  return transcript
    .split("\n")
    .map((line) => {
      if (!line.includes(fromId)) return line;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        return line;
      }
      return replaceSessionIds(record, fromId, toId) ? JSON.stringify(record) : line;
    })
    .join("\n");
}

/**
 * Copies session `fromId` (transcript `from`) as session `toId` to transcript path `to` (never
 * over a file; 0600 in a 0700 folder, as the CLI writes them), with its side folder `<id>/`
 * (subagents, tool results) if it has one.
 */
export function copySession(from: string, fromId: string, to: string, toId: string): void {
  const text = readFileSync(from, "utf8");
  mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
  writeFileSync(to, renameSession(text, fromId, toId), { mode: 0o600, flag: "wx" });
  const side = join(dirname(from), fromId);
  if (existsSync(side) && statSync(side).isDirectory()) cpSync(side, join(dirname(to), toId), { recursive: true, errorOnExist: true });
}
