/**
 * Array edits that cost what they move and never spread an array into a call's arguments: a
 * spread puts every element on the stack, and a reply of a few hundred thousand lines overflows it.
 */

/** Appends every item of `items` to `target`. */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** Replaces `count` items of `target` at `start` with `items` (splice without the spread). */
export function replaceRange<T>(target: T[], start: number, count: number, items: readonly T[]): void {
  const rest = target.slice(start + count);
  target.length = start;
  appendAll(target, items);
  appendAll(target, rest);
}

/** Replaces everything from `offset` to the end of `target` with `items`. */
export function replaceTail<T>(target: T[], offset: number, items: readonly T[]): void {
  target.length = Math.min(target.length, offset);
  appendAll(target, items);
}
