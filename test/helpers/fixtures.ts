/** Threads that many integration tests start from, made as a user would make them. */

import { type Reply, textReply } from "../mock-anthropic/script.ts";
import { exchange, typeAndSend } from "./chat-driver.ts";
import type { Session } from "./neovim.ts";

/** `:Tine`, then one exchange in its first thread: `prompt` sent, `answer` shown to the end of its turn. Returns the thread's id. */
export async function oneExchange(s: Session, prompt: string, answer: string): Promise<string> {
  await s.cmd("Tine");
  await exchange(s, 1, prompt, answer);
  return (await s.thread(1)).id;
}

/** A thread with two finished exchanges ("first question" / "First answer.", "second question" / "Second answer."); returns its id. */
export async function twoExchanges(s: Session): Promise<string> {
  s.mock.reply(textReply("First answer."), textReply("Second answer."));
  await s.cmd("Tine");
  const id = (await s.threads())[0]!.id;
  await typeAndSend(s, "first question");
  await s.waitForDisplay(id, "First answer.");
  await s.waitForStatus(id, "idle");
  await typeAndSend(s, "second question");
  await s.waitForDisplay(id, "Second answer.");
  await s.waitForStatus(id, "idle");
  return id;
}

/** What `parentAndFork` says: the parent's first exchange, then the fork's prompt (after `@fork`) and its answer. */
export type ParentAndForkTexts = { prompt: string; answer: string; forkPrompt: string; forkAnswer: string };

/** A thread with one exchange (thread 1) and a fork of it that answered once (thread 2); returns their ids. */
export async function parentAndFork(
  s: Session,
  texts: ParentAndForkTexts = {
    prompt: "main question",
    answer: "Parent answer.",
    forkPrompt: "explore a tangent",
    forkAnswer: "Fork answer.",
  },
  /** Replies to the fork's next requests, queued with its answer (before its idle clock can start). */
  then: Reply[] = [],
): Promise<{ parent: string; fork: string }> {
  const parent = await oneExchange(s, texts.prompt, texts.answer);
  await exchange(s, 2, `@fork ${texts.forkPrompt}`, texts.forkAnswer, { then });
  return { parent, fork: (await s.thread(2)).id };
}
