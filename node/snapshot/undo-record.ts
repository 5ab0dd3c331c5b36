/**
 * The last restore's undo, kept on disk beside the project's snapshot store (`tine-undo.json` in
 * its private repository), so `:Tine restore undo` works after `:Tine restart` and after Neovim
 * is restarted. Read back field by field: a file that is not one of ours undoes nothing.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { SnapshotId } from "../core/code-marks.ts";
import type { StoredFile } from "./repo.ts";

/** A file as an undo puts it back (null: there was none). */
export type KeptFile = { readonly path: string; readonly file: StoredFile | null };

/**
 * What the last restore wrote (paths relative to the project's top folder) and how to put it
 * back: a snapshot holding the files as they were (a restore, a merge's rollback), or the files
 * themselves (a hunk's undo writes one file: recording that one is what keeps it fast, where a
 * snapshot of the project would hash every file changed since). `safety` names the undo to
 * whoever is told it was done: the snapshot, or for kept files an id of their own.
 */
export type RestoreUndo =
  | { readonly kind: "snapshot"; readonly safety: SnapshotId; readonly paths: readonly string[] }
  | { readonly kind: "files"; readonly safety: string; readonly files: readonly KeptFile[] };

export const isSha = (v: unknown): v is string => typeof v === "string" && /^[0-9a-f]{40,64}$/.test(v);

/** A path a restore (or a merge) may have written: relative, inside the project (no `..` step). */
export const isProjectPath = (v: unknown): v is string =>
  typeof v === "string" && v !== "" && !isAbsolute(v) && !v.split(/[\\/]/).includes("..") && !v.includes("\0");

const MODES = ["100644", "100755", "120000"];

/** A kept file as the record holds it (its bytes in base64), field by field; null: not one. */
function keptFrom(v: unknown): KeptFile | null {
  if (typeof v !== "object" || v === null) return null;
  const { path, mode, base64 } = v as Record<string, unknown>;
  if (!isProjectPath(path)) return null;
  if (mode === null && base64 === null) return { path, file: null };
  if (typeof mode !== "string" || !MODES.includes(mode) || typeof base64 !== "string") return null;
  return { path, file: { mode, bytes: Buffer.from(base64, "base64") } };
}

/** The undo kept at `file`, or null when there is none (or it is not one tine wrote). */
export function readUndo(file: string): RestoreUndo | null {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null) return null;
  const { kind, safety, paths, files } = data as Record<string, unknown>;
  if (!isSha(safety)) return null;
  // Written before undos of kept files were: no `kind` is a snapshot's.
  if (kind === undefined || kind === "snapshot") {
    if (!Array.isArray(paths) || !paths.every(isProjectPath)) return null;
    return { kind: "snapshot", safety, paths };
  }
  if (kind !== "files" || !Array.isArray(files)) return null;
  const kept = files.map(keptFrom);
  return kept.every((f) => f !== null) ? { kind: "files", safety, files: kept as KeptFile[] } : null;
}

/** Keeps `undo` at `file` (written whole, then renamed into place); null: there is nothing left to undo. */
export function writeUndo(file: string, undo: RestoreUndo | null): void {
  if (undo === null) {
    try {
      unlinkSync(file);
    } catch {
      // none kept
    }
    return;
  }
  const record =
    undo.kind === "snapshot"
      ? { kind: undo.kind, safety: undo.safety, paths: undo.paths }
      : {
          kind: undo.kind,
          safety: undo.safety,
          files: undo.files.map((f) => ({ path: f.path, mode: f.file?.mode ?? null, base64: f.file?.bytes.toString("base64") ?? null })),
        };
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
  renameSync(temp, file);
}
