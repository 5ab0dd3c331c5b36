/**
 * The last restore's undo, kept on disk beside the project's snapshot store (`tine-undo.json` in
 * its private repository), so `:Tine restore undo` works after `:Tine restart` and after Neovim
 * is restarted. Read back field by field: a file that is not one of ours undoes nothing.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { SnapshotId } from "../core/code-marks.ts";

/** What the last restore wrote (paths relative to the project's top folder) and the snapshot holding them as they were. */
export type RestoreUndo = { readonly safety: SnapshotId; readonly paths: readonly string[] };

export const isSha = (v: unknown): v is string => typeof v === "string" && /^[0-9a-f]{40,64}$/.test(v);

/** A path a restore (or a merge) may have written: relative, inside the project (no `..` step). */
export const isProjectPath = (v: unknown): v is string =>
  typeof v === "string" && v !== "" && !isAbsolute(v) && !v.split(/[\\/]/).includes("..") && !v.includes("\0");

/** The undo kept at `file`, or null when there is none (or it is not one tine wrote). */
export function readUndo(file: string): RestoreUndo | null {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null) return null;
  const { safety, paths } = data as Record<string, unknown>;
  if (!isSha(safety) || !Array.isArray(paths) || !paths.every(isProjectPath)) return null;
  return { safety, paths };
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
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify({ safety: undo.safety, paths: undo.paths }), { mode: 0o600 });
  renameSync(temp, file);
}
