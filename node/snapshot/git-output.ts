/**
 * What the snapshot store reads from git's output (`diff-tree`, `ls-tree`, `cat-file --batch`),
 * and the one thing it writes for itself: a snapshot's commit message, which names the files left
 * out as too big. Pure: repo.ts runs the commands.
 */
import type { FileChange } from "../core/code-marks.ts";

/** A snapshot's commit message: the files over `maxFileBytes` it left out, named (read back by `skippedInMessage`). */
export function snapshotMessage(skipped: readonly string[], maxFileBytes: number): string {
  return skipped.length ? `tine snapshot\n\nskipped (over ${maxFileBytes} bytes):\n${skipped.join("\n")}\n` : "tine snapshot\n";
}

/** The paths a snapshot's commit message (`git cat-file commit`) names as left out. */
export function skippedInMessage(message: string): string[] {
  const at = message.indexOf("\nskipped (over ");
  if (at < 0) return [];
  return message
    .slice(at + 1)
    .split("\n")
    .slice(1)
    .filter((l) => l !== "");
}

/** `git diff-tree -r -z --no-renames --raw --numstat` output, split at NULs: each file's change and counts. */
export function parseChanges(out: readonly string[]): FileChange[] {
  const status = new Map<string, FileChange["status"]>();
  const counts = new Map<string, { added: number | null; removed: number | null }>();
  for (let i = 0; i < out.length; i++) {
    const field = out[i]!;
    if (field.startsWith(":")) {
      const letter = field.trim().split(" ").at(-1);
      status.set(out[++i]!, letter === "A" ? "added" : letter === "D" ? "deleted" : "modified");
      continue;
    }
    const [added, removed, path] = field.split("\t");
    const n = (s: string | undefined) => (s === undefined || s === "-" ? null : Number(s));
    counts.set(path!, { added: n(added), removed: n(removed) });
  }
  return [...status].map(([path, s]) => ({ path, status: s, added: null, removed: null, ...counts.get(path) }));
}

/** `git diff-tree -p` output of one file: its lines from the first hunk on (none when nothing differs). */
export function hunksOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const hunk = lines.findIndex((l) => l.startsWith("@@") || l.startsWith("Binary files"));
  return hunk < 0 ? [] : lines.slice(hunk);
}

/** `git diff-tree -p` output of many files: each file's lines from its first hunk on, in git's order (`changes`' order). */
export function hunksPerFile(text: string): string[][] {
  const files = text.split(/^diff --git /m).slice(1);
  return files.map((f) => hunksOf(f));
}

/** `git ls-tree -r -z` output, split at NULs: the mode and blob of each path in `wanted`. */
export function treeEntries(out: readonly string[], wanted: ReadonlySet<string>): Map<string, { mode: string; sha: string }> {
  const entries = new Map<string, { mode: string; sha: string }>();
  for (const line of out) {
    const tab = line.indexOf("\t");
    const path = line.slice(tab + 1);
    if (!wanted.has(path)) continue;
    const [mode, , sha] = line.slice(0, tab).split(" ");
    entries.set(path, { mode: mode!, sha: sha! });
  }
  return entries;
}

/** `git cat-file --batch` output: each object's bytes by sha. */
export function parseBatch(out: Buffer): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(10, at);
    const [sha, , size] = out.subarray(at, nl).toString("utf8").split(" ");
    const n = Number(size);
    blobs.set(sha!, out.subarray(nl + 1, nl + 1 + n));
    at = nl + 1 + n + 1;
  }
  return blobs;
}
