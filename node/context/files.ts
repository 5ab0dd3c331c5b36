/**
 * Files as mentions read them: a path as the user wrote it made the thread's name for it
 * (relative to the environment's root when inside it), globs matched over the project's files,
 * and a file's text read through the thread's Environment, or from a modified buffer holding it.
 */
import { isAbsolute, relative, sep } from "node:path";
import picomatch from "picomatch";
import type { Environment } from "../tools/environment.ts";
import type { EditorFacts } from "./editor.ts";
import { textOf } from "./editor.ts";

/** What bounds the context of one send (context_max_bytes, context_max_files, context_git_timeout). */
export type ContextLimits = {
  readonly maxBytes: number;
  readonly maxFiles: number;
  /** The longest one git may take (Neovim waits on a send). */
  readonly gitTimeoutMs: number;
};

/** The name a file goes by in blocks and in the followed set: relative to the root when inside it, else absolute. */
export function fileName(environment: Environment, path: string): string {
  const absolute = environment.resolve(path);
  const rel = relative(environment.root, absolute);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split(sep).join("/") : absolute;
}

export const isGlob = (pattern: string) => picomatch.scan(pattern).isGlob;

/** The project's files matching `pattern` (sorted); an error when none does, or too many. */
export function matchGlob(pattern: string, files: readonly string[], limits: ContextLimits): string[] {
  const matches = picomatch(pattern, { dot: pattern.split("/").some((part) => part.startsWith(".")) });
  const found = files.filter((f) => matches(f));
  if (found.length === 0) throw new Error("matches no file of the project");
  if (found.length > limits.maxFiles)
    throw new Error(`matches ${found.length} files, more than context_max_files (${limits.maxFiles}): narrow it`);
  return found;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Why a file's text cannot be read, in words a user (and the model) can act on. */
export class Unreadable extends Error {
  constructor(
    message: string,
    /** What the files followed say of it when this happens to one. */
    readonly gone: string,
  ) {
    super(message);
  }
}

/**
 * Where a file a mention names is read from, once `..` and symbolic links are resolved (`target`),
 * and whether that is inside the thread's environment: the rule get_file's reads follow
 * (tools/approval.ts), the environment's to say. One outside is sent only when named alone and
 * approved by the user; never from a glob, never as a file followed.
 */
export type FilePlace = { readonly name: string; readonly target: string; readonly inside: boolean };

export function placeOf(environment: Environment, name: string): FilePlace {
  return { name, target: environment.realPath(name), inside: environment.contains(name) };
}

/**
 * A file's text as the user sees it: a modified buffer's, else the file's on disk (at most
 * maxBytes, text only), read at the target its place was judged by: a link put since in its
 * place, or in a folder's on its path, is refused, not followed (an agent's bash works in the same
 * tree while a send waits on its other mentions).
 */
export async function readText(
  environment: Environment,
  place: FilePlace,
  editor: EditorFacts,
  limits: ContextLimits,
): Promise<{ text: string; unsaved: boolean }> {
  const absolute = environment.resolve(place.name);
  const buffer = editor.modified.get(absolute);
  if (buffer) return { text: textOf(buffer), unsaved: true };
  let bytes: Buffer;
  try {
    bytes = await environment.readFile(place.target, { bytes: limits.maxBytes, tool: "a mention (context_max_bytes)" }, "at-real-path");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new Unreadable(`no such file: ${absolute}`, "deleted");
    throw new Unreadable((error as Error).message, "no longer readable");
  }
  if (bytes.includes(0)) throw new Unreadable(`${absolute} is a binary file`, "binary now");
  try {
    return { text: utf8.decode(bytes), unsaved: false };
  } catch {
    throw new Unreadable(`${absolute} is not UTF-8 text`, "binary now");
  }
}
