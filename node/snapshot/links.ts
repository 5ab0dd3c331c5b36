/**
 * Links where the project had folders. A snapshot holds such a link as a link, never the files
 * that lay under it (git refuses to store a path beyond a link); a restore never writes through a
 * link that leads out of the project: what lies under it is skipped and named, and so is the link.
 */
import { lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { outside } from "../util/outside.ts";

/** The entries of `entries` (paths relative to the work tree) that lie under one of `links`. */
export function underLinks(entries: readonly string[], links: ReadonlySet<string>): string[] {
  return entries.filter((entry) => {
    for (let slash = entry.indexOf("/"); slash > 0; slash = entry.indexOf("/", slash + 1))
      if (links.has(entry.slice(0, slash))) return true;
    return false;
  });
}

/** Whether `path` (absolute) is a symbolic link (false when nothing is there). */
export function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The paths of `paths` (relative to `root`) a restore must not write: those whose folder leads
 * out of the project through a link, and such a link itself where `paths` has files under it
 * (the folder it stands for is not restored: the link stays).
 */
export function throughOutsideLinks(root: string, paths: readonly string[]): string[] {
  const top = realpathSync(root);
  /** Folders looked at: whether each is a link out of the project. */
  const outsideLink = new Map<string, boolean>();
  /** The first folder of `path` that is a link out of the project, or null. */
  const linkAbove = (path: string): string | null => {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      const out = outsideLink.get(folder) ?? leadsOut(top, join(root, folder));
      outsideLink.set(folder, out);
      if (out) return folder;
    }
    return null;
  };
  const planned = new Set(paths);
  const skipped = new Set<string>();
  for (const path of paths) {
    const link = linkAbove(path);
    if (link === null) continue;
    skipped.add(path);
    if (planned.has(link)) skipped.add(link);
  }
  return paths.filter((p) => skipped.has(p));
}

/** Whether `folder` (absolute) is a link whose target lies out of `top` (the project's real path). */
function leadsOut(top: string, folder: string): boolean {
  if (!isLink(folder)) return false;
  let real: string;
  try {
    real = realpathSync(folder);
  } catch {
    return true; // a dangling link: whatever it would point at is not the project's
  }
  return outside(top, real);
}
