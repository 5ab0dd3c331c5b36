/**
 * What a message, a content block or a response's bookkeeping read from a transcript must look
 * like for replay, rendering and the next request not to throw: every field those read, of the
 * type they read it as. Each check returns why a value does not fit, or null.
 */

type Obj = Record<string, unknown>;

export const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
/** A count or an index: a whole number, not negative. */
export const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isString = (v: unknown): v is string => typeof v === "string";
const optional = (v: unknown, check: (v: unknown) => boolean) => v === undefined || check(v);

function textProblem(b: Obj): string | null {
  if (!isString(b["text"])) return "text block without a string text";
  if (!optional(b["citations"], (c) => c === null || (Array.isArray(c) && c.every(isObject)))) return "text block with bad citations";
  return null;
}

/** The content of a tool result: text, or a list of blocks each naming its type. */
function resultContentOk(c: unknown): boolean {
  if (c === undefined || isString(c)) return true;
  return Array.isArray(c) && c.every((x) => isObject(x) && isString(x["type"]) && (x["type"] !== "text" || isString(x["text"])));
}

export function toolResultProblem(b: unknown): string | null {
  if (!isObject(b) || b["type"] !== "tool_result") return "not a tool_result block";
  if (!isString(b["tool_use_id"])) return "tool_result block without a string tool_use_id";
  if (!resultContentOk(b["content"])) return "tool_result block with content that is neither text nor a list of blocks";
  if (!optional(b["is_error"], (e) => typeof e === "boolean")) return "tool_result block with a non-boolean is_error";
  return null;
}

export function assistantBlockProblem(b: unknown): string | null {
  if (!isObject(b)) return "a content block is not an object";
  switch (b["type"]) {
    case "text":
      return textProblem(b);
    case "thinking":
      return isString(b["thinking"]) && isString(b["signature"]) ? null : "thinking block without string thinking and signature";
    case "redacted_thinking":
      return isString(b["data"]) ? null : "redacted_thinking block without string data";
    case "tool_use":
    case "server_tool_use":
      if (!isString(b["id"]) || !isString(b["name"])) return `${b["type"]} block without a string id and name`;
      return isObject(b["input"]) ? null : `${b["type"]} block whose input is not an object`;
    case "web_search_tool_result":
      if (!isString(b["tool_use_id"])) return "web_search_tool_result block without a string tool_use_id";
      return isObject(b["content"]) || (Array.isArray(b["content"]) && b["content"].every(isObject))
        ? null
        : "web_search_tool_result block with bad content";
    default:
      return `an assistant message cannot hold a ${JSON.stringify(b["type"])} block`;
  }
}

function userBlockProblem(b: unknown): string | null {
  if (!isObject(b)) return "a content block is not an object";
  if (b["type"] === "text") return textProblem(b);
  if (b["type"] === "tool_result") return toolResultProblem(b);
  return `a user message cannot hold a ${JSON.stringify(b["type"])} block`;
}

export function messageProblem(m: unknown): string | null {
  if (!isObject(m)) return "no message";
  const check = m["role"] === "user" ? userBlockProblem : m["role"] === "assistant" ? assistantBlockProblem : null;
  if (!check) return `a message with role ${JSON.stringify(m["role"])}`;
  const content = m["content"];
  if (!Array.isArray(content)) return "a message whose content is not a list";
  for (const [i, b] of content.entries()) {
    const why = check(b);
    if (why) return `block ${i}: ${why}`;
  }
  return null;
}

/** A usage is an object; its figures are taken by usage/token-counts.ts's rule (one that is not a count is missing), not refused with the reply. */
const usageOk = isObject;
const requestOk = (r: unknown) => isObject(r) && isString(r["model"]) && isString(r["prefix"]) && typeof r["at"] === "number";
const continuedOk = (c: unknown) => isObject(c) && isCount(c["requests"]) && usageOk(c["last"]);

/** A response's bookkeeping (`ResponseMeta`), when present; its figures are then read with usage/token-counts.ts `metaFrom`. */
export function metaProblem(meta: unknown): string | null {
  if (meta === undefined) return null;
  if (!isObject(meta) || !isString(meta["stopReason"])) return "meta without a string stopReason";
  if (!usageOk(meta["usage"])) return "meta with bad usage";
  if (!optional(meta["request"], requestOk)) return "meta with a bad request";
  if (!optional(meta["continued"], continuedOk)) return "meta with a bad continued";
  if (!optional(meta["interrupted"], (v) => typeof v === "boolean")) return "meta with a non-boolean interrupted";
  if (!optional(meta["notes"], (n) => Array.isArray(n) && n.every(isString))) return "meta notes that are not strings";
  if (!optional(meta["agentMessageIds"], (n) => Array.isArray(n) && n.every((v) => v === null || isString(v))))
    return "meta agentMessageIds that are not strings";
  return null;
}
