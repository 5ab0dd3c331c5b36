/**
 * The offline demo behind `npm run try` without an API key: the mock Messages API with a small
 * script. It streams a reply, then asks to run a command (which waits for your approval), then
 * comments on the result. Prints its URL on stdout.
 */

import { response, textReply } from "./script.ts";
import { MockAnthropic } from "./server.ts";

void main();

async function main() {
  const mock = await MockAnthropic.start(Number(process.env["TINE_DEMO_PORT"] ?? 0));
  let calls = 0;
  mock.otherwise((req) => {
    const messages = req.body["messages"] as { role: string; content: { type: string; text?: string }[] }[];
    const last = messages[messages.length - 1]!;
    const prompt = last.content
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join(" ")
      .trim();
    if (last.content.some((b) => b.type === "tool_result")) {
      return response([
        {
          text: "That is the project directory. Try forking this thread: type `@fork what if…` in the input, or press F on any message.",
          chunk: 3,
        },
      ]);
    }
    calls++;
    return response([
      { thinking: "The user wants a demo. I'll answer and show a tool call.", signature: "demo-signature" },
      {
        text: `(offline demo, reply ${calls}) You said: "${prompt}".\n\nThis reply is streamed by tine's local mock of the Messages API, so you can try everything without an API key. Next I will list the files here with a shell command; it waits for your approval: press **a** on it to approve or **d** to deny (from the input, **Ctrl-y** or **Ctrl-n** in Normal mode).`,
        chunk: 4,
      },
      { toolUse: { id: `toolu_demo_${calls}`, name: "bash_command", input: { command: "ls" } } },
    ]);
  });
  // The title tine asks for after a thread's first reply (auto_title).
  let titles = 0;
  mock.otherwiseTitle(() => textReply(`Offline demo thread ${++titles}`));
  process.stdout.write(`${mock.url}\n`);
}
