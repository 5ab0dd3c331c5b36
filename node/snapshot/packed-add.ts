/**
 * How a snapshot that adds many files writes them. git writes each new file's object as a file of
 * its own (a loose object): the store's first snapshot of a 10,000-file project wrote 10,000 of
 * them (~3 s, most of it creating files), and a fan-out made then waited for it. Objects of files
 * over `core.bigFileThreshold` go into one pack instead, for every file a command adds (git's
 * bulk check-in, which `update-index` groups into one pack since git 2.37; older gits would write
 * a pack per file, so they keep the loose objects). The threshold is set on that command alone:
 * elsewhere (a diff) it would call every file binary.
 */
import type { RunGit } from "../tools/git.ts";

/** From this many files added at once, they are packed. */
export const PACK_FROM_FILES = 500;

/**
 * How many files one update-index packs: a pack each. In parts, a first snapshot begun in the
 * background (prime) runs the parts after a take that waits for it at normal priority, not all of
 * it at the low one on a busy machine.
 */
export const PACK_PART_FILES = 1000;

/** `files` in parts of PACK_PART_FILES. */
export function inParts(files: readonly string[]): string[][] {
  const parts: string[][] = [];
  for (let i = 0; i < files.length; i += PACK_PART_FILES) parts.push(files.slice(i, i + PACK_PART_FILES));
  return parts;
}

/** The first git that packs an update-index's big files together. */
const PACKS_TOGETHER: readonly [number, number] = [2, 37];

/** Whether `git version`'s answer names a git that packs together (PACKS_TOGETHER or later). */
export function packsTogether(version: string): boolean {
  const m = /git version (\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > PACKS_TOGETHER[0] || (major === PACKS_TOGETHER[0] && minor >= PACKS_TOGETHER[1]);
}

/** The `-c` options for an update-index adding `count` files: into one pack when they are many and git packs them together. */
export function packedAdd(git: RunGit, cwd: string): (count: number) => Promise<string[]> {
  let packs: Promise<boolean> | null = null;
  return async (count) => {
    if (count < PACK_FROM_FILES) return [];
    packs ??= git(["version"], { cwd }).then(
      (r) => packsTogether(r.stdout.toString("utf8")),
      () => false,
    );
    return (await packs) ? ["-c", "core.bigFileThreshold=1"] : [];
  };
}
