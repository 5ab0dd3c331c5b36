/**
 * The labels a user puts on a thread or on one of its messages (`L`): a few words to find them
 * again, shown in the list and at the message. One value per thread, replaced on each change (the
 * store compares it by identity). A label belongs to the thread it was put on: a fork starts
 * with none.
 */

/** The longest label, in characters: a longer one is cut, ending in "…". */
export const LABEL_MAX_CHARS = 40;

export type Labels = {
  /** The thread's own label, or null. */
  readonly thread: string | null;
  /** Labels of its messages, by message index. */
  readonly messages: ReadonlyMap<number, string>;
};

export const NO_LABELS: Labels = Object.freeze({ thread: null, messages: new Map<number, string>() });

/** Where a label goes: the thread (null) or the message with that index. */
export type LabelTarget = number | null;

/** A label as typed, made one short line ("" removes it). */
export function cleanLabel(text: string): string {
  const line = text
    .replace(/\p{Cc}/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  return line.length > LABEL_MAX_CHARS ? `${line.slice(0, LABEL_MAX_CHARS - 1).trimEnd()}…` : line;
}

/** `labels` with `target` labelled `text` ("" removes the label). */
export function withLabel(labels: Labels, target: LabelTarget, text: string): Labels {
  if (target === null) return { ...labels, thread: text || null };
  const messages = new Map(labels.messages);
  if (text) messages.set(target, text);
  else messages.delete(target);
  return { ...labels, messages };
}

/** Labels of messages the history no longer holds (a clean-up, a promote) go with them. */
export function withinHistory(labels: Labels, length: number): Labels {
  // Asked after every message a thread handles (each streamed delta): nothing is made unless a label goes.
  let past = false;
  for (const i of labels.messages.keys()) past ||= i >= length;
  if (!past) return labels;
  return { ...labels, messages: new Map([...labels.messages].filter(([i]) => i < length)) };
}

/** Whether two label sets hold the same labels. */
export function sameLabels(a: Labels, b: Labels): boolean {
  if (a === b) return true;
  if (a.thread !== b.thread || a.messages.size !== b.messages.size) return false;
  for (const [i, text] of a.messages) if (b.messages.get(i) !== text) return false;
  return true;
}
