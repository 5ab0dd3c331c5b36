/**
 * What the user chose of the settings a thread's program offers for its conversation (an ACP
 * agent's mode, model, effort: `:Tine model` in its thread), by the program's own ids: setting
 * id → chosen value. Kept with the thread (a `settings` record) and set again on its session
 * after a restart and on its forks' sessions. Read back from a file it is checked entry by entry:
 * short printable ids and values only, never more than a few (they only ever go back to the
 * program that offered them, as JSON strings).
 */

export type AgentChoices = { readonly [settingId: string]: string };

/** At most this many settings are kept (an agent offers a handful). */
export const MAX_CHOICES = 32;

const PRINTABLE = /^[\x20-\x7e]{1,200}$/;

/** Whether `s` may be a setting's id or value as tine keeps it. */
export const isChoiceText = (s: unknown): s is string => typeof s === "string" && PRINTABLE.test(s);

/** `v` as choices, or null when it is not (a file's; the agent's ids are checked the same way when chosen). */
export function checkAgentChoices(v: unknown): AgentChoices | null {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const entries = Object.entries(v);
  if (entries.length > MAX_CHOICES) return null;
  const out: Record<string, string> = {};
  for (const [id, value] of entries) {
    if (!isChoiceText(id) || !isChoiceText(value) || id === "__proto__") return null;
    out[id] = value;
  }
  return out;
}

export function sameChoices(a: AgentChoices | null, b: AgentChoices | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
