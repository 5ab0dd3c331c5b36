/**
 * The one format of context in a request, written and read back here alone: each item is a text
 * block of its own in the user's message,
 *
 *   <context kind="file" path="node/app.ts" lines="556">
 *   …the file's text, verbatim…
 *   </context>
 *
 * The opening tag's attributes say what the item is (escaped as XML attributes); the body is the
 * content as it is (a file is never altered, so the model may quote it in an edit). Reading back
 * (for the display, and for the files followed) takes a whole text block that starts with the
 * opening tag and ends with `\n</context>`; anything else is the user's text.
 *
 * Over 300 lines: writing a block and reading one back must stay in one file, so that the format
 * has one author; the notes for what a message already carries are the same format's.
 */
import { assertUnreachable } from "../util/assert-unreachable.ts";

export type ContextItem =
  /** A file's text (`@file:`, or a followed file that changed more than a diff would say). `unsaved`: a modified buffer's text. */
  | { readonly kind: "file"; readonly path: string; readonly text: string; readonly unsaved: boolean; readonly changed: boolean }
  /** A followed file's changes since its last copy sent, as a unified diff. */
  | { readonly kind: "file-diff"; readonly path: string; readonly diff: string; readonly unsaved: boolean }
  /** A file no longer followed (`@drop:`, deleted, grown too large). */
  | { readonly kind: "unfollow"; readonly path: string; readonly why: string }
  /** A buffer's text (`@buf`, `@bufs`); `cursor`: its cursor's line (1-based), 0 when none is known. */
  | { readonly kind: "buffer"; readonly name: string; readonly text: string; readonly cursor: number; readonly unsaved: boolean }
  /** Diagnostics of one buffer (`scope` its name) or of the workspace (`@diag!`, scope "workspace"). */
  | { readonly kind: "diagnostics"; readonly scope: string; readonly count: number; readonly text: string }
  | { readonly kind: "quickfix"; readonly count: number; readonly text: string }
  /** `git diff` output; `mention`: what asked for it (`@diff`, `@staged`, `@diff:<rev>`). */
  | { readonly kind: "git-diff"; readonly mention: string; readonly text: string }
  /** A mention whose items the message already carries (`@bufs` beside `@buf`): `of` names them, so the user and the model see why it adds nothing. */
  | { readonly kind: "repeat"; readonly mention: string; readonly of: readonly string[] };

export type ContextKind = ContextItem["kind"];
type ItemOf<K extends ContextKind> = Extract<ContextItem, { kind: K }>;
type Attrs = ReadonlyMap<string, string>;

type KindFormat<K extends ContextKind> = {
  /** The attributes after `kind`, in order. */
  attrs(item: ItemOf<K>): readonly (readonly [string, string])[];
  body(item: ItemOf<K>): string;
  /** The item again from its attributes and body; null when they do not fit. */
  read(attrs: Attrs, body: string): ItemOf<K> | null;
  /** Its collapsed line in the display, after `▸ `. */
  label(item: ItemOf<K>): string;
  /** What makes two items the same one: a message carries each once. */
  key(item: ItemOf<K>): string;
  /** What the item is about, as a repeat of it names it (a path, a buffer, a mention). */
  about(item: ItemOf<K>): string;
};

const fmt = (n: number) => n.toLocaleString("en-US");
const plural = (n: number, one: string, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`;
const flag = (attrs: Attrs, name: string) => attrs.get(name) === "true";
const count = (attrs: Attrs, name: string): number | null => {
  const v = Number(attrs.get(name));
  return Number.isInteger(v) && v >= 0 ? v : null;
};
const unsavedNote = (unsaved: boolean) => (unsaved ? ", unsaved" : "");

/** Lines of a text as an editor counts them (a final newline ends the last line, it starts none). */
export function lineCount(text: string): number {
  if (text === "") return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}

/** Lines added and removed by a unified diff (its `+++`/`---` headers not counted). */
function diffStat(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added++;
    else if (line.startsWith("-") && !line.startsWith("---")) removed++;
  }
  return { added, removed };
}

const FORMATS: { readonly [K in ContextKind]: KindFormat<K> } = {
  file: {
    attrs: (i) => [
      ["path", i.path],
      ["lines", String(lineCount(i.text))],
      ...(i.unsaved ? [["unsaved", "true"] as const] : []),
      ...(i.changed ? [["changed", "true"] as const] : []),
    ],
    body: (i) => i.text,
    read: (a, body) => {
      const path = a.get("path");
      return path ? { kind: "file", path, text: body, unsaved: flag(a, "unsaved"), changed: flag(a, "changed") } : null;
    },
    label: (i) => `@file ${i.path}${i.changed ? " changed" : ""} (${plural(lineCount(i.text), "line")}${unsavedNote(i.unsaved)})`,
    key: (i) => i.path,
    about: (i) => i.path,
  },
  "file-diff": {
    attrs: (i) => [["path", i.path], ...(i.unsaved ? [["unsaved", "true"] as const] : [])],
    body: (i) => i.diff,
    read: (a, body) => {
      const path = a.get("path");
      return path ? { kind: "file-diff", path, diff: body, unsaved: flag(a, "unsaved") } : null;
    },
    label: (i) => {
      const { added, removed } = diffStat(i.diff);
      return `@file ${i.path} changed (+${fmt(added)} −${fmt(removed)}${unsavedNote(i.unsaved)})`;
    },
    key: (i) => i.path,
    about: (i) => i.path,
  },
  unfollow: {
    attrs: (i) => [
      ["path", i.path],
      ["why", i.why],
    ],
    body: (i) => `This file is no longer followed (${i.why}): later changes to it are not sent.`,
    read: (a) => {
      const path = a.get("path");
      const why = a.get("why");
      return path && why ? { kind: "unfollow", path, why } : null;
    },
    label: (i) => `@drop ${i.path}: no longer followed (${i.why})`,
    key: (i) => i.path,
    about: (i) => i.path,
  },
  buffer: {
    attrs: (i) => [
      ["name", i.name],
      ["lines", String(lineCount(i.text))],
      ...(i.cursor > 0 ? [["cursor", String(i.cursor)] as const] : []),
      ...(i.unsaved ? [["unsaved", "true"] as const] : []),
    ],
    body: (i) => i.text,
    read: (a, body) => {
      const name = a.get("name");
      return name ? { kind: "buffer", name, text: body, cursor: count(a, "cursor") ?? 0, unsaved: flag(a, "unsaved") } : null;
    },
    label: (i) =>
      `@buf ${i.name} (${plural(lineCount(i.text), "line")}${i.cursor > 0 ? `, cursor on ${fmt(i.cursor)}` : ""}${unsavedNote(i.unsaved)})`,
    key: (i) => i.name,
    about: (i) => i.name,
  },
  diagnostics: {
    attrs: (i) => [
      ["scope", i.scope],
      ["count", String(i.count)],
    ],
    body: (i) => i.text,
    read: (a, body) => {
      const scope = a.get("scope");
      const n = count(a, "count");
      return scope && n !== null ? { kind: "diagnostics", scope, count: n, text: body } : null;
    },
    label: (i) => `${i.scope === "workspace" ? "@diag!" : `@diag ${i.scope}`} (${plural(i.count, "diagnostic")})`,
    key: (i) => i.scope,
    about: (i) => (i.scope === "workspace" ? "@diag!" : `@diag ${i.scope}`),
  },
  quickfix: {
    attrs: (i) => [["count", String(i.count)]],
    body: (i) => i.text,
    read: (a, body) => {
      const n = count(a, "count");
      return n !== null ? { kind: "quickfix", count: n, text: body } : null;
    },
    label: (i) => `@qf (${plural(i.count, "entry", "entries")})`,
    key: () => "",
    about: () => "@qf",
  },
  "git-diff": {
    attrs: (i) => [["mention", i.mention]],
    body: (i) => i.text,
    read: (a, body) => {
      const mention = a.get("mention");
      return mention ? { kind: "git-diff", mention, text: body } : null;
    },
    label: (i) => {
      const files = i.text.split("\n").filter((l) => l.startsWith("diff --git ")).length;
      return `${i.mention} (${files ? plural(files, "file") : "no changes"})`;
    },
    key: (i) => i.mention,
    about: (i) => i.mention,
  },
  repeat: {
    attrs: (i) => [
      ["mention", i.mention],
      // A JSON list: a path may hold any character but a NUL.
      ["of", JSON.stringify(i.of)],
    ],
    body: (i) => `(${nothingNew(i.of)})`,
    read: (a) => {
      const mention = a.get("mention");
      const of = stringList(a.get("of"));
      return mention && of?.length ? { kind: "repeat", mention, of } : null;
    },
    label: (i) => `${i.mention} (${nothingNew(i.of)})`,
    key: (i) => i.mention,
    about: (i) => i.mention,
  },
};

/** A JSON list of strings, or null when the text is not one. */
function stringList(text: string | undefined): string[] | null {
  try {
    const v: unknown = JSON.parse(text ?? "");
    return Array.isArray(v) && v.every((s) => typeof s === "string") ? v : null;
  } catch {
    return null;
  }
}

/** A repeat's reason; a glob's many files are named by the first few. */
function nothingNew(of: readonly string[]): string {
  const named = of.length > 3 ? `${of.slice(0, 3).join(", ")} and ${plural(of.length - 3, "more", "more")}` : of.join(", ");
  return `nothing new: ${named} already included`;
}

/** The format of an item's kind, typed for that item (the table is keyed by kind). */
function formatOf<K extends ContextKind>(item: ItemOf<K>): KindFormat<K> {
  return FORMATS[item.kind as K] as KindFormat<K>;
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;", "\n": "&#10;" };
const UNESCAPES: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(ESCAPES).map(([k, v]) => [v, k]));
const escapeAttr = (v: string) => v.replace(/[&"<>\n]/g, (c) => ESCAPES[c]!);
const unescapeAttr = (v: string) => v.replace(/&(amp|quot|lt|gt|#10);/g, (e) => UNESCAPES[e]!);

const OPEN = "<context ";
const CLOSE = "\n</context>";
const ATTR = / ([a-z-]+)="([^"]*)"/y;

/** The text block that carries `item` in a request. */
export function writeContextBlock(item: ContextItem): string {
  const attrs = [["kind", item.kind] as const, ...formatOf(item).attrs(item)].map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join("");
  return `<context${attrs}>\n${formatOf(item).body(item)}${CLOSE}`;
}

/** The item a text block carries, or null when the block is the user's own text. */
export function readContextBlock(text: string): ContextItem | null {
  if (!text.startsWith(OPEN) || !text.endsWith(CLOSE)) return null;
  const tagEnd = text.indexOf(">\n");
  if (tagEnd === -1) return null;
  const attrs = new Map<string, string>();
  ATTR.lastIndex = "<context".length;
  for (let m = ATTR.exec(text); m; m = ATTR.exec(text)) {
    attrs.set(m[1]!, unescapeAttr(m[2]!));
    if (ATTR.lastIndex === tagEnd) break;
  }
  if (ATTR.lastIndex !== tagEnd) return null;
  const kind = attrs.get("kind");
  if (!kind || !Object.hasOwn(FORMATS, kind)) return null;
  return FORMATS[kind as ContextKind].read(attrs, text.slice(tagEnd + 2, text.length - CLOSE.length));
}

/** The item's collapsed line in the display (`@file node/app.ts (556 lines)`). */
export function contextLabel(item: ContextItem): string {
  return formatOf(item).label(item);
}

/** The lines shown when the item is expanded: its body as sent. */
export function contextBody(item: ContextItem): string {
  return formatOf(item).body(item);
}

/** What makes two items one: the same kind and the same path, buffer, scope or mention. */
export function contextKey(item: ContextItem): string {
  return `${item.kind}\u0000${formatOf(item).key(item)}`;
}

/** A mention's source (`@bufs`, `@file:src/*.ts`) and the items it resolved to. */
export type MentionItems = { readonly mention: string; readonly items: readonly ContextItem[] };

/**
 * The items of one message's mentions, each once: `@buf @bufs` name the current buffer twice,
 * `@file:a.ts @file:*.ts` a file, and `@buf` on a file sent with `@file:` is that file (the same
 * text, read as the user sees it: the file's copy goes, as it is the one followed from then on).
 * A mention left with nothing of its own becomes a `repeat` item, so the display says why.
 */
export function mentionItems(mentions: readonly MentionItems[]): ContextItem[] {
  const files = new Set(mentions.flatMap((m) => m.items.flatMap((i) => (i.kind === "file" ? [i.path] : []))));
  const seen = new Set<string>();
  const out: ContextItem[] = [];
  for (const { mention, items } of mentions) {
    const fresh = items.filter((item) => {
      const key = contextKey(item);
      if (seen.has(key) || (item.kind === "buffer" && files.has(item.name))) return false;
      seen.add(key);
      return true;
    });
    if (items.length && !fresh.length) out.push({ kind: "repeat", mention, of: items.map((i) => formatOf(i).about(i)) });
    out.push(...fresh);
  }
  return distinctItems(out);
}

/** Items in order, each once (the mentions of sends going as one message, the files followed). */
export function distinctItems(items: readonly ContextItem[]): ContextItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = contextKey(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The file an item is about (its copy, its diff, its unfollowing), or null: the files followed are read from these. */
export function fileOf(item: ContextItem): string | null {
  switch (item.kind) {
    case "file":
    case "file-diff":
    case "unfollow":
      return item.path;
    case "buffer":
    case "diagnostics":
    case "quickfix":
    case "git-diff":
    case "repeat":
      return null;
    default:
      return assertUnreachable(item);
  }
}
