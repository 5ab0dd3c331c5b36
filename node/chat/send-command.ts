/** What a `send` from the input buffer means: `@`-commands are recognised here, at the entry. */
export type SendCommand = { type: "fork"; prompt: string } | { type: "message"; text: string };

const FORK = /^\s*@fork(?=\s|$)\s*([\s\S]*)$/;

export function parseSend(text: string): SendCommand {
  const fork = FORK.exec(text);
  if (fork) return { type: "fork", prompt: fork[1]!.trim() };
  return { type: "message", text: text.trim() };
}
