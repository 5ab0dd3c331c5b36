/**
 * The mentions a message may carry, by name, with the line completion shows for each. The one
 * list both the parser of mentions and their completion read; a new mention starts here.
 */

export type MentionName = "file" | "buf" | "bufs" | "diag" | "diag!" | "qf" | "diff" | "staged" | "drop";

export type MentionSpec = {
  readonly name: MentionName;
  /** Whether it takes an argument after a colon (`@file:<path>`, `@diff:<rev>`), and whether it must. */
  readonly argument: "none" | "optional" | "required";
  /** What completion shows beside it. */
  readonly info: string;
};

export const MENTIONS: readonly MentionSpec[] = [
  { name: "file", argument: "required", info: "a file's content (globs too); followed after it is sent" },
  { name: "buf", argument: "none", info: "the buffer you came from: its unsaved text, name and cursor line" },
  { name: "bufs", argument: "none", info: "every listed, loaded buffer" },
  { name: "diag", argument: "none", info: "the diagnostics of the buffer you came from, with the lines around them" },
  { name: "diag!", argument: "none", info: "the diagnostics of the whole workspace" },
  { name: "qf", argument: "none", info: "the quickfix list's entries with the lines they point at" },
  { name: "diff", argument: "optional", info: "unstaged changes (git diff), or @diff:<rev> against a revision" },
  { name: "staged", argument: "none", info: "staged changes (git diff --staged)" },
  { name: "drop", argument: "required", info: "stop following a file given with @file:" },
];
