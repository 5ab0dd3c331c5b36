/**
 * The offline demo behind `npm run try` without an API key: the mock Messages API with a small
 * script, its replies paced so they are seen to stream (`TINE_DEMO_PACE_MS` between deltas, 25
 * by default). It streams a reply, then asks to run a command (which waits for your approval),
 * then comments on the result. A message that gives a file (`@file:TODO.md write the tests`) is
 * answered with an edit adding the rest of the message to that file as a line, so a worktree fork
 * has code to merge back. Prints its URL on stdout. scripts/record.mjs records it for the README.
 */

import { type ContextItem, readContextBlock } from "../../node/context/blocks.ts";
import { type Part, type Reply, response, textReply } from "./script.ts";
import { MockAnthropic } from "./server.ts";

type Message = { role: string; content: string | { type: string; text?: string; name?: string }[] };

const PACE_MS = Number(process.env["TINE_DEMO_PACE_MS"] ?? 25);

void main();

async function main() {
  const mock = await MockAnthropic.start(Number(process.env["TINE_DEMO_PORT"] ?? 0));
  let calls = 0;
  mock.otherwise((req) => {
    const messages = req.body["messages"] as Message[];
    const last = blocks(messages[messages.length - 1]!);
    const texts = last.flatMap((b) => (b.type === "text" && b.text !== undefined ? [b.text] : []));
    // Tool results alone: a word on them. With a message typed (a fork's prompt after its source's tools), the message is answered.
    if (last.some((b) => b.type === "tool_result") && texts.length === 0) return paced(afterTool(blocks(messages[messages.length - 2]!)));
    const items = texts.flatMap((t) => readContextBlock(t) ?? []);
    // What was typed last (a fork's prompt may follow its source's message), without its mentions.
    const prompt = (texts.filter((t) => !readContextBlock(t)).at(-1) ?? "")
      .replace(/(^|\s)@\S+/g, " ")
      .replace(/\s+/g, " ")
      .trim();
    calls++;
    const file = items.find((i): i is Extract<ContextItem, { kind: "file" }> => i.kind === "file" && i.text !== "");
    return paced(file ? editOf(file, prompt, calls) : listing(prompt, calls));
  });
  // The title tine asks for after a thread's first reply (auto_title): its first words typed.
  mock.otherwiseTitle((req) => textReply(titleOf(req.body["messages"] as Message[])));
  process.stdout.write(`${mock.url}\n`);
}

/** A title from the prompt a title request carries (`<user>…</user>`, node/providers/title.ts): its first words, without mentions. */
function titleOf(messages: Message[]): string {
  const asked = blocks(messages[0]!)
    .map((b) => b.text ?? "")
    .join("\n");
  const prompt = /<user>\n([\s\S]*?)\n<\/user>/.exec(asked)?.[1] ?? "";
  const words = prompt
    .replace(/(^|\s)@\S+/g, " ")
    .trim()
    .split(/\s+/)
    .slice(0, 6)
    .join(" ")
    .replace(/[?.!]$/, "");
  return words ? words[0]!.toUpperCase() + words.slice(1) : "Offline demo thread";
}

const blocks = (m: Message) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);

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

/** After the tools ran: a word on what they did. */
function afterTool(assistant: { type: string; name?: string }[]): Part[] {
  const edited = assistant.some((b) => b.type === "tool_use" && b.name === "edit_file");
  const text = edited
    ? "Done. In a fork of its own worktree (`@fork --worktree …`), **gP** promotes the fork: its code is merged back into your project."
    : "That is the project directory. Try forking this thread: type `@fork what if…` in the input, or press F on any message.";
  return [{ text, chunk: 3 }];
}

/** A reply whose deltas come PACE_MS apart, as a real one streams. */
function paced(parts: Part[]): Reply {
  const reply = response(parts);
  if (reply.kind !== "stream" || PACE_MS <= 0) return reply;
  return {
    kind: "stream",
    steps: reply.steps.flatMap((step) =>
      "event" in step && step.event["type"] === "content_block_delta" ? [step, { pause: PACE_MS }] : [step],
    ),
  };
}
