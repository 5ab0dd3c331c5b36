/**
 * The change list under a reply whose turn changed files: a summary line (`▸ 3 files changed
 * (+12 −4)`), when expanded one line per file, and under an expanded file its diff. Each line
 * says which file it is about, so a key pressed on it finds the file.
 */
import type { FileChange } from "../core/code-marks.ts";

/** The change list under the reply that ended a turn which changed files. */
export type ChangeList = {
  readonly files: readonly FileChange[];
  readonly skipped: readonly string[];
  /** The list is expanded (one line per file). */
  readonly open: boolean;
  /** Diff lines of the files expanded, by path. */
  readonly diffs: ReadonlyMap<string, readonly string[]>;
};

const STATUS = { added: "A", modified: "M", deleted: "D" } as const;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export function changeListLines(list: ChangeList): { lines: string[]; paths: (string | null)[] } {
  const lines: string[] = [];
  const paths: (string | null)[] = [];
  const add = (line: string, path: string | null) => {
    lines.push(line);
    paths.push(path);
  };
  if (list.files.length) {
    let added = 0;
    let removed = 0;
    for (const f of list.files) {
      added += f.added ?? 0;
      removed += f.removed ?? 0;
    }
    add(`${list.open ? "▾" : "▸"} ${plural(list.files.length, "file")} changed (+${added} −${removed})`, null);
    if (list.open) {
      for (const f of list.files) {
        const counts = f.added === null ? "binary" : `+${f.added} −${f.removed}`;
        const diff = list.diffs.get(f.path);
        add(`  ${diff ? "▾" : "▸"} ${STATUS[f.status]} ${f.path}  ${counts}`, f.path);
        for (const d of diff ?? []) add(`      ${d}`, f.path);
      }
    }
  }
  // Said whether or not the list is open: these files cannot be restored.
  if (list.skipped.length) add(`  ⚠ over 2 MiB, not recorded: ${list.skipped.join(", ")}`, null);
  return { lines, paths };
}
