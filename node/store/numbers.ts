/**
 * Thread numbers unique across the Neovims sharing a project: a number is claimed by creating
 * `nums/<n>` in the project's folder with O_EXCL, which only one process can do for a given n. A
 * new thread is not on disk before its first message, so the transcripts alone cannot tell two
 * instances apart. Numbers are never reused: a buffer name never comes to mean another thread. A
 * number claimed for a thread that never came to be (a fork refused or failed) is given back.
 */
import { closeSync, constants, mkdirSync, openSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Claims the lowest free number that is at least `atLeast` and above every claim made so far. */
export function claimNumber(projectDir: string, atLeast: number): number {
  const dir = join(projectDir, "nums");
  let highest = 0;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(dir)) if (/^\d+$/.test(name)) highest = Math.max(highest, Number(name));
  } catch {
    return atLeast; // a data dir that cannot be written: unique in this instance only
  }
  for (let n = Math.max(atLeast, highest + 1); ; n++) {
    try {
      closeSync(openSync(join(dir, String(n)), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
      return n;
    } catch (error) {
      // Taken between the listing and now by another instance: the next one.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return n;
    }
  }
}

/** Gives back claimed number `n`: no thread was made with it (a failure to remove leaves it claimed: a number skipped, nothing else). */
export function releaseNumber(projectDir: string, n: number): void {
  try {
    rmSync(join(projectDir, "nums", String(n)), { force: true });
  } catch {}
}
