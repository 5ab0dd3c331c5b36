/** What the integration tests do again and again: type into a thread's input, read requests. */
import type Anthropic from "@anthropic-ai/sdk";
import type { NativeMessage } from "../../node/core/native.ts";
import { type Reply, response, textReply } from "../mock-anthropic/script.ts";
import type { Session, ThreadRef } from "./neovim.ts";

/** A request body tine sends, as the SDK types it. */
export type RequestBody = Anthropic.Messages.MessageCreateParams;
/** A content block of a request's message (the host's messages hold a subset of these). */
export type BlockParam = Anthropic.Messages.ContentBlockParam;
/** A message as a request carries it, or as the host holds it (`Session.messages`). */
export type AnyMessage = Anthropic.Messages.MessageParam | NativeMessage;

/** Types `text` into the input buffer that has the focus and presses <CR>, as a user would. */
export async function typeAndSend(s: Session, text: string): Promise<void> {
  await s.lua(
    `
    local input = vim.api.nvim_get_current_buf()
    assert(vim.api.nvim_buf_get_name(input):match(" %[input%]$"), "focus is not in an input buffer")
    vim.api.nvim_buf_set_lines(input, 0, -1, false, vim.split(..., "\\n"))`,
    text,
  );
  await s.keys("<CR>");
}

/**
 * Scripts `answer` as the next reply, sends `prompt` from the focused input and waits until
 * thread `ref` shows `waitFor` (by default the answer and the end of its turn).
 */
export async function exchange(
  s: Session,
  ref: ThreadRef,
  prompt: string,
  answer: string,
  {
    waitFor = `${answer}\n── end_turn`,
    then = [],
  }: {
    waitFor?: string;
    /** Replies to the requests after this one, queued with it: before the turn ends (and, say, an idle clock starts). */
    then?: Reply[];
  } = {},
): Promise<void> {
  s.mock.reply(textReply(answer), ...then);
  await typeAndSend(s, prompt);
  await s.waitForDisplay(ref, waitFor);
}

/** The request bodies tine sent the mock, in order. A beta request (the Claude Code CLI's) throws: read it from `s.mock.requests`. */
export function bodies(s: Session): RequestBody[] {
  return s.mock.requests.map((r, i) => {
    if (r.beta) throw new Error(`request ${i} is a beta request, not tine's: read it from s.mock.requests`);
    return r.body;
  });
}

/** Request `i` of `bodies(s)` (a negative `i` counts from the end); throws if it has not arrived. */
export function body(s: Session, i: number): RequestBody {
  const b = bodies(s).at(i);
  if (!b) throw new Error(`no request ${i}: the mock received ${s.mock.requests.length}`);
  return b;
}

/** The content blocks of `message`; throws if there is no message or its content is a string (tine sends blocks). */
export function blocks(message: AnyMessage | undefined): readonly BlockParam[] {
  if (!message) throw new Error("no such message");
  if (typeof message.content === "string") throw new Error(`a ${message.role} message with string content`);
  return message.content;
}

/** The blocks of message `msg` of request `req` (negative indexes count from the end). */
export const sentBlocks = (s: Session, req: number, msg: number): readonly BlockParam[] => blocks(body(s, req).messages.at(msg));

/** The text of a text block; undefined for any other block (or none). */
export const textOf = (b: BlockParam | undefined): string | undefined => (b?.type === "text" ? b.text : undefined);

/** The content of a tool_result block; undefined for any other block (or none). */
export const resultOf = (b: BlockParam | undefined) => (b?.type === "tool_result" ? b.content : undefined);

/** Each message as its blocks' text (or type), joined with `|`. */
export const texts = (messages: readonly AnyMessage[]): string[] =>
  messages.map((m) =>
    blocks(m)
      .map((b) => textOf(b) ?? b.type)
      .join("|"),
  );

/**
 * `:Tine`, a send whose reply is held mid-stream (hold "h"; its rest and then "Forked after." come
 * once released), and `:ForkThread --wait look again` asked while it streams.
 */
export async function waitingForkOfStreamingReply(s: Session): Promise<void> {
  s.mock.reply(response([{ text: "The whole reply, to the end.", holdInside: { hold: "h", afterDeltas: 1 } }]), textReply("Forked after."));
  await s.cmd("Tine");
  await typeAndSend(s, "go");
  await s.waitForDisplay(1, "## Claude\nThe");
  await s.cmd("ForkThread --wait look again");
}

/** Opens the sidebar (:Tine) and returns its thread. */
export async function openSidebar(s: Session) {
  await s.cmd("Tine");
  return (await s.threads())[0]!;
}
