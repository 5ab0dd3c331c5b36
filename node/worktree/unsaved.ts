/**
 * The one rule for a file tine is about to replace in a thread's folder (a graft, a promote's
 * merge) that the user is editing: where a buffer holds it with unsaved changes, the write is
 * refused before anything is written. Written under the buffer, the file would not be reloaded,
 * and the user's next :w would write over what tine wrote (or :e! lose the user's edits).
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";

/** The absolute names of the buffers with unsaved changes now (asked of Neovim). */
export type UnsavedBuffers = () => Promise<readonly string[]>;

/** A name as the file system resolves it (a link, a folder under a link), or as given when it does not resolve. */
function real(name: string): string {
  try {
    return realpathSync(name);
  } catch {
    return name;
  }
}

/** Of `paths` (relative to `root`), those a buffer holds with unsaved changes. */
export async function unsavedOf(unsaved: UnsavedBuffers, root: string, paths: readonly string[]): Promise<string[]> {
  if (!paths.length) return [];
  const edited = new Set((await unsaved()).map(real));
  return paths.filter((p) => edited.has(real(join(root, p))));
}

/** Why replacing `paths` must wait for the user (what `what` would write there), or null: no buffer holds unsaved edits to them. */
export async function unsavedRefusal(
  unsaved: UnsavedBuffers,
  root: string,
  paths: readonly string[],
  what: string,
): Promise<string | null> {
  const edited = await unsavedOf(unsaved, root, paths);
  if (!edited.length) return null;
  const them = edited.length === 1 ? "its buffer has" : "their buffers have";
  return `save or undo your edits to ${edited.join(", ")} first: ${them} unsaved changes, and ${what} would be written under them (nothing was written)`;
}
