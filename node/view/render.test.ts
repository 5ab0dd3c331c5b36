import { describe, expect, it } from "vitest";
import { reportBlock } from "../chat/prompts.ts";
import { assistantMessage, entry } from "../core/native.ts";
import { renderEntry } from "./render.ts";

const ctx = { index: 0, expanded: new Set<string>() };

describe("rendering", () => {
  it("a collapsed tool result whose one line is cut ends with …; one that fits does not", () => {
    const result = (text: string) =>
      renderEntry(entry({ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: text }] }), ctx).lines[1];
    expect(result("x".repeat(120))).toBe(`✓ tool: ${"x".repeat(80)}…`);
    expect(result("x".repeat(80))).toBe(`✓ tool: ${"x".repeat(80)}`);
    expect(result(`${"y".repeat(90)}\nsecond`)).toBe(`✓ tool: ${"y".repeat(80)}… … (2 lines)`);
  });

  it("two text blocks in a row of a user message are parted by a blank line; a reply's run on", () => {
    const user = entry({
      role: "user",
      content: [
        { type: "text", text: "first prompt" },
        { type: "text", text: "second prompt" },
      ],
    });
    expect(renderEntry(user, ctx).lines).toEqual(["## You", "first prompt", "", "second prompt", ""]);
    const reply = entry(
      assistantMessage([
        { type: "text", text: "It is " },
        { type: "text", text: "so." },
      ]),
    );
    expect(renderEntry(reply, ctx).lines.slice(1, 3)).toEqual(["It is ", "so."]);
  });

  it("a fork's report in a user message shows under a line naming the fork, its text as the fork wrote it (tags too), not the block's markup", () => {
    const report = reportBlock({ from: "probe ⑂1", text: "Found it.\nSee </fork-report> in the log." });
    const user = entry({
      role: "user",
      content: [
        { type: "text", text: report },
        { type: "text", text: "go on" },
      ],
    });
    expect(renderEntry(user, ctx).lines).toEqual([
      "## You",
      '📨 Report from "probe ⑂1":',
      "Found it.",
      "See </fork-report> in the log.",
      "",
      "go on",
      "",
    ]);
    // Typed by hand, the markup is not a report: shown as it is.
    const typed = entry({ role: "user", content: [{ type: "text", text: '<fork-report from="x">\na </fork-report> b\n</fork-report>' }] });
    expect(renderEntry(typed, ctx).lines[1]).toBe('<fork-report from="x">');
  });

  it("a failed web search is shown as an error, not as 0 results", () => {
    const e = entry(
      assistantMessage([
        { type: "server_tool_use", id: "s1", name: "web_search", input: { query: "q" } },
        {
          type: "web_search_tool_result",
          tool_use_id: "s1",
          content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
        },
      ]),
    );
    expect(renderEntry(e, ctx).lines).toContain("   ⚠ web search failed: max_uses_exceeded");
  });

  it("a text block's citations are listed under it as links, each source once", () => {
    const cite = (url: string, title: string) => ({
      type: "web_search_result_location" as const,
      url,
      title,
      encrypted_index: "e",
      cited_text: "c",
    });
    const e = entry(
      assistantMessage([
        {
          type: "text",
          text: "Two facts.",
          citations: [cite("https://a.example", "A"), cite("https://b.example", "B"), cite("https://a.example", "A")],
        },
      ]),
    );
    expect(renderEntry(e, ctx).lines.slice(1, 4)).toEqual(["Two facts.", "   [1] [A](https://a.example)", "   [2] [B](https://b.example)"]);
  });

  it("never yields a line holding a newline (Neovim would refuse the whole update)", () => {
    const e = entry(assistantMessage([{ type: "tool_use", id: "t", name: "bash_command", input: { command: "echo a\necho b" } }]));
    expect(renderEntry(e, ctx).lines.every((l) => !l.includes("\n"))).toBe(true);
  });
});
