/**
 * Moving conversations between Claude Code and tine, as files: a session read into messages, and
 * messages written as a new session in the folder Claude Code uses for the project.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NativeMessage } from "../core/native.ts";
import { configDir, findSession, projectSessionsDir, type SessionFile } from "./project.ts";
import { type LineProblem, readTranscriptFile, TranscriptError, writeTranscript } from "./transcript.ts";

export type ImportedSession = {
  readonly messages: NativeMessage[];
  readonly firstPrompt: string | null;
  readonly sessionId: string | null;
  readonly path: string;
  /** Lines whose content was left out, by number (see transcript.ts). */
  readonly skipped: readonly LineProblem[];
};

/** Lines left out of an import, as the user is told them: `line 3: 60.0 MB long, …; line 9: …`. */
export function describeSkipped(skipped: readonly LineProblem[]): string {
  return skipped.map((p) => `line ${p.line}: ${p.error}`).join("; ");
}

/** A session (by id or transcript path) read for import; errors say what is wrong and where. */
export function readSession(idOrPath: string): ImportedSession {
  const path = findSession(idOrPath);
  if (!path) throw new Error(`tine: no Claude Code session ${idOrPath} (looked in ${configDir()}/projects)`);
  try {
    const t = readTranscriptFile(path);
    // What was left out may be all there was (one line too long): named, not just "nothing".
    const left = t.skipped.length ? ` (left out: ${describeSkipped(t.skipped)})` : "";
    if (!t.messages.length) throw new Error(`tine: ${path} holds no conversation to import${left}`);
    return { messages: t.messages, firstPrompt: t.firstPrompt, sessionId: t.sessionId, path, skipped: t.skipped };
  } catch (error) {
    if (error instanceof TranscriptError) throw new Error(`tine: ${path} cannot be imported: ${error.message}`);
    throw error;
  }
}

/**
 * How the import picker names a session: its last prompt, message count and short id, so a session
 * and its fork (same first prompt) tell apart.
 */
export function sessionLabel(file: SessionFile): string {
  const id = file.id.slice(0, 8);
  try {
    const t = readTranscriptFile(file.path);
    const prompt = (t.lastPrompt ?? "").trim().split("\n")[0]!.slice(0, 60) || "(no prompt)";
    return `${prompt} · ${t.messages.length} msg${t.messages.length === 1 ? "" : "s"} · ${id}`;
  } catch (error) {
    return `(unreadable: ${error instanceof TranscriptError ? error.message : String(error)}) · ${id}`;
  }
}

/** Writes `messages` as a new session of the project in `cwd` (0600, never over a file). */
export function writeSession(messages: readonly NativeMessage[], cwd: string): { sessionId: string; path: string } {
  if (!messages.length) throw new Error("tine: the thread has no messages to export");
  const sessionId = randomUUID();
  const dir = projectSessionsDir(cwd);
  const path = join(dir, `${sessionId}.jsonl`);
  if (existsSync(path)) throw new Error(`tine: ${path} exists already`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(path, writeTranscript(messages, { sessionId, cwd }), { mode: 0o600, flag: "wx" });
  return { sessionId, path };
}
