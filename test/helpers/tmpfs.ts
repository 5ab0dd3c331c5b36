/**
 * A small tmpfs for tests of a full or a read-only disk: mounted on a fresh temporary folder and
 * unmounted after. Mounting needs root (or CAP_SYS_ADMIN); where it is refused, `tmpfsRefused`
 * says why, and the tests that need one are skipped with that reason in their name.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type Tmpfs = {
  readonly dir: string;
  /** Fills the disk until a write is refused (ENOSPC). */
  fill(): void;
  /** Frees what `fill` took. */
  free(): void;
  /** Remounts it read-only, or writable again. */
  readOnly(on: boolean): void;
  /** Unmounts it and removes the folder. */
  close(): void;
};

function run(args: string[]): string | null {
  const r = spawnSync(args[0]!, args.slice(1), { encoding: "utf8" });
  return r.status === 0 ? null : (r.stderr || r.error?.message || `exit ${r.status}`).trim();
}

export function mountTmpfs(size = "1m"): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), "tine-tmpfs-"));
  const refused = run(["mount", "-t", "tmpfs", "-o", `size=${size},mode=0755`, "tmpfs", dir]);
  if (refused) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mount -t tmpfs refused: ${refused}`);
  }
  const filler = join(dir, "filler");
  return {
    dir,
    fill() {
      const fd = openSync(filler, "a");
      const chunk = Buffer.alloc(4096, 120);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      } finally {
        closeSync(fd);
      }
    },
    free() {
      unlinkSync(filler);
    },
    readOnly(on) {
      const refused = run(["mount", "-o", `remount,${on ? "ro" : "rw"}`, dir]);
      if (refused) throw new Error(`remount ${on ? "ro" : "rw"} refused: ${refused}`);
    },
    close() {
      // A process that still holds a file there (a host being killed) makes it busy: detach it then.
      if (run(["umount", dir])) run(["umount", "-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Why a tmpfs cannot be mounted here, or null when it can. */
export const tmpfsRefused: string | null = (() => {
  try {
    mountTmpfs("64k").close();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
})();
