/**
 * The offline demo behind `npm run try` without an API key: the mock Messages API with a small
 * script, its replies paced so they are seen to stream (`TINE_DEMO_PACE_MS` between deltas, 25
 * by default). It streams a reply, then asks to run a command (which waits for your approval),
 * then comments on the result. A message that gives a file (`@file:TODO.md write the tests`) is
 * answered with an edit adding the rest of the message to that file as a line, so a worktree fork
 * has code to merge back (what it answers: demo-replies.ts). Prints its URL on stdout.
 * scripts/record.mjs records it for the README.
 */

import { type DemoMessage, demoReply, titleOf } from "./demo-replies.ts";
import { type Part, type Reply, response, textReply } from "./script.ts";
import { MockAnthropic } from "./server.ts";

const PACE_MS = Number(process.env["TINE_DEMO_PACE_MS"] ?? 25);

void main();

async function main() {
  const mock = await MockAnthropic.start(Number(process.env["TINE_DEMO_PORT"] ?? 0));
  let calls = 0;
  mock.otherwise((req) => paced(demoReply(req.body["messages"] as DemoMessage[], () => ++calls)));
  // The title tine asks for after a thread's first reply (auto_title): its first words typed.
  mock.otherwiseTitle((req) => textReply(titleOf(req.body["messages"] as DemoMessage[])));
  process.stdout.write(`${mock.url}\n`);
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
