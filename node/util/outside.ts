/** Whether one path lies out of another, as spelled: shared by the snapshot store's links and the project's git. */
import { isAbsolute, relative, sep } from "node:path";

/** Whether `path` (a real path) lies out of `top`. */
export function outside(top: string, path: string): boolean {
  const rel = relative(top, path);
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}
