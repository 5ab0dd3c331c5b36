/**
 * What can be typed in a thread's input, as `g?` there lists it beside the keys: the `@`-commands
 * (core/send-commands.ts) and the mentions (context/mention-names.ts), each read from its one list.
 */

import { MENTIONS } from "../context/mention-names.ts";
import { SEND_COMMANDS } from "../core/send-commands.ts";

export type TypedHelp = { usage: string; info: string };

export function inputHelp(): TypedHelp[] {
  const mentions = MENTIONS.map((m) => ({
    usage: `@${m.name}${m.argument === "none" ? "" : m.argument === "required" ? ":<…>" : "[:<…>]"}`,
    info: m.info,
  }));
  return [...Object.values(SEND_COMMANDS), ...mentions];
}
