/**
 * What the offline demo (demo.ts) answers, chosen from the request's messages alone: the demo's
 * script, apart from its server so it can be tested. It answers what the user typed, never a note
 * of tine's that went with it (chat/names.ts isTyped says which is which, for tine and the demo).
 */

import { isTyped } from "../../node/chat/names.ts";
import { type ContextItem, readContextBlock } from "../../node/context/blocks.ts";
import type { Part } from "./script.ts";

export type DemoBlock = { type: string; text?: string; name?: string; is_error?: boolean };
export type DemoMessage = { role: string; content: string | DemoBlock[] };

const blocks = (m: DemoMessage): DemoBlock[] => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);

/** The demo's answer to a request's messages; `nextReply`: the number of this reply to a message (in its text and tool ids). */
export function demoReply(messages: readonly DemoMessage[], nextReply: () => number): Part[] {
  const last = blocks(messages[messages.length - 1]!);
  const texts = last.flatMap((b) => (b.type === "text" && b.text !== undefined ? [b.text] : []));
  // Tool results alone: a word on them. With a message typed (a fork's prompt after its source's tools), the message is answered.
  if (last.some((b) => b.type === "tool_result") && !texts.some(isTyped)) return afterTool(blocks(messages[messages.length - 2]!), last);
  const items = texts.flatMap((t) => readContextBlock(t) ?? []);
  // What was typed last (a fork's prompt may follow its source's message), without its mentions.
  const prompt = withoutMentions(texts.filter(isTyped).at(-1) ?? "")
    .replace(/\s+/g, " ")
    .trim();
  const file = items.find((i): i is Extract<ContextItem, { kind: "file" }> => i.kind === "file" && i.text !== "");
  return file ? editOf(file, prompt, nextReply()) : listing(prompt, nextReply());
}

const withoutMentions = (text: string) => text.replace(/(^|\s)@\S+/g, " ");

/** A title from the prompt a title request carries (`<user>…</user>`, node/providers/title.ts): its first words, without mentions. */
export function titleOf(messages: readonly DemoMessage[]): string {
  const asked = blocks(messages[0]!)
    .map((b) => b.text ?? "")
    .join("\n");
  const prompt = /<user>\n([\s\S]*?)\n<\/user>/.exec(asked)?.[1] ?? "";
  const words = withoutMentions(prompt)
    .trim()
    .split(/\s+/)
    .slice(0, 6)
    .join(" ")
    .replace(/[?.!]$/, "");
  return words ? words[0]!.toUpperCase() + words.slice(1) : "Offline demo thread";
}

/** The default answer: a streamed reply, then `ls`, which waits for approval. */
function listing(prompt: string, calls: number): Part[] {
  return [
    { thinking: "The user wants a demo. I'll answer and show a tool call.", signature: "demo-signature" },
    {
      text: `(offline demo, reply ${calls}) You said: "${prompt}".\n\nThis reply is streamed by tine's local mock of the Messages API, so you can try everything without an API key. Next I will list the files here with a shell command; it waits for your approval: press **a** on it to approve or **d** to deny (from the input, **Ctrl-y** or **Ctrl-n** in Normal mode).`,
      chunk: 4,
    },
    { toolUse: { id: `toolu_demo_${calls}`, name: "bash_command", input: { command: "ls" } } },
  ];
}

/** A file given: its last line is followed by the prompt as a line of its own (the whole file when that line is not unique). */
function editOf(file: { path: string; text: string }, prompt: string, calls: number): Part[] {
  const lines = file.text.replace(/\n$/, "").split("\n");
  const lastLine = lines[lines.length - 1]!;
  const find = file.text.split(lastLine).length === 2 ? lastLine : file.text.replace(/\n$/, "");
  const line = `${lastLine.match(/^\s*[-*] /)?.[0] ?? ""}${prompt || "a line from the offline demo"}`;
  return [
    { text: `(offline demo) I'll add "${prompt}" to ${file.path}.`, chunk: 4 },
    { toolUse: { id: `toolu_demo_${calls}`, name: "edit_file", input: { path: file.path, find, replace: `${find}\n${line}` } } },
  ];
}

/** After the tools ran (or were denied: their results are errors): a word on what they did. */
function afterTool(assistant: readonly DemoBlock[], results: readonly DemoBlock[]): Part[] {
  const edited = assistant.some((b) => b.type === "tool_use" && b.name === "edit_file");
  const refused = results.some((b) => b.type === "tool_result" && b.is_error === true);
  const text = refused
    ? edited
      ? "The edit was not made: you denied it (or it failed), so the file is as it was. Send another message to try again."
      : "The command did not run: you denied it (or it failed). Try forking this thread: type `@fork what if…` in the input, or press F on any message."
    : edited
      ? "Done. In a fork of its own worktree (`@fork --worktree …`), **gP** promotes the fork: its code is merged back into your project."
      : "That is the project directory. Try forking this thread: type `@fork what if…` in the input, or press F on any message.";
  return [{ text, chunk: 3 }];
}
