/**
 * The Messages API's rules for a request body, checked on every request the mock receives (and
 * by the property tests on every history a clone or abort yields). Returns the violations found.
 */

type Json = Record<string, unknown>;

const BLOCK_FIELDS: Record<string, { roles: string[]; fields: string[] }> = {
  text: { roles: ["user", "assistant"], fields: ["type", "text", "cache_control", "citations"] },
  image: { roles: ["user"], fields: ["type", "source", "cache_control"] },
  thinking: { roles: ["assistant"], fields: ["type", "thinking", "signature"] },
  redacted_thinking: { roles: ["assistant"], fields: ["type", "data"] },
  tool_use: { roles: ["assistant"], fields: ["type", "id", "name", "input", "cache_control"] },
  tool_result: { roles: ["user"], fields: ["type", "tool_use_id", "content", "is_error", "cache_control"] },
  server_tool_use: { roles: ["assistant"], fields: ["type", "id", "name", "input", "cache_control"] },
  web_search_tool_result: { roles: ["assistant"], fields: ["type", "tool_use_id", "content", "cache_control"] },
};

export function checkMessages(messages: unknown, opts: { allowTrailingAssistant?: boolean } = {}): string[] {
  const problems: string[] = [];
  if (!Array.isArray(messages) || messages.length === 0) return ["messages must be a non-empty array"];
  let previous: Json | null = null;
  messages.forEach((raw, i) => {
    const where = `messages[${i}]`;
    const m = raw as Json;
    for (const key of Object.keys(m)) if (key !== "role" && key !== "content") problems.push(`${where} has field ${key}`);
    if (m["role"] !== "user" && m["role"] !== "assistant") problems.push(`${where} has role ${String(m["role"])}`);
    if (i === 0 && m["role"] !== "user") problems.push("the first message must be a user message");
    if (previous && previous["role"] === m["role"]) problems.push(`${where} repeats role ${String(m["role"])}`);
    const content = typeof m["content"] === "string" ? [{ type: "text", text: m["content"] }] : m["content"];
    if (!Array.isArray(content) || content.length === 0) {
      problems.push(`${where} has no content`);
      previous = m;
      return;
    }
    const blocks = content as Json[];
    blocks.forEach((b, j) => {
      const spec = BLOCK_FIELDS[String(b["type"])];
      const at = `${where}.content[${j}]`;
      if (!spec) {
        problems.push(`${at} has unknown type ${String(b["type"])}`);
        return;
      }
      if (!spec.roles.includes(String(m["role"]))) problems.push(`${at}: ${String(b["type"])} in a ${String(m["role"])} message`);
      for (const key of Object.keys(b)) if (!spec.fields.includes(key)) problems.push(`${at} (${String(b["type"])}) has field ${key}`);
      if (b["type"] === "text" && (typeof b["text"] !== "string" || b["text"].trim() === "")) problems.push(`${at} is an empty text block`);
      if (b["type"] === "thinking" && (typeof b["signature"] !== "string" || b["signature"] === ""))
        problems.push(`${at} is a thinking block without a signature`);
    });
    if (m["role"] === "assistant") {
      const finalType = String(blocks[blocks.length - 1]?.["type"]);
      if (finalType === "thinking" || finalType === "redacted_thinking")
        problems.push(`${where}: an assistant message cannot end in a ${finalType} block`);
      for (const b of blocks) {
        const isCall = b["type"] === "tool_use" || b["type"] === "server_tool_use";
        if (isCall && (!b["input"] || typeof b["input"] !== "object" || Array.isArray(b["input"])))
          problems.push(`${where}: ${String(b["type"])} ${String(b["id"])} input is not an object`);
        if (b["type"] === "web_search_tool_result") problems.push(...checkSearchResult(b["content"], `${where} web_search_tool_result`));
      }
      const uses = new Set(blocks.filter((b) => b["type"] === "server_tool_use").map((b) => b["id"]));
      const results = new Set(blocks.filter((b) => b["type"] === "web_search_tool_result").map((b) => b["tool_use_id"]));
      // A paused turn sent back last may still wait on a server tool: the API continues from it.
      const continuesPausedTurn = opts.allowTrailingAssistant && i === messages.length - 1;
      if (!continuesPausedTurn)
        for (const id of uses) if (!results.has(id)) problems.push(`${where}: server_tool_use ${String(id)} has no result`);
      for (const id of results) if (!uses.has(id)) problems.push(`${where}: web_search_tool_result ${String(id)} has no server_tool_use`);
    }
    // Tool results answer exactly the previous assistant message's tool_use blocks, and come first.
    const asked = previous?.["role"] === "assistant" ? toolUseIds(previous) : [];
    if (m["role"] === "user") {
      const answered = blocks.filter((b) => b["type"] === "tool_result").map((b) => String(b["tool_use_id"]));
      const firstNonResult = blocks.findIndex((b) => b["type"] !== "tool_result");
      if (firstNonResult !== -1 && blocks.slice(firstNonResult).some((b) => b["type"] === "tool_result"))
        problems.push(`${where}: tool_result blocks must come first`);
      for (const id of asked) if (!answered.includes(id)) problems.push(`${where}: tool_use ${id} is not answered`);
      for (const id of answered) if (!asked.includes(id)) problems.push(`${where}: tool_result ${id} answers no tool_use`);
      if (new Set(answered).size !== answered.length) problems.push(`${where}: duplicate tool_result`);
    } else if (asked.length) {
      problems.push(`${where}: tool_use blocks of the previous message are not answered`);
    }
    previous = m;
  });
  const last = messages[messages.length - 1] as Json;
  if (last["role"] !== "user" && !opts.allowTrailingAssistant) problems.push("the last message must be a user message");
  if (last["role"] === "assistant" && toolUseIds(last).length) problems.push("the last message has unanswered tool_use");
  const lastBlocks = Array.isArray(last["content"]) ? (last["content"] as Json[]) : [];
  const finalBlock = lastBlocks[lastBlocks.length - 1];
  if (
    last["role"] === "assistant" &&
    finalBlock?.["type"] === "text" &&
    String(finalBlock["text"]) !== String(finalBlock["text"]).trimEnd()
  )
    problems.push("the final assistant message cannot end in whitespace");
  // Tool and server tool ids: the API's pattern, and each id once in the whole conversation.
  const seen = new Set<string>();
  for (const m of messages as Json[]) {
    for (const b of Array.isArray(m["content"]) ? (m["content"] as Json[]) : []) {
      if (b["type"] !== "tool_use" && b["type"] !== "server_tool_use") continue;
      const id = String(b["id"]);
      if (!/^[A-Za-z0-9_-]+$/.test(id)) problems.push(`tool id ${id} does not match ^[A-Za-z0-9_-]+$`);
      if (seen.has(id)) problems.push(`tool id ${id} is used twice`);
      seen.add(id);
    }
  }
  return problems;
}

/** A web search result's content: a list of results, or one error. */
function checkSearchResult(content: unknown, where: string): string[] {
  if (Array.isArray(content)) {
    return (content as Json[]).flatMap((r, i) => {
      const out: string[] = [];
      if (r["type"] !== "web_search_result") out.push(`${where}[${i}] is not a web_search_result`);
      for (const key of Object.keys(r))
        if (!["type", "url", "title", "encrypted_content", "page_age"].includes(key)) out.push(`${where}[${i}] has field ${key}`);
      for (const key of ["url", "title", "encrypted_content"]) if (typeof r[key] !== "string") out.push(`${where}[${i}] needs ${key}`);
      if (r["page_age"] != null && typeof r["page_age"] !== "string") out.push(`${where}[${i}] page_age is neither a string nor null`);
      return out;
    });
  }
  const e = content as Json | null;
  if (e?.["type"] === "web_search_tool_result_error" && typeof e["error_code"] === "string") return [];
  return [`${where}: content is neither a result list nor a web_search_tool_result_error`];
}

/** Counts `cache_control` markers by walking the value (never by matching text). */
function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countCacheControl(v), 0);
  if (!value || typeof value !== "object") return 0;
  let n = 0;
  for (const [key, v] of Object.entries(value)) n += key === "cache_control" ? 1 : countCacheControl(v);
  return n;
}

/** The `system` field: a string, or non-empty text blocks with only the fields the API defines. */
function checkSystem(system: unknown): string[] {
  if (system === undefined) return [];
  if (typeof system === "string") return system.trim() ? [] : ["system is an empty string"];
  if (!Array.isArray(system)) return ["system is neither a string nor a list of blocks"];
  return (system as Json[]).flatMap((b, i) => {
    const out: string[] = [];
    if (b["type"] !== "text") out.push(`system[${i}] is not a text block`);
    if (typeof b["text"] !== "string" || !b["text"].trim()) out.push(`system[${i}] is an empty text block`);
    for (const key of Object.keys(b))
      if (!["type", "text", "cache_control", "citations"].includes(key)) out.push(`system[${i}] has field ${key}`);
    return out;
  });
}

function toolUseIds(m: Json): string[] {
  const content = m["content"];
  if (!Array.isArray(content)) return [];
  return (content as Json[]).filter((b) => b["type"] === "tool_use").map((b) => String(b["id"]));
}

/**
 * A custom tool's name, as the API checks it: its 400 says `tools.N.custom.name: String should
 * match pattern '^[a-zA-Z0-9_-]{1,128}$'` (the docs still say 64; the API takes 128).
 */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** The `tools` field: a list whose names are each there once, a custom tool's of the API's pattern. */
function checkTools(tools: unknown): string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) return ["tools is not a list"];
  const problems: string[] = [];
  const seen = new Set<string>();
  (tools as Json[]).forEach((t, i) => {
    const name = t["name"];
    if (typeof name !== "string") {
      problems.push(`tools[${i}] has no name`);
      return;
    }
    // A server tool (`type: "web_search_20250305"`) has a fixed name; a custom one has no type, or "custom".
    const custom = t["type"] === undefined || t["type"] === "custom";
    if (custom && !TOOL_NAME.test(name)) problems.push(`tools[${i}].name ${JSON.stringify(name)} does not match ${TOOL_NAME.source}`);
    if (seen.has(name)) problems.push(`tools[${i}].name ${JSON.stringify(name)} is used twice`);
    seen.add(name);
  });
  return problems;
}

/**
 * Checks a whole request body. `beta`: the request went to `/v1/messages?beta=true`, where (as the
 * Claude Code CLI sends them) `role: "system"` messages of text may sit among the messages; they
 * are checked as such and the rest as usual.
 */
export function checkRequest(body: unknown, opts: { beta?: boolean } = {}): string[] {
  const b = body as Json;
  const problems: string[] = [];
  if (typeof b["model"] !== "string") problems.push("model is missing");
  if (typeof b["max_tokens"] !== "number" || (b["max_tokens"] as number) < 1) problems.push("max_tokens is missing");
  let messages = b["messages"] as Json[] | undefined;
  if (opts.beta && Array.isArray(messages)) {
    for (const m of messages.filter((m) => m["role"] === "system")) {
      const content = typeof m["content"] === "string" ? [{ type: "text", text: m["content"] }] : (m["content"] as Json[]);
      if (
        !Array.isArray(content) ||
        !content.length ||
        content.some((c) => c["type"] !== "text" || typeof c["text"] !== "string" || !c["text"].trim())
      )
        problems.push("a system message must hold non-empty text blocks");
    }
    messages = messages.filter((m) => m["role"] !== "system");
  }
  // A turn paused by a server tool is continued by sending the assistant message back as it is.
  const last = Array.isArray(messages) ? messages[messages.length - 1] : undefined;
  const pausedServerTurn =
    last?.["role"] === "assistant" &&
    Array.isArray(last["content"]) &&
    (last["content"] as Json[]).some((c) => c["type"] === "server_tool_use");
  problems.push(...checkMessages(messages, { allowTrailingAssistant: pausedServerTurn }));
  const thinking = b["thinking"] as Json | undefined;
  if (thinking && !["adaptive", "between_tools", "enabled", "disabled"].includes(String(thinking["type"])))
    problems.push(`thinking.type ${String(thinking["type"])} is not a thinking type`);
  // "updates": what the Claude Code CLI asks for in its interactive mode.
  if (thinking?.["display"] !== undefined && !["summarized", "omitted", "updates"].includes(String(thinking["display"])))
    problems.push(`thinking.display ${String(thinking["display"])} is not a display`);
  const effort = (b["output_config"] as Json | undefined)?.["effort"];
  if (effort !== undefined && !["low", "medium", "high", "xhigh", "max"].includes(String(effort)))
    problems.push(`output_config.effort ${String(effort)} is not an effort level`);
  if (thinking?.["type"] === "enabled") {
    const budget = thinking["budget_tokens"] as number;
    if (!(budget >= 1024)) problems.push("thinking.budget_tokens must be at least 1024");
    if (!(budget < (b["max_tokens"] as number))) problems.push("thinking.budget_tokens must be below max_tokens");
  }
  problems.push(...checkSystem(b["system"]));
  problems.push(...checkTools(b["tools"]));
  const markers = countCacheControl(body);
  if (markers > 4) problems.push(`${markers} cache_control breakpoints (at most 4)`);
  return problems;
}
