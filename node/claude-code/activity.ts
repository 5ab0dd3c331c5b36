/**
 * Whether a Claude Code session is working or waiting for the user, told from its transcript:
 * a turn ends with a `system` `turn_duration` record; a chain record after it (a prompt, its
 * attachments, a reply) means a turn is under way. Only the file's tail is read, when it changed.
 */
import { closeSync, openSync, readSync, statSync, unwatchFile, watchFile } from "node:fs";

export type Activity = "busy" | "idle";

/** The activity the end of a transcript shows, or null when it shows none yet. */
export function activityOf(tail: string): Activity | null {
  const lines = tail.split("\n").filter((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i--) {
    let r: { type?: string; subtype?: string; uuid?: string; isMeta?: boolean };
    try {
      r = JSON.parse(lines[i]!);
    } catch {
      continue; // cut at the start of the tail, or mid-write
    }
    if (r.type === "system" && r.subtype === "turn_duration") return "idle";
    // Any record of the conversation chain (a prompt, its attachments, a reply) after the last turn's end.
    if ((r.type === "user" || r.type === "assistant" || r.type === "attachment") && r.uuid && !r.isMeta) return "busy";
  }
  return null;
}

/**
 * The last prompt the user typed, as the end of a transcript shows it (null if none there): the
 * text of the last `user` record that is not a tool result, a meta record or the CLI's own markup.
 */
export function lastPromptOf(tail: string): string | null {
  const lines = tail.split("\n").filter((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i--) {
    let r: { type?: string; isMeta?: boolean; message?: { content?: unknown } };
    try {
      r = JSON.parse(lines[i]!);
    } catch {
      continue;
    }
    if (r.type !== "user" || r.isMeta) continue;
    const content = r.message?.content;
    const text =
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? (content.find((b): b is { type: "text"; text: string } => b?.type === "text" && typeof b.text === "string")?.text ?? "")
          : "";
    if (text.trim() && !text.trimStart().startsWith("<")) return text;
  }
  return null;
}

/** The end of the file: a request's records can be large (the CLI logs its request body). */
function readTail(path: string, bytes = 512 * 1024): string {
  const size = statSync(path).size;
  const fd = openSync(path, "r");
  try {
    const length = Math.min(size, bytes);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    return buf.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Calls `changed` with the session's activity whenever its transcript changes, and the tail it
 * read (for its last prompt); returns a stop.
 */
export function watchActivity(path: string, changed: (activity: Activity, tail: string) => void, intervalMs = 300): () => void {
  let last: Activity | null = null;
  const check = () => {
    let now: Activity | null = null;
    let tail = "";
    try {
      tail = readTail(path);
      now = activityOf(tail);
    } catch {
      return; // not written yet
    }
    if (now && now !== last) {
      last = now;
      changed(now, tail);
    }
  };
  watchFile(path, { interval: intervalMs, persistent: false }, check);
  check();
  return () => unwatchFile(path, check);
}
