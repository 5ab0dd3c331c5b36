/** What a `send` from the input buffer means: `@`-commands are recognised here, at the entry. */
export type SendCommand =
  | { type: "fork"; prompt: string }
  /** `@bg <prompt>`: a fork that runs without a window and reports back when its turn ends. */
  | { type: "background-fork"; prompt: string }
  | { type: "message"; text: string };

const COMMAND = /^\s*@(fork|bg)(?=\s|$)\s*([\s\S]*)$/;

export function parseSend(text: string): SendCommand {
  const command = COMMAND.exec(text);
  if (command?.[1] === "fork") return { type: "fork", prompt: command[2]!.trim() };
  if (command?.[1] === "bg") return { type: "background-fork", prompt: command[2]!.trim() };
  return { type: "message", text: text.trim() };
}
