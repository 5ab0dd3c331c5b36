/** The names MCP tools are offered as: each one tool's, of the API's pattern, and kept for the host's life. */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { checkRequest } from "../../test/mock-anthropic/api-rules.ts";
import { callTitle, McpToolNames, spelledFor } from "./tool-names.ts";

const tools = (...names: string[]): Tool[] => names.map((name) => ({ name, inputSchema: { type: "object" } }));
const named = (names: McpToolNames, server: string, list: Tool[]) => names.name(server, list).map((n) => [n.name, n.tool.name]);
const LONG = "x".repeat(130);

describe("MCP tool names", () => {
  it("read in the display as `server › tool`; tine's own tools and names of no tool are not MCP calls", () => {
    expect(callTitle("mcp__test__echo")).toBe("test › echo");
    expect(callTitle("mcp__my-server__a_b_2")).toBe("my-server › a_b_2");
    expect(callTitle("mcp__a__b__c")).toBe("a › b__c");
    for (const name of ["edit_file", "mcp__", "mcp__test__", "mcp____x", "mcp__test"]) expect(callTitle(name)).toBeNull();
  });

  it("give each tool a name of its own: a tool whose name needs no change keeps it, the others get a suffix; an empty name gets none", () => {
    const names = new McpToolNames();
    const given = named(names, "p", tools("a.b", "a_b", `${LONG}1`, `${LONG}2`, "", "a_b_2"));
    expect(given).toEqual([
      ["mcp__p__a_b_3", "a.b"],
      ["mcp__p__a_b", "a_b"],
      [`mcp__p__${LONG}`.slice(0, 128), `${LONG}1`],
      [`${`mcp__p__${LONG}`.slice(0, 126)}_2`, `${LONG}2`],
      ["mcp__p__a_b_2", "a_b_2"],
    ]);
    for (const [name, tool] of given) expect(names.target(name!)).toEqual({ server: "p", tool });
    // What the API takes: every name once, each of its pattern.
    const request = { model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }] };
    expect(checkRequest({ ...request, tools: given.map(([name]) => ({ name, input_schema: { type: "object" } })) })).toEqual([]);
  });

  it("keep a name's tool whatever the server lists later, and give a tool listed twice one name", () => {
    const names = new McpToolNames();
    expect(named(names, "p", tools("a_b", "a.b"))).toEqual([
      ["mcp__p__a_b", "a_b"],
      ["mcp__p__a_b_2", "a.b"],
    ]);
    // `a_b` gone: `a.b` keeps the name a thread was offered, and a call of `mcp__p__a_b` never runs it.
    expect(named(names, "p", tools("a.b", "a.b"))).toEqual([["mcp__p__a_b_2", "a.b"]]);
    expect(names.target("mcp__p__a_b")).toEqual({ server: "p", tool: "a_b" });
  });

  it("tell servers apart whose names run into each other's tools", () => {
    const names = new McpToolNames();
    expect(named(names, "a", tools("b__c"))).toEqual([["mcp__a__b__c", "b__c"]]);
    expect(named(names, "a__b", tools("c"))).toEqual([["mcp__a__b__c_2", "c"]]);
    expect(spelledFor("mcp__a__b__x", ["a", "a__b"])).toEqual({ server: "a__b", rest: "x" });
    expect(spelledFor("mcp__z__x", ["a"])).toBeNull();
  });
});
