import { describe, expect, it } from "vitest";
import { boundedFetch } from "./bounded-fetch.ts";
import { RESULT_TOO_LARGE } from "./message-lines.ts";

const BOUND = 100;
const encode = (text: string) => Buffer.from(text, "utf8");

/** A server's body: `chunks`, then (when `endless`) `x` for ever; `cancelled` tells whether the reader stopped it. */
function served(chunks: readonly string[], endless = false) {
  const state = { cancelled: false, sent: 0 };
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = at < chunks.length ? chunks[at++]! : endless ? "x".repeat(30) : null;
      if (next === null) return controller.close();
      state.sent += next.length;
      controller.enqueue(encode(next));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

/** What `boundedFetch` gives for a response of `type` with `body`, to a POST of `posted`. */
async function fetched(type: string, body: ReadableStream<Uint8Array>, posted?: unknown): Promise<string> {
  const base = async () => new Response(body, { status: 200, headers: { "content-type": type } });
  const response = await boundedFetch(BOUND, base)("http://127.0.0.1/mcp", {
    method: "POST",
    ...(posted === undefined ? {} : { body: JSON.stringify(posted) }),
  });
  return response.text();
}

const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "big" } };

describe("boundedFetch", () => {
  it("passes a JSON body within the bound as it is; one past it answers the request POSTed as too large, its source cut", async () => {
    const small = JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [] } });
    expect(await fetched("application/json", served([small.slice(0, 10), small.slice(10)]).body, call)).toBe(small);
    const { body, state } = served(['{"result":{"content":[{"type":"text","text":"'], true);
    const answer = JSON.parse(await fetched("application/json; charset=utf-8", body, call));
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: RESULT_TOO_LARGE, data: { cut: true } } });
    expect(answer.error.data.bytes).toBeGreaterThan(BOUND);
    expect(state.cancelled).toBe(true);
    expect(state.sent).toBeLessThan(BOUND + 60);
  });

  it("passes events within the bound whole and unchanged, however split and ended (LF, CRLF, CR)", async () => {
    const events = 'event: message\ndata: {"id":1}\n\n' + 'data: {"id":2}\r\n\r\n' + 'data: {"id":3}\r\r' + ": keep-alive\n\n";
    const chunks = events.match(/[\s\S]{1,7}/g)!;
    expect(await fetched("text/event-stream", served(chunks).body, call)).toBe(events);
  });

  it("an event that never ends answering the request POSTed: what came before, then the too large answer, and the stream is cut", async () => {
    const { body, state } = served(['data: {"id":0}\n\n', 'event: message\ndata: {"result":{"content":[{"text":"'], true);
    const [before, answer, after] = (await fetched("text/event-stream", body, call)).split("\n\n");
    expect(before).toBe('data: {"id":0}');
    expect(JSON.parse(answer!.replace("event: message\ndata: ", ""))).toMatchObject({ id: 7, error: { code: RESULT_TOO_LARGE } });
    expect(after).toBe("");
    expect(state.cancelled).toBe(true);
  });

  it("on a stream answering many (no request POSTed): an event past the bound is counted to its end and answered by the id it ends with, the stream read on; one past twice the bound ends it", async () => {
    const big = `event: message\ndata: {"result":{"text":"${"x".repeat(3 * BOUND)}"},"jsonrpc":"2.0","id":"r9"}`;
    const text = await fetched("text/event-stream", served([`${big}\n\n`, 'data: {"id":1}\n\n']).body);
    const [answer, next] = text.split("\n\n");
    expect(JSON.parse(answer!.replace("event: message\ndata: ", ""))).toEqual({
      jsonrpc: "2.0",
      id: "r9",
      error: { code: RESULT_TOO_LARGE, message: expect.any(String), data: { bytes: big.length + 2, cut: false } },
    });
    expect(next).toBe('data: {"id":1}');
    const { body, state } = served(['data: {"jsonrpc":"2.0","id":4,"result":"'], true);
    const cut = JSON.parse((await fetched("text/event-stream", body)).replace("event: message\ndata: ", ""));
    expect(cut).toMatchObject({ id: 4, error: { code: RESULT_TOO_LARGE, data: { cut: true } } });
    expect(state.cancelled).toBe(true);
    await expect(fetched("text/event-stream", served(["data: nothing to tell"], true).body)).rejects.toThrow();
  });
});
