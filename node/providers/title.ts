/**
 * The model names a thread after its first reply: one small Messages API request of its own (its
 * own system prompt, the exchange as text, no tools, no cache marks, a few output tokens), made
 * once the reply has ended. It never touches the thread's history or requests, so the thread's
 * prompt cache stays what it was; a failure leaves the title as it is. What it used counts in the
 * thread's usage (a side request, usage/side.ts). Which threads want a title
 * is the thread's rule (`Thread.wantsModelTitle`, titles.ts).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Dispatch } from "../chat/msgs.ts";
import { isTyped } from "../chat/names.ts";
import type { Thread } from "../chat/thread.ts";
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import type { SideRequest } from "../core/side-request.ts";
import { sideRequest } from "../usage/side.ts";
import type { Connection } from "./connection.ts";
import { usageOf, zeroUsage } from "./stream.ts";

/** The title request's system prompt: what tells it apart from a thread's requests (the test mock routes on it). */
export const TITLE_SYSTEM_PROMPT =
  "You name conversations for a list of them. Reply with a title of 3 to 6 words saying what the conversation " +
  "below is about: no quotes, no final punctuation, nothing else.";

/** Enough for six words. */
const TITLE_MAX_TOKENS = 24;
/** The most of the prompt and of the reply the request carries. */
const EXCERPT_CHARS = 2000;

export type Exchange = { prompt: string; reply: string };

const excerpt = (text: string) => (text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text);

/** The last prompt the user wrote in `history` and the reply's text after it (tool calls left out), or null. */
export function lastExchange(history: History): Exchange | null {
  const replies: string[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history.at(i).message;
    // The user's words only: not the context their mentions brought, a fork's report nor a note of tine's that came with them.
    const texts = message.content.flatMap((b) => (b.type === "text" && (message.role === "assistant" || isTyped(b.text)) ? [b.text] : []));
    if (message.role === "assistant") replies.unshift(...texts);
    else if (texts.length) {
      const reply = replies.join("\n").trim();
      return reply ? { prompt: excerpt(texts.join("\n")), reply: excerpt(reply) } : null;
    }
  }
  return null;
}

export function titleRequest(model: string, exchange: Exchange): Anthropic.Messages.MessageCreateParamsStreaming {
  return {
    model,
    max_tokens: TITLE_MAX_TOKENS,
    system: TITLE_SYSTEM_PROMPT,
    stream: true,
    messages: [
      {
        role: "user",
        content: `<conversation>\n<user>\n${exchange.prompt}\n</user>\n<assistant>\n${exchange.reply}\n</assistant>\n</conversation>`,
      },
    ],
  };
}

/** What a title request gave: the title (null when it failed or said nothing) and what it was billed (null: nothing). */
export type TitleAnswer = { readonly title: string | null; readonly request: SideRequest | null };

/** The model's title for `exchange`; no title without a key or when the request fails (logged). */
export async function askTitle(connection: Connection, model: string, exchange: Exchange): Promise<TitleAnswer> {
  const client = connection.client;
  if (!client) return { title: null, request: null };
  const usage = zeroUsage();
  try {
    let text = "";
    for await (const event of await client.messages.create(titleRequest(model, exchange))) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      else usageOf(usage, event);
    }
    return { title: text.trim().replace(/^["'“]+|["'”.]+$/g, "") || null, request: sideRequest("title", model, usage) };
  } catch (error) {
    connection.log?.(`the title request failed: ${String(error)}`);
    // Cut after the API began to answer: its input was billed.
    return { title: null, request: sideRequest("title", model, usage) };
  }
}

/** Asks for the title of each thread in `ids` that wants one now; its answer is dispatched. */
export function askTitles(
  threads: ReadonlyMap<ThreadId, Thread>,
  ids: readonly ThreadId[],
  ask: (exchange: Exchange) => Promise<TitleAnswer>,
  dispatch: Dispatch,
): void {
  for (const id of ids) {
    const thread = threads.get(id);
    if (!thread?.wantsModelTitle) continue;
    const exchange = lastExchange(thread.runner.history);
    dispatch({ type: "thread-msg", id, msg: { type: "title-asked" } });
    if (!exchange) continue;
    void ask(exchange).then(({ title, request }) => {
      // Counted in the thread it names, whether or not its title is taken.
      if (request) dispatch({ type: "thread-msg", id, msg: { type: "side-request", request } });
      if (title) dispatch({ type: "thread-msg", id, msg: { type: "model-title", title } });
    });
  }
}
