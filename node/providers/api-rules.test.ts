/** The shared API-rules checker rejects what the Messages API refuses (so every test can rely on it). */
import { describe, expect, it } from "vitest";
import { checkMessages, checkRequest } from "../../test/mock-anthropic/api-rules.ts";

const user = (text = "hi") => ({ role: "user", content: [{ type: "text", text }] });
const body = (more: Record<string, unknown>) => ({ model: "m", max_tokens: 100, messages: [user()], ...more });

describe("API rules", () => {
  it("an assistant message ending in thinking, anywhere", () => {
    const thinking = { type: "thinking", thinking: "t", signature: "s" };
    expect(checkMessages([user(), { role: "assistant", content: [thinking] }, user()])).toContain(
      "messages[1]: an assistant message cannot end in a thinking block",
    );
    expect(checkMessages([user(), { role: "assistant", content: [thinking, { type: "text", text: "x" }] }, user()])).toEqual([]);
  });

  it("system: no empty text block, only defined fields", () => {
    expect(checkRequest(body({ system: [{ type: "text", text: "", cache_control: { type: "ephemeral" } }] }))).toContain(
      "system[0] is an empty text block",
    );
    expect(checkRequest(body({ system: [{ type: "text", text: "s", extra: 1 }] }))).toContain("system[0] has field extra");
    expect(checkRequest(body({ system: [{ type: "text", text: "s" }] }))).toEqual([]);
  });

  it("tool ids match the pattern and are used once; tool input is an object", () => {
    const call = (id: string, input: unknown = {}) => ({ role: "assistant", content: [{ type: "tool_use", id, name: "x", input }] });
    const answer = (id: string) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "r" }] });
    expect(checkMessages([user(), call("bad id"), answer("bad id")])).toContain("tool id bad id does not match ^[A-Za-z0-9_-]+$");
    expect(checkMessages([user(), call("a"), answer("a"), call("a"), answer("a")])).toContain("tool id a is used twice");
    expect(checkMessages([user(), call("b", [1]), answer("b")])).toContain("messages[1]: tool_use b input is not an object");
    const search = {
      role: "assistant",
      content: [
        { type: "server_tool_use", id: "s", name: "web_search", input: "q" },
        { type: "web_search_tool_result", tool_use_id: "s", content: [] },
      ],
    };
    expect(checkMessages([user(), search, user()])).toContain("messages[1]: server_tool_use s input is not an object");
  });

  it("web search results: a result list or an error object", () => {
    const turn = (content: unknown) => [
      user(),
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "s", name: "web_search", input: {} },
          { type: "web_search_tool_result", tool_use_id: "s", content },
        ],
      },
      user(),
    ];
    expect(checkMessages(turn({ type: "web_search_tool_result_error", error_code: "max_uses_exceeded" }))).toEqual([]);
    expect(checkMessages(turn([{ type: "web_search_result", url: "u", title: "t", encrypted_content: "e", page_age: null }]))).toEqual([]);
    expect(checkMessages(turn({ error: "x" })).join()).toMatch(/neither a result list nor a web_search_tool_result_error/);
    expect(checkMessages(turn([{ type: "web_search_result", url: "u", title: "t" }])).join()).toMatch(/\[0\] needs encrypted_content/);
    expect(checkMessages(turn([{ type: "web_search_result", url: "u", title: "t", encrypted_content: "e", page_age: 3 }])).join()).toMatch(
      /page_age is neither/,
    );
  });

  it("cache_control is counted by walking the request, at most 4", () => {
    const marked = (text: string) => ({ type: "text", text, cache_control: { type: "ephemeral" } });
    const five = { role: "user", content: [marked("a"), marked("b"), marked("c"), marked("d"), marked("e")] };
    expect(checkRequest(body({ messages: [five] }))).toContain("5 cache_control breakpoints (at most 4)");
    // Text that merely mentions the word is not a marker.
    expect(
      checkRequest(body({ messages: [user('"cache_control" "cache_control" "cache_control" "cache_control" "cache_control"')] })),
    ).toEqual([]);
  });

  it("tool names: each once, a custom tool's of the API's pattern (1 to 128 of letters, digits, _ and -)", () => {
    const tool = (name: string) => ({ name, input_schema: { type: "object" } });
    const search = { type: "web_search_20250305", name: "web_search", max_uses: 5 };
    expect(checkRequest(body({ tools: [tool("a_b"), tool("x"), tool("a_b")] }))).toEqual(['tools[2].name "a_b" is used twice']);
    expect(checkRequest(body({ tools: [tool("web_search"), search] }))).toEqual(['tools[1].name "web_search" is used twice']);
    expect(checkRequest(body({ tools: [tool(""), tool("a.b"), tool("x".repeat(129))] }))).toEqual([
      'tools[0].name "" does not match ^[a-zA-Z0-9_-]{1,128}$',
      'tools[1].name "a.b" does not match ^[a-zA-Z0-9_-]{1,128}$',
      `tools[2].name "${"x".repeat(129)}" does not match ^[a-zA-Z0-9_-]{1,128}$`,
    ]);
    expect(checkRequest(body({ tools: [tool("x".repeat(128)), tool("mcp__a-b__C_9"), { ...tool("c"), type: "custom" }, search] }))).toEqual(
      [],
    );
  });

  it("a paused turn sent back last does not end in whitespace", () => {
    const paused = { role: "assistant", content: [{ type: "text", text: "Looking " }] };
    expect(checkMessages([user(), paused], { allowTrailingAssistant: true })).toContain(
      "the final assistant message cannot end in whitespace",
    );
  });
});
