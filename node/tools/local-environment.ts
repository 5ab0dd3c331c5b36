/**
 * The local environment: a thread's tools act on this machine, in one folder (its root). Paths,
 * file reads and writes are here; commands are local-shell's. The one kind of Environment today;
 * the rules that make reads and writes safe live here, not in the tools.
 */
import { constants, realpathSync, type Stats } from "node:fs";
import { lstat, open, readdir, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve, sep } from "node:path";
import { outside } from "../util/outside.ts";
import { isOpenedAt, kindOf } from "../util/regular-file.ts";
import { sizeOf } from "./byte-size.ts";
import { DEFAULT_TOOL_LIMITS, type Environment, type ReadAt, type ReadLimit, type ToolLimits } from "./environment.ts";
import { localGit } from "./local-git.ts";
import { runBash } from "./local-shell.ts";
import { listProjectFiles } from "./project-files.ts";

export function localEnvironment(root: string, limits: ToolLimits = DEFAULT_TOOL_LIMITS): Environment {
  const resolveHere = (path: string) => (isAbsolute(path) ? path : resolve(root, path));
  const contains = (path: string) => isWithin(realish(resolveHere(path)), realish(root));
  const writeRefusal = (path: string) => {
    const target = resolveHere(path);
    // Paths outside the root are the approval's business, not this rule's.
    return isWithin(target, root) && !contains(target) ? `${path} leads outside the working directory through a symbolic link` : null;
  };
  return {
    root,
    resolve: resolveHere,
    contains,
    realPath: (path) => realish(resolveHere(path)),
    readFile: (path, limit, at = "through-links") => readRegularFile(resolveHere(path), path, limit, at),
    writeRefusal,
    async writeFile(path, bytes, mode) {
      const refusal = writeRefusal(path);
      if (refusal) throw new Error(`${refusal}: nothing is written through it`);
      // "wx": never created through a dangling symbolic link, nor over a file that appeared meanwhile.
      await writeFile(resolveHere(path), bytes, { flag: mode === "create" ? "wx" : "w" });
    },
    async listDirectory(path) {
      const entries = await readdir(resolveHere(path), { withFileTypes: true });
      return entries.map((e) => ({ name: e.name, isDirectory: e.isDirectory() }));
    },
    runCommand: (command, signal) => runBash(command, root, limits, signal),
    git: localGit,
    listProjectFiles: (gitTimeoutMs) => listProjectFiles({ root, git: localGit }, gitTimeoutMs),
  };
}

// ---- Paths: inside or out, after `..` and links ----

/** True when `path` is `folder` or below it, as spelled (both absolute); a name like `..x` is below. */
export function isWithin(path: string, folder: string): boolean {
  return !outside(folder, path);
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
export function realish(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    return resolve(realish(parent), path.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
  }
}

// ---- Files: regular files only, read with a size cap ----

/**
 * The bytes of a regular file of at most `limit.bytes`. Devices, FIFOs and sockets are refused
 * before they are opened (`/dev/stdin` is the host's RPC channel; a FIFO would block), and the
 * size is checked again on the open file, so nothing unbounded is ever read. "at-real-path":
 * no link is followed (O_NOFOLLOW for the file, `isOpenedAt` for the folders on its path).
 * Refusals name the file as the caller did (`named`): a tool's result names no folder it cannot keep.
 */
async function readRegularFile(path: string, named: string, limit: ReadLimit, at: ReadAt): Promise<Buffer> {
  const refuse = (info: Stats) => {
    if (!info.isFile()) return new Error(`${named} is ${kindOf(info)}: ${limit.tool} only reads regular files`);
    if (info.size > limit.bytes)
      return new Error(
        `${named} is ${sizeOf(info.size)} (${info.size} bytes), more than ${limit.tool} reads (${sizeOf(limit.bytes)}): read parts of it with bash_command (head, sed -n, grep)`,
      );
    return null;
  };
  const exact = at === "at-real-path";
  const before = refuse(await (exact ? lstat : stat)(path));
  if (before) throw before;
  // O_NONBLOCK: should the path have become a FIFO since the stat, opening it still returns at once.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | (exact ? constants.O_NOFOLLOW : 0)).catch((error) => {
    // Linux says ELOOP for a link under O_NOFOLLOW; the BSDs say EMLINK.
    const code = (error as NodeJS.ErrnoException).code;
    throw exact && (code === "ELOOP" || code === "EMLINK")
      ? new Error(`${named} is a symbolic link: ${limit.tool} only reads regular files`)
      : error;
  });
  try {
    if (exact && !isOpenedAt(handle.fd, path))
      throw new Error(`${named} changed as it was opened (a folder on its path became a link): ${limit.tool} did not read it`);
    const info = await handle.stat();
    const after = refuse(info);
    if (after) throw after;
    // Read to the end, not to the size stat gave: /proc files say 0. One byte more than allowed
    // tells a file that is (or grew) too large.
    const parts: Buffer[] = [];
    let total = 0;
    while (total <= limit.bytes) {
      const room = Math.min(Math.max(info.size + 1, 64 * 1024), limit.bytes + 1 - total);
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(room), 0, room, null);
      if (bytesRead === 0) break;
      parts.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > limit.bytes)
      throw new Error(
        `${named} is more than ${limit.tool} reads (${sizeOf(limit.bytes)}): read parts of it with bash_command (head, sed -n, grep)`,
      );
    return Buffer.concat(parts, total);
  } finally {
    await handle.close();
  }
}
