/** Why a write to the store failed, said for the user ("no space left on …", "… is read-only"). */
import { accessSync, constants, existsSync } from "node:fs";
import { dirname } from "node:path";

/** The reason `error` (from writing under `dataDir`, in `dir`) gives, in a few words. */
export function writeFailure(error: unknown, dataDir: string, dir: string): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case "ENOSPC":
      return `no space left on ${dataDir}`;
    case "EDQUOT":
      return `the disk quota is used up on ${dataDir}`;
    case "EROFS":
      return `${dataDir} is read-only`;
    case "EACCES":
    case "EPERM":
      return `${dataDir} is not writable (permission denied)`;
    case "ENOENT": {
      // A folder that could not be made reports ENOENT (a read-only disk among them): ask the
      // nearest folder that exists why.
      let at = dir;
      while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
      try {
        accessSync(at, constants.W_OK);
      } catch (cause) {
        const why = (cause as NodeJS.ErrnoException).code;
        if (why === "EROFS" || why === "EACCES" || why === "EPERM") return writeFailure(cause, dataDir, dir);
      }
      return `${dir} could not be made (${(error as Error).message})`;
    }
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
