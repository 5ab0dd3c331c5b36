/**
 * Project instructions: the files (the user's own AGENTS.md, then the project's AGENTS.md and
 * CLAUDE.md, or those `instructions.files` names) whose text a thread sends in its system prompt
 * after tine's own. Read once, when a thread starts, each capped at `instructions.max_bytes`; what
 * was read is kept with the thread (its runner spec, its stored header), so its requests never
 * change while it lives, after a restart or in a fork. The one module that finds, reads and caps
 * them, frames them for the system prompt (each file in a block its text cannot end), and says
 * what was read.
 *
 * A file named inside the project is the project's, and a cloned project can make it a link to
 * anything (/proc/self/environ, ~/.aws/credentials): it is read only when, links resolved, it is
 * inside the project. A file the user names outside the project (their own config folder's, an
 * absolute path) is theirs, read wherever it leads.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { InstructionFile, ThreadInstructions } from "../core/runner-spec.ts";
import { sizeOf } from "../tools/byte-size.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { isOpenedAt, kindOf } from "../util/regular-file.ts";
import { below, shownPath as shownPathIn } from "../util/shown-path.ts";
import { attribute, neutralised, tagsOf } from "../util/tagged-text.ts";

/** The `instructions` option: the files to read (relative to the project root, or absolute), each capped; false: none. */
export type InstructionsOption = false | { readonly files: readonly string[]; readonly max_bytes: number };

/** A configured file as it is now, for `:checkhealth tine` and for a thread's start. */
export type FoundFile =
  | InstructionFile
  | { readonly path: string; readonly state: "missing" }
  /** The same file as an earlier one (CLAUDE.md a link to AGENTS.md): sent once, under the earlier name. */
  | { readonly path: string; readonly state: "same"; readonly as: string };

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The absolute path a configured name means: `~` is the home folder, `$XDG_CONFIG_HOME` (or
 * `${XDG_CONFIG_HOME}`) its value, or `~/.config` when it is unset or not absolute (as the XDG
 * spec says); a relative path is under the project root.
 */
export function instructionPath(name: string, root: string, env: Env = process.env): string {
  const home = env["HOME"] || homedir();
  const xdg = env["XDG_CONFIG_HOME"];
  const config = xdg && isAbsolute(xdg) ? xdg : join(home, ".config");
  let path = name.replace(/^\$(XDG_CONFIG_HOME|\{XDG_CONFIG_HOME\})(?=\/|$)/, () => config);
  if (path === "~" || path.startsWith("~/")) path = join(home, path.slice(1));
  return isAbsolute(path) ? path : resolve(root, path);
}

/** How a path is shown: relative to the project root inside it, `~/…` inside the home folder, else whole. */
export function shownPath(path: string, root: string, env: Env = process.env): string {
  return shownPathIn(path, root, env["HOME"] || homedir());
}

/** Every configured file as it is now, in the configured order (what a thread starting now would read). */
export function findInstructions(option: InstructionsOption, root: string, env: Env = process.env): FoundFile[] {
  return read(option, root, env).map((f) => f.found);
}

/** The instructions a thread starting now sends, or null when there are none to speak of (turned off, or no file there). */
export function readInstructions(option: InstructionsOption, root: string, env: Env = process.env): ThreadInstructions | null {
  const found = read(option, root, env);
  const files: InstructionFile[] = [];
  const parts: InstructionPart[] = [];
  for (const { found: f, part } of found) {
    switch (f.state) {
      case "missing":
      case "same":
        continue;
      case "read":
      case "cut":
      case "unreadable":
      case "outside":
        files.push(f);
        if (part) parts.push(part);
        continue;
      default:
        assertUnreachable(f);
    }
  }
  return files.length ? { text: instructionsPrompt(parts), files } : null;
}

/** The banner's line for what a thread started with (`instructions: AGENTS.md, CLAUDE.md`), or null for none. */
export function instructionsLine(instructions: ThreadInstructions | undefined): string | null {
  if (!instructions?.files.length) return null;
  const named = instructions.files.map((f) => {
    switch (f.state) {
      case "read":
        return f.path;
      case "cut":
        return `${f.path} (cut: ${sizeOf(f.size)}, over instructions.max_bytes)`;
      case "unreadable":
        return `${f.path} (could not be read: ${f.why})`;
      case "outside":
        return `${f.path} (not read: it links to ${f.to}, outside the project)`;
      default:
        return assertUnreachable(f);
    }
  });
  return `instructions: ${named.join(", ")}`;
}

const INSTRUCTIONS_TAG = tagsOf("instructions");

/** One instruction file's text as it goes in the system prompt; `cut`: what the note after it says was left out. */
export type InstructionPart = {
  readonly file: string;
  readonly text: string;
  readonly cut?: { readonly size: string; readonly kept: string };
};

/**
 * The project instructions as they follow tine's own system prompt: each file in a block naming
 * it, in the order read (a later file is the more specific). "" when no file has any text. A
 * file's text is the project's, not tine's: it cannot end its block and forge another file's (or
 * the user's own), as a report cannot end its block.
 */
export function instructionsPrompt(parts: readonly InstructionPart[]): string {
  const blocks = parts.flatMap((p) => {
    const note = p.cut ? `\n[tine: the file is ${p.cut.size}; only its first ${p.cut.kept} are here (instructions.max_bytes)]` : "";
    const text = neutralised(p.text.trim(), INSTRUCTIONS_TAG);
    return text || note ? [`<instructions file="${attribute(p.file, INSTRUCTIONS_TAG)}">\n${text}${note}\n</instructions>`] : [];
  });
  if (!blocks.length) return "";
  return [
    "[tine] The user's instruction files for this project follow, as they were when this thread started. Follow them; " +
      "where they differ from the above, they win, and where they differ from each other, the later file wins.",
    ...blocks,
  ].join("\n\n");
}

type Read = { readonly found: FoundFile; readonly part?: InstructionPart };

function read(option: InstructionsOption, root: string, env: Env): Read[] {
  if (option === false) return [];
  const seen = new Map<string, string>();
  const realRoot = realOr(root);
  return option.files.map((name) => {
    const abs = instructionPath(name, root, env);
    const path = shownPath(abs, root, env);
    let file: { bytes: Buffer; size: number; id: string };
    try {
      const real = realpathSync.native(abs);
      if (below(root, abs) && !below(realRoot, real)) return { found: { path, state: "outside", to: shownPath(real, root, env) } };
      // The path checked, not the name: a link swapped in since is not followed (see readCapped).
      file = readCapped(real, option.max_bytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { found: { path, state: "missing" } };
      return { found: { path, state: "unreadable", why: reason(error) } };
    }
    const earlier = seen.get(file.id);
    if (earlier !== undefined) return { found: { path, state: "same", as: earlier } };
    seen.set(file.id, path);
    const text = utf8(file.bytes);
    if (file.size <= option.max_bytes) return { found: { path, state: "read" }, part: { file: path, text } };
    return {
      found: { path, state: "cut", size: file.size },
      part: { file: path, text, cut: { size: sizeOf(file.size), kept: sizeOf(option.max_bytes) } },
    };
  });
}

/** The project root with its links resolved (a root under a linked /tmp is still itself), or as given when it cannot be. */
function realOr(root: string): string {
  try {
    return realpathSync.native(root);
  } catch {
    return root;
  }
}

/** Why a file could not be read, in a few words (no path: the banner names it). */
function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === "EACCES" || e.code === "EPERM") return "permission denied";
  if (e.code === "ENOTREG" || e.code === "EMOVED") return e.message;
  return e.code ?? e.message;
}

/**
 * At most `max` bytes of a regular file, its whole size, and what tells it from another name for
 * the same file. Opened without blocking (a FIFO named AGENTS.md must not hang the host); anything
 * but a regular file is refused. `path` has its links resolved already (`read` checked where it
 * leads): a link in its place now is refused, not followed (O_NOFOLLOW), and so is a file reached
 * through a folder on the path that became a link since (`isOpenedAt`: `docs/AGENTS.md` with
 * `docs` swapped for a link out of the project). Exported for its tests.
 */
export function readCapped(path: string, max: number): { bytes: Buffer; size: number; id: string } {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    if (!isOpenedAt(fd, path))
      throw Object.assign(new Error("it changed as it was opened (a folder on its path became a link)"), { code: "EMOVED" });
    const info = fstatSync(fd);
    if (!info.isFile()) throw Object.assign(new Error(`it is ${kindOf(info)}`), { code: "ENOTREG" });
    // Read to the end or one byte past the cap, whatever stat says (/proc says 0; a file may grow).
    const parts: Buffer[] = [];
    let got = 0;
    while (got <= max) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, max + 1 - got));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      parts.push(chunk.subarray(0, n));
      got += n;
    }
    const bytes = Buffer.concat(parts, got);
    const size = got > max ? Math.max(info.size, got) : got;
    return { bytes: bytes.subarray(0, Math.min(got, max)), size, id: `${info.dev}:${info.ino}` };
  } finally {
    closeSync(fd);
  }
}

/** The bytes as text: a character cut by the cap is left out whole, a byte-order mark dropped. */
function utf8(bytes: Buffer): string {
  let end = bytes.length;
  // Back to the first byte of the last character; keep it only if all its bytes are here.
  let start = end;
  while (start > 0 && start > end - 4 && (bytes[start - 1]! & 0xc0) === 0x80) start--;
  if (start > 0) {
    const lead = bytes[start - 1]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (end - (start - 1) < need) end = start - 1;
  }
  const text = bytes.subarray(0, end).toString("utf8");
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}
