/**
 * Files opened only when they are what they claim to be: regular files, reached without following
 * a symbolic link. A link planted in tine's data folder would otherwise have its target read,
 * truncated or appended to; a FIFO there would block the host on open.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";

/** What a path that is not a regular file is, for messages. */
export function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  if (info.isFIFO()) return "a FIFO (pipe)";
  if (info.isSocket()) return "a socket";
  if (info.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

const MODES = {
  read: constants.O_RDONLY,
  /** Appends, and reads (to find the last whole line) and truncates through the same descriptor. */
  update: constants.O_RDWR | constants.O_APPEND,
  append: constants.O_WRONLY | constants.O_APPEND,
} as const;

/**
 * Opens an existing regular file without following a link (`O_NOFOLLOW`) and without blocking on
 * a FIFO (`O_NONBLOCK`), then checks what was opened. Errors name the path and what it is.
 */
export function openRegular(path: string, mode: keyof typeof MODES): number {
  let fd: number;
  try {
    fd = openSync(path, MODES[mode] | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Linux says ELOOP for a link under O_NOFOLLOW; the BSDs say EMLINK.
    if (code === "ELOOP" || code === "EMLINK") throw notRegular(path, "a symbolic link");
    throw error;
  }
  const info = fstatSync(fd);
  if (!info.isFile()) {
    closeSync(fd);
    throw notRegular(path, kindOf(info));
  }
  return fd;
}

function notRegular(path: string, kind: string): Error {
  return Object.assign(new Error(`${path} is ${kind}: tine opens only regular files there, never through a link`), { code: "ENOTREG" });
}

/**
 * Whether open file `fd` is the file at `realPath` (a path with its links resolved, checked before
 * the open). O_NOFOLLOW guards only a path's last name: a folder of it swapped for a link between
 * the check and the open (by an agent's bash in the same tree) has another file opened, which this
 * tells. Linux names an open file's place in `procFds` (/proc/self/fd). Elsewhere (or without
 * /proc; tests name a missing folder) `realPath` must still be its own real path and lead to the
 * very file open (device and inode): a narrower race, as a swap back and forth between those two
 * looks would pass.
 */
export function isOpenedAt(fd: number, realPath: string, procFds = "/proc/self/fd"): boolean {
  let named: string | null = null;
  try {
    named = readlinkSync(join(procFds, String(fd)));
  } catch {
    // Not Linux, or no /proc: the fallback below.
  }
  if (named !== null) return named === realPath;
  try {
    const open = fstatSync(fd);
    const there = statSync(realPath);
    return realpathSync.native(realPath) === realPath && open.dev === there.dev && open.ino === there.ino;
  } catch {
    return false;
  }
}

/** The bytes of an open file from `offset` to its end as it is now. */
export function readFrom(fd: number, offset = 0): Buffer {
  const length = Math.max(0, fstatSync(fd).size - offset);
  const buf = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buf, read, length - read, offset + read);
    if (n === 0) break;
    read += n;
  }
  return buf.subarray(0, read);
}

/**
 * Where the last whole line of an open file ends (just after its newline; 0 without one), read
 * from the end back: a 50 MB transcript opened for writing is not read again whole.
 */
export function endOfLastLine(fd: number): number {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = fstatSync(fd).size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - start, start);
    if (n === 0) return 0; // shorter than it said: nothing more to read
    const at = chunk.subarray(0, n).lastIndexOf(0x0a);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

/** The whole of a regular file (see `openRegular`). */
export function readRegular(path: string): Buffer {
  const fd = openRegular(path, "read");
  try {
    return readFrom(fd);
  } finally {
    closeSync(fd);
  }
}
