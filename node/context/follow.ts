/**
 * The files a thread follows, and what a send tells the agent of them. A file given with `@file:`
 * is followed from then on: each later send carries what changed since its last copy sent (a
 * diff when that is smaller than the file, else the file), nothing when unchanged, and `@drop:`
 * (or the file's end) stops it. Never by changing earlier messages: the prompt cache holds.
 *
 * The state is read from the history itself (the blocks sent, blocks.ts), so it is stored with
 * the thread, survives a restart and is inherited by a fork (a fork at an earlier message
 * follows what was followed there) without any record of its own.
 */
import { applyPatch, createTwoFilesPatch } from "diff";
import type { History } from "../core/history.ts";
import type { Entry } from "../core/native.ts";
import { type ContextItem, distinctItems, fileOf, readContextBlock, writeContextBlock } from "./blocks.ts";

/** The files followed after a history: path → the text last sent (null when it cannot be known: the next change sends it whole). */
export type Followed = ReadonlyMap<string, string | null>;

/** A followed file as it is when a message is sent: its text (a modified buffer's when `unsaved`), or why it is gone. */
export type FollowedCopy =
  | { readonly type: "text"; readonly path: string; readonly text: string; readonly unsaved: boolean }
  | { readonly type: "gone"; readonly path: string; readonly why: string };

/** What a send carries besides its text: resolved before it is dispatched (reading files and the editor is IO). */
export type SendContext = {
  /** The mentions' items, in the order written. */
  readonly items: readonly ContextItem[];
  /** The files followed before this send, as they are now. */
  readonly followed: readonly FollowedCopy[];
};

const NOTHING: Followed = new Map();

/** The state after an entry, for the last entries asked about: a longer history starts from there. */
const after = new WeakMap<Entry, Followed>();

/** The files followed after `history` (in the order first mentioned). */
export function followedAfter(history: History): Followed {
  const pending: Entry[] = [];
  let state = NOTHING;
  for (let i = history.length - 1; i >= 0; i--) {
    const entry = history.at(i);
    const known = after.get(entry);
    if (known) {
      state = known;
      break;
    }
    pending.push(entry);
  }
  for (let j = pending.length - 1; j >= 0; j--) state = step(state, pending[j]!);
  const last = history.last();
  if (last) after.set(last, state);
  return state;
}

function step(state: Followed, entry: Entry): Followed {
  if (entry.message.role !== "user") return state;
  let next: Map<string, string | null> | null = null;
  for (const block of entry.message.content) {
    if (block.type !== "text") continue;
    const item = readContextBlock(block.text);
    if (!item || fileOf(item) === null) continue;
    next ??= new Map(state);
    apply(next, item);
  }
  return next ?? state;
}

function apply(state: Map<string, string | null>, item: ContextItem): void {
  switch (item.kind) {
    case "file":
      state.set(item.path, item.text);
      return;
    case "file-diff": {
      const last = state.get(item.path);
      const patched = last == null ? false : applyPatch(last, item.diff);
      state.set(item.path, patched === false ? null : patched);
      return;
    }
    case "unfollow":
      state.delete(item.path);
      return;
    default:
      return;
  }
}

/**
 * The context blocks of a send made after `history`: the mentions' items, then each followed file
 * that changed since its last copy and was not mentioned again, each item once.
 */
export function contextBlocks(history: History, context: SendContext): string[] {
  const followed = followedAfter(history);
  const mentioned = new Set(context.items.map(fileOf).filter((p) => p !== null));
  const changes: ContextItem[] = [];
  for (const copy of context.followed) {
    if (mentioned.has(copy.path) || !followed.has(copy.path)) continue;
    const change = changeOf(followed.get(copy.path) ?? null, copy);
    if (change) changes.push(change);
  }
  return distinctItems([...context.items, ...changes]).map(writeContextBlock);
}

/** What the agent is told of one followed file: nothing when unchanged, a diff when shorter than the file, else the file. */
function changeOf(last: string | null, copy: FollowedCopy): ContextItem | null {
  if (copy.type === "gone") return { kind: "unfollow", path: copy.path, why: copy.why };
  if (copy.text === last) return null;
  const whole: ContextItem = { kind: "file", path: copy.path, text: copy.text, unsaved: copy.unsaved, changed: true };
  if (last === null) return whole;
  const diff = createTwoFilesPatch(`a/${copy.path}`, `b/${copy.path}`, last, copy.text, undefined, undefined, { context: 3 }).replace(
    /^=+\n/,
    "",
  );
  return diff.length < copy.text.length ? { kind: "file-diff", path: copy.path, diff, unsaved: copy.unsaved } : whole;
}
