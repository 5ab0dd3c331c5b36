/** The offline demo's script (test/mock-anthropic/demo-replies.ts): what `npm run try` answers without a key. */
import { describe, expect, it } from "vitest";
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
