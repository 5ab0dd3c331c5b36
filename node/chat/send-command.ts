/** What a `send` from the input buffer means: `@`-commands are recognised here, at the entry. */
export type SendCommand =
  | { type: "fork"; prompt: string }
  /** `@bg <prompt>`: a fork that runs without a window and reports back when its turn ends. */
  | { type: "background-fork"; prompt: string }
  /** `@handoff <goal>`: the agent writes a prompt for a fresh thread; this one returns to how it was. */
  | { type: "handoff"; goal: string }
  /** `@compact [instructions]`: a new thread under this one opens with the model's summary of it; this one stays whole. */
  | { type: "compact"; instructions: string }
  /** `@now <text>`: while the agent works, the text goes with the next tool results (steering). */
  | { type: "now"; text: string }
  | { type: "message"; text: string };

const COMMAND = /^\s*@(fork|bg|handoff|compact|now)(?=\s|$)\s*([\s\S]*)$/;

export function parseSend(text: string): SendCommand {
  const command = COMMAND.exec(text);
  if (command?.[1] === "fork") return { type: "fork", prompt: command[2]!.trim() };
  if (command?.[1] === "bg") return { type: "background-fork", prompt: command[2]!.trim() };
  if (command?.[1] === "handoff") return { type: "handoff", goal: command[2]!.trim() };
  if (command?.[1] === "compact") return { type: "compact", instructions: command[2]!.trim() };
  if (command?.[1] === "now") return { type: "now", text: command[2]!.trim() };
  return { type: "message", text: text.trim() };
}
