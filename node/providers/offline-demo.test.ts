/** The offline demo's script (test/mock-anthropic/demo-replies.ts): what `npm run try` answers without a key. */
import { describe, expect, it } from "vitest";
import { DemoPromptCache } from "../../test/mock-anthropic/demo-cache.ts";
import { type DemoBlock, type DemoMessage, demoReply } from "../../test/mock-anthropic/demo-replies.ts";
import { codeNotesText, deniedText, reportBlock, SUMMARY_PROMPT } from "../chat/prompts.ts";
import { writeContextBlock } from "../context/blocks.ts";

const todo = writeContextBlock({ kind: "file", path: "TODO.md", text: "- write docs\n", unsaved: false, changed: false });
const reviewed = codeNotesText([
  { review: "comment", path: "TODO.md", start: 1, count: 1, text: "keep it short", conflicts: 0, root: "/p" },
]);
const user = (...texts: string[]): DemoMessage => ({ role: "user", content: texts.map((text) => ({ type: "text", text })) });
const textOf = (messages: DemoMessage[]) =>
  demoReply(messages, () => 2)
    .flatMap((p) => ("text" in p ? [p.text] : []))
    .join("\n");
const toolOf = (messages: DemoMessage[]) => demoReply(messages, () => 2).flatMap((p) => ("toolUse" in p ? [p.toolUse] : []));

describe("the offline demo", () => {
  it("answers what the user typed, not the review note, the fork report or the file that went with it", () => {
    const report = reportBlock({ from: "a fork", text: "it works" });
    const messages = [user("hi"), { role: "assistant", content: "Hello." }, user(report, todo, "now list files", reviewed)];
    expect(textOf(messages)).toBe(`(offline demo) I'll add "now list files" to TODO.md.`);
    expect(toolOf(messages)[0]!.input).toEqual({ path: "TODO.md", find: "- write docs", replace: "- write docs\n- now list files" });
  });

  it("takes none of tine's own prompts for the user's words", () => {
    expect(textOf([user(SUMMARY_PROMPT)])).toContain('You said: "".');
  });

  const edit: DemoBlock[] = [{ type: "tool_use", name: "edit_file" }];
  const result = (isError: boolean, content: string): DemoMessage => ({
    role: "user",
    content: [{ type: "tool_result", is_error: isError, text: content }],
  });

  it("says an edit the user denied was not made", () => {
    const text = textOf([user(todo, "add a line"), { role: "assistant", content: edit }, result(true, deniedText())]);
    expect(text).toContain("The edit was not made");
    expect(text).not.toContain("Done.");
  });

  it("says an edit that was made is done", () => {
    expect(textOf([user(todo, "add a line"), { role: "assistant", content: edit }, result(false, "edited")])).toMatch(/^Done\./);
  });

  it("answers a message typed with tool results (a fork's prompt), not the results", () => {
    const messages = [
      user("hi"),
      { role: "assistant", content: [{ type: "tool_use", name: "bash_command" }] },
      {
        role: "user",
        content: [
          { type: "tool_result", text: "a.txt" },
          { type: "text", text: "what if" },
        ],
      },
    ];
    expect(textOf(messages)).toContain('You said: "what if".');
  });
});

describe("the offline demo's prompt cache", () => {
  const system = [{ type: "text", text: "You are a demo. ".repeat(50), cache_control: { type: "ephemeral" } }];
  const asked = (text: string, mark = false) => ({
    role: "user",
    content: [{ type: "text", text, ...(mark ? { cache_control: { type: "ephemeral" } } : {}) }],
  });
  const assistant = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });

  it("writes a prefix at its breakpoints, and a later request starting with it reads it (a fork's first request)", () => {
    const cache = new DemoPromptCache();
    const first = cache.usage({ system, messages: [asked("explain the project", true)] });
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(0);
    const fork = cache.usage({ system, messages: [asked("explain the project"), assistant("It is tine."), asked("what if", true)] });
    expect(fork.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(fork.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it("reads nothing for another prefix, nor for a request without breakpoints", () => {
    const cache = new DemoPromptCache();
    cache.usage({ system, messages: [asked("one", true)] });
    const other = [{ ...system[0]!, text: "Another system prompt. ".repeat(50) }];
    expect(cache.usage({ system: other, messages: [asked("one", true)] }).cache_read_input_tokens).toBe(0);
    const plain = cache.usage({ messages: [asked("one")] });
    expect(plain).toEqual({ input_tokens: plain.input_tokens, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });
});
