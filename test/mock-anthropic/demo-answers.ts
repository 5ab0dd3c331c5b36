/**
 * The offline demo's answers to the mock's requests (demo.ts serves them; a test can too): what
 * it replies (demo-replies.ts), its deltas `paceMs` apart as a real reply streams, with the usage
 * the API would report for its prompt cache (demo-cache.ts).
 */

import { DemoPromptCache } from "./demo-cache.ts";
import { type DemoMessage, demoReply, titleOf } from "./demo-replies.ts";
import { type Part, type Reply, type ResponseOptions, response, textReply } from "./script.ts";
import type { RecordedRequest } from "./server.ts";

export function demoAnswers(paceMs: number): { reply(req: RecordedRequest): Reply; title(req: RecordedRequest): Reply } {
  let calls = 0;
  const cache = new DemoPromptCache();
  return {
    reply: (req) =>
      paced(
        demoReply(req.body["messages"] as DemoMessage[], () => ++calls),
        { usage: cache.usage(req.body) },
        paceMs,
      ),
    // The title tine asks for after a thread's first reply (auto_title): its first words typed.
    title: (req) => textReply(titleOf(req.body["messages"] as DemoMessage[])),
  };
}

/** A reply whose deltas come `paceMs` apart, as a real one streams. */
function paced(parts: Part[], opts: ResponseOptions, paceMs: number): Reply {
  const reply = response(parts, opts);
  if (reply.kind !== "stream" || paceMs <= 0) return reply;
  return {
    kind: "stream",
    steps: reply.steps.flatMap((step) =>
      "event" in step && step.event["type"] === "content_block_delta" ? [step, { pause: paceMs }] : [step],
    ),
  };
}
