/**
 * The end of a long transcript, read without the rest: its last messages, for the first screen of
 * a stored thread opened from its end while the whole is read after. Only a log whose end can be
 * told apart from what comes before gives one: a root's (a fork's history starts in its parent's
 * file) whose last records only append messages or change nothing in the history (a title, a
 * label, the queue…). Anything else (a cut, a turn left open, a line that does not read) gives
 * none, and the thread opens as it always did, the whole read first.
 */
import { closeSync, fstatSync, readSync } from "node:fs";
import { type Entry, entry, freezeMessage } from "../core/native.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { openRegular } from "../util/regular-file.ts";
import { decode } from "./records.ts";

/** The last messages of a log, and what it took to read them (for tests: bounded by the tail, not the file). */
export type Tail = { readonly entries: readonly Entry[]; readonly bytesRead: number; readonly recordsParsed: number };

/**
 * The last messages of the log at `path`, read from at least its last `minBytes` (more, doubling,
 * until a whole message is in it, up to a quarter of the file), or null when its end cannot be
 * shown alone (see the module comment) or the file is no larger than that.
 */
export function readTail(path: string, minBytes: number): Tail | null {
  const fd = openRegular(path, "read");
  try {
    const size = fstatSync(fd).size;
    if (size < 4 * minBytes) return null;
    let bytesRead = 0;
    const read = (from: number, length: number) => {
      const buf = Buffer.alloc(length);
      let n = 0;
      while (n < length) {
        const got = readSync(fd, buf, n, length - n, from + n);
        if (got === 0) break;
        n += got;
      }
      bytesRead += n;
      return buf.subarray(0, n);
    };
    // A fork's history starts in its parent's file: its header (the first line) says so.
    const head = read(0, Math.min(size, 64 * 1024));
    const headEnd = head.indexOf(0x0a);
    if (headEnd < 0) return null;
    const header = decode(head.subarray(0, headEnd).toString("utf8"));
    if (!header.ok || header.record.t !== "header" || header.record.parent?.relation === "fork") return null;
    for (let want = minBytes; want <= size / 4; want *= 2) {
      const chunk = read(size - want, want);
      // A last line without its newline was cut mid-write: the whole read reports or drops it.
      if (chunk.at(-1) !== 0x0a) return null;
      // The first line of the chunk is cut: it starts after the first newline.
      const lines = chunk
        .subarray(chunk.indexOf(0x0a) + 1, chunk.length - 1)
        .toString("utf8")
        .split("\n");
      const entries: Entry[] = [];
      let recordsParsed = 0;
      for (const line of lines) {
        if (line.trim() === "") continue;
        recordsParsed++;
        const d = decode(line);
        if (!d.ok || d.record.t === "header") return null;
        const record = d.record;
        switch (record.t) {
          case "append":
            entries.push(entry(freezeMessage(record.m), record.meta));
            break;
          // What leaves the history as it was.
          case "title":
          case "side":
          case "label":
          case "queue":
          case "code":
          case "report":
          case "reports-sent":
          case "graft":
          case "grafts-sent":
          case "check":
          case "deleted":
          case "ended":
          case "restored":
          case "branched":
          case "model":
          case "settings":
          case "interrupted":
          case "failed":
            break;
          // What changes what came before, or leaves a turn open: the whole is needed.
          case "truncate":
          case "block":
          case "open":
          case "streamed":
          case "result":
          case "started":
            return null;
          default:
            assertUnreachable(record);
        }
      }
      if (entries.length) return { entries, bytesRead, recordsParsed };
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
