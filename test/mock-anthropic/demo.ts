/**
 * The offline demo behind `npm run try` without an API key: the mock Messages API with a small
 * script, its replies paced so they are seen to stream (`TINE_DEMO_PACE_MS` between deltas, 25
 * by default). It streams a reply, then asks to run a command (which waits for your approval),
 * then comments on the result. A message that gives a file (`@file:TODO.md write the tests`) is
 * answered with an edit adding the rest of the message to that file as a line, so a worktree fork
 * has code to merge back (what it answers: demo-answers.ts). Its usage counts the prompt cache as
 * the API does (demo-cache.ts): a fork's first request reads its parent's. Prints its URL on stdout.
 * scripts/record.mjs records it for the README.
 */

import { demoAnswers } from "./demo-answers.ts";
import { MockAnthropic } from "./server.ts";

const PACE_MS = Number(process.env["TINE_DEMO_PACE_MS"] ?? 25);

void main();

async function main() {
  const mock = await MockAnthropic.start(Number(process.env["TINE_DEMO_PORT"] ?? 0));
  const answers = demoAnswers(PACE_MS);
  mock.otherwise(answers.reply);
  mock.otherwiseTitle(answers.title);
  process.stdout.write(`${mock.url}\n`);
}
