/**
 * What each mention becomes: one resolver per name (mention-names.ts), each saying what it reads
 * of the editor (asked for in one call per send) and turning its mention into context items. A
 * new mention is a new entry here; nothing else asks which mention it is.
 */
import type { Environment } from "../tools/environment.ts";
import type { ContextItem } from "./blocks.ts";
import type { Diagnostic, EditorFacts, EditorNeed, Located, QuickfixEntry } from "./editor.ts";
import { textOf } from "./editor.ts";
import { type ContextLimits, type FilePlace, fileName, isGlob, matchGlob, placeOf, readText } from "./files.ts";
import type { Followed } from "./follow.ts";
import { type DiffOf, gitDiff } from "./git.ts";
import type { MentionName } from "./mention-names.ts";

/** What a resolver may read: the thread's environment, the editor's facts, the files followed. */
export type ResolveScope = {
  readonly environment: Environment;
  readonly editor: EditorFacts;
  readonly limits: ContextLimits;
  readonly followed: Followed;
  /** The project's files (listed once per send, when a glob asks). */
  readonly projectFiles: () => Promise<readonly string[]>;
  /** Where the files outside the environment the user approved for this send lead (FilePlace.target). */
  readonly approved: ReadonlySet<string>;
  /** A file outside the environment named alone and not approved: the send waits for the user's answer. */
  readonly askApproval: (place: FilePlace) => void;
  /** Something the user is told once the send goes (a glob left a file out), not an error. */
  readonly tell: (notice: string) => void;
};

export type Resolver = {
  readonly needs: readonly EditorNeed[];
  /** The mention's items; throws a message for the user when it cannot be resolved. */
  resolve(argument: string | null, scope: ResolveScope): Promise<readonly ContextItem[]>;
};

/** The source window's buffer, or the error that says there is none. */
function sourceOf(editor: EditorFacts) {
  if (!editor.source) throw new Error("no window to take a buffer from: go to a file's window, then back to tine's input");
  return editor.source;
}

/** A buffer's name as the thread names files (relative to the root), or `[No Name]`. */
const bufferName = (environment: Environment, name: string) => (name ? fileName(environment, name) : "[No Name]");

/** A location and the lines around it, the line itself marked. */
function locatedLines(at: Located): string[] {
  const width = String(at.first + at.lines.length - 1).length;
  return at.lines.map((line, i) => `  ${at.first + i === at.lnum ? ">" : " "} ${String(at.first + i).padStart(width)} | ${line}`);
}

function diagnosticsText(environment: Environment, all: readonly Diagnostic[]): string {
  if (all.length === 0) return "(no diagnostics)";
  return all
    .map((d) =>
      [
        `${bufferName(environment, d.name)}:${d.lnum}:${d.col}: ${d.severity}${d.source ? ` [${d.source}]` : ""} ${d.message.replace(/\n/g, "\n    ")}`,
        ...locatedLines(d),
      ].join("\n"),
    )
    .join("\n\n");
}

function quickfixText(environment: Environment, all: readonly QuickfixEntry[]): string {
  if (all.length === 0) return "(the quickfix list is empty)";
  return all
    .map((q) =>
      [
        `${q.name ? `${bufferName(environment, q.name)}:${q.lnum}:${q.col}:` : ""}${q.type ? ` ${q.type}:` : ""} ${q.text}`.trim(),
        ...locatedLines(q),
      ].join("\n"),
    )
    .join("\n");
}

function gitResolver(of: (argument: string | null) => DiffOf, mention: (argument: string | null) => string): Resolver {
  return {
    needs: [],
    resolve: async (argument, { environment, limits }) => [
      { kind: "git-diff", mention: mention(argument), text: await gitDiff(environment, of(argument), limits) },
    ],
  };
}

/** A glob's files that stay inside the environment: one that leads outside (a link) is left out, and the user told. */
function insideOnly(names: readonly string[], { environment, tell }: ResolveScope): FilePlace[] {
  const places = names.map((name) => placeOf(environment, name));
  const inside = places.filter((p) => p.inside);
  const outside = places.filter((p) => !p.inside);
  if (outside.length === 0) return inside;
  const named = outside.map((p) => p.name).join(", ");
  if (inside.length === 0)
    throw new Error(`matches only files that lead outside the project (${named}): name one alone to send it (you are asked first)`);
  tell(`left out ${outside.map((p) => `${p.name}: it leads outside the project (to ${p.target})`).join("; ")}`);
  return inside;
}

const needsArgument = (argument: string | null, what: string): string => {
  if (!argument) throw new Error(`needs ${what}`);
  return argument;
};

export const RESOLVERS: { readonly [N in MentionName]: Resolver } = {
  file: {
    needs: ["modified"],
    async resolve(argument, scope) {
      const { environment, editor, limits, projectFiles, approved } = scope;
      const pattern = needsArgument(argument, "a path: @file:<path> (globs too: @file:src/**/*.ts)");
      let places: FilePlace[];
      if (isGlob(pattern)) places = insideOnly(matchGlob(pattern, await projectFiles(), limits), scope);
      else {
        const place = placeOf(environment, fileName(environment, pattern));
        if (!place.inside && !approved.has(place.target)) {
          scope.askApproval(place);
          return [];
        }
        places = [place];
      }
      const items: ContextItem[] = [];
      for (const place of places) {
        const { text, unsaved } = await readText(environment, place, editor, limits);
        items.push({ kind: "file", path: place.name, text, unsaved, changed: false });
      }
      return items;
    },
  },
  buf: {
    needs: ["source"],
    resolve: async (_, { environment, editor }) => {
      const source = sourceOf(editor);
      const name = bufferName(environment, source.name);
      return [{ kind: "buffer", name, text: textOf(source), cursor: source.cursor, unsaved: source.modified }];
    },
  },
  bufs: {
    needs: ["buffers"],
    resolve: async (_, { environment, editor }) => {
      // An empty buffer without a name is the one Neovim starts with: nothing the user means.
      const buffers = editor.buffers.filter((b) => b.name || b.text !== "");
      if (buffers.length === 0) throw new Error("no listed, loaded buffer holds anything");
      return buffers.map((b) => ({
        kind: "buffer",
        name: bufferName(environment, b.name),
        text: textOf(b),
        cursor: 0,
        unsaved: b.modified,
      }));
    },
  },
  diag: {
    needs: ["source", "diagnostics"],
    resolve: async (_, { environment, editor }) => [
      {
        kind: "diagnostics",
        scope: bufferName(environment, sourceOf(editor).name),
        count: editor.diagnostics.length,
        text: diagnosticsText(environment, editor.diagnostics),
      },
    ],
  },
  "diag!": {
    needs: ["workspace-diagnostics"],
    resolve: async (_, { environment, editor }) => [
      { kind: "diagnostics", scope: "workspace", count: editor.diagnostics.length, text: diagnosticsText(environment, editor.diagnostics) },
    ],
  },
  qf: {
    needs: ["quickfix"],
    resolve: async (_, { environment, editor }) => [
      { kind: "quickfix", count: editor.quickfix.length, text: quickfixText(environment, editor.quickfix) },
    ],
  },
  diff: gitResolver(
    (rev) => (rev === null ? { type: "unstaged" } : { type: "rev", rev }),
    (rev) => (rev === null ? "@diff" : `@diff:${rev}`),
  ),
  staged: gitResolver(
    () => ({ type: "staged" }),
    () => "@staged",
  ),
  drop: {
    needs: [],
    async resolve(argument, { environment, followed }) {
      const path = fileName(environment, needsArgument(argument, "a path: @drop:<path>, one of the files followed"));
      if (!followed.has(path))
        throw new Error(`${path} is not followed${followed.size ? ` (followed: ${[...followed.keys()].join(", ")})` : ": no file is"}`);
      return [{ kind: "unfollow", path, why: "dropped with @drop" }];
    },
  },
};
