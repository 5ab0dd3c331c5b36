/**
 * Builders for scripted responses: a response is a list of content parts, turned into the exact
 * SSE event sequence the Messages API sends (message_start, content blocks with chunked deltas,
 * message_delta with stop_reason and usage, message_stop). Holds and errors can be put anywhere.
 * Usage goes as the API sends it: message_start has the input figures (and 1 output token so far),
 * message_delta the totals again with the final output and the web searches.
 */
type Json = Record<string, unknown>;

export type Step =
  | { event: Json }
  /** Stop here until `release(name)`; `reached(name)` resolves when the stream gets here. */
  | { hold: string }
  /** Destroy the connection mid-stream. */
  | { drop: true }
  /** Wait this many milliseconds (the offline demo's pace, so a reply is seen to stream). */
  | { pause: number };

export type Reply =
  | { kind: "stream"; steps: Step[] }
  | { kind: "http-error"; status: number; errorType: string; message: string; headers?: Record<string, string> }
  /** Close the connection before answering (the client sees it closed by the other side). */
  | { kind: "drop" }
  /** Reset the connection (a TCP RST) before answering: ECONNRESET. */
  | { kind: "reset" };

/** `holdInside`: hold the stream after that many deltas of the block, the block still open. */
type Inside = { chunk?: number; holdInside?: { hold: string; afterDeltas: number } };

export type Part =
  | ({ text: string } & Inside)
  | ({ thinking: string; signature: string } & Inside)
  | { redacted: string }
  /** `cutInputAt`: the input JSON stops after that many characters, as when max_tokens cuts a call. */
  | ({ toolUse: { id: string; name: string; input: unknown }; cutInputAt?: number } & Inside)
  | { serverToolUse: { id: string; query: string } }
  | { searchResult: { toolUseId: string; title: string; url: string } }
  /** Stop the stream here, between blocks, until the test releases `hold`. */
  | { hold: string }
  | { error: { type: string; message: string } }
  | { drop: true }
  /** Raw steps, placed inside the current position. */
  | { steps: Step[] };

export type ResponseOptions = {
  stopReason?: string;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
    web_search_requests?: number;
  };
  id?: string;
};

function chunks(s: string, size: number): string[] {
  if (s.length === 0) return [];
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

const ev = (event: Json): Step => ({ event });

/** One streamed response made of `parts`. */
export function response(parts: Part[], opts: ResponseOptions = {}): Reply {
  const steps: Step[] = [];
  const { web_search_requests: searches = 0, ...tokens } = opts.usage ?? {};
  const usage = {
    input_tokens: 10,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    ...tokens,
  };
  steps.push(
    ev({
      type: "message_start",
      message: {
        id: opts.id ?? "msg_mock",
        type: "message",
        role: "assistant",
        model: "claude-mock",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  );
  let index = 0;
  let sawToolUse = false;
  for (const part of parts) {
    if ("hold" in part) steps.push({ hold: part.hold });
    else if ("drop" in part) steps.push({ drop: true });
    else if ("steps" in part) steps.push(...part.steps);
    else if ("error" in part) steps.push(ev({ type: "error", error: part.error }));
    else {
      steps.push(...blockSteps(part, index++));
      if ("toolUse" in part) sawToolUse = true;
    }
  }
  const stopReason = opts.stopReason ?? (sawToolUse ? "tool_use" : "end_turn");
  steps.push(
    ev({
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      // Cumulative, as the API's: the totals again, not what came since message_start.
      usage: { ...usage, output_tokens: usage.output_tokens || 20, server_tool_use: { web_search_requests: searches } },
    }),
    ev({ type: "message_stop" }),
  );
  return { kind: "stream", steps };
}

/** The steps of one content block, with its `holdInside` placed among the deltas. */
export function blockSteps(part: Part, index: number): Step[] {
  const steps = plainBlockSteps(part, index);
  const inside = (part as Inside).holdInside;
  if (inside) steps.splice(1 + inside.afterDeltas, 0, { hold: inside.hold });
  return steps;
}

function plainBlockSteps(part: Part, index: number): Step[] {
  const start = (content_block: Json) => ev({ type: "content_block_start", index, content_block });
  const delta = (d: Json) => ev({ type: "content_block_delta", index, delta: d });
  const stop = ev({ type: "content_block_stop", index });
  if ("text" in part) {
    return [
      start({ type: "text", text: "" }),
      ...chunks(part.text, part.chunk ?? 8).map((t) => delta({ type: "text_delta", text: t })),
      stop,
    ];
  }
  if ("thinking" in part) {
    return [
      start({ type: "thinking", thinking: "", signature: "" }),
      ...chunks(part.thinking, part.chunk ?? 16).map((t) => delta({ type: "thinking_delta", thinking: t })),
      ...(part.signature ? [delta({ type: "signature_delta", signature: part.signature })] : []),
      stop,
    ];
  }
  if ("redacted" in part) return [start({ type: "redacted_thinking", data: part.redacted }), stop];
  if ("toolUse" in part) {
    const json = JSON.stringify(part.toolUse.input).slice(0, part.cutInputAt);
    return [
      start({ type: "tool_use", id: part.toolUse.id, name: part.toolUse.name, input: {} }),
      ...chunks(json, part.chunk ?? 7).map((j) => delta({ type: "input_json_delta", partial_json: j })),
      stop,
    ];
  }
  if ("serverToolUse" in part) {
    return [
      start({ type: "server_tool_use", id: part.serverToolUse.id, name: "web_search", input: {} }),
      delta({ type: "input_json_delta", partial_json: JSON.stringify({ query: part.serverToolUse.query }) }),
      stop,
    ];
  }
  if ("searchResult" in part) {
    return [
      start({
        type: "web_search_tool_result",
        tool_use_id: part.searchResult.toolUseId,
        content: [
          {
            type: "web_search_result",
            title: part.searchResult.title,
            url: part.searchResult.url,
            encrypted_content: "enc",
            page_age: null,
          },
        ],
      }),
      stop,
    ];
  }
  throw new Error("not a content block part");
}

export const textReply = (text: string, opts?: ResponseOptions) => response([{ text }], opts);
