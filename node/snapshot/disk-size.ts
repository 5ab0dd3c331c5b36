/** Bytes on disk, as the snapshot store counts them (files over the size limit, the store's own size). */
import { lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Size of a file (not following links), or null when there is none. */
export function sizeOf(path: string): number | null {
  try {
    return lstatSync(path).size;
  } catch {
    return null;
  }
}

export function diskSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += diskSize(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}
