import { describe, expect, it } from "vitest";
import { lastPromptOf } from "./activity.ts";

const line = (r: unknown) => JSON.stringify(r);

describe("lastPromptOf", () => {
  it("is the text of the last prompt typed: not a tool result, a meta record or the CLI's own markup", () => {
    const tail = [
      line({ type: "user", uuid: "1", message: { role: "user", content: "first prompt" } }),
      line({ type: "assistant", uuid: "2", message: { role: "assistant", content: [{ type: "text", text: "Reply." }] } }),
      line({ type: "user", uuid: "3", message: { role: "user", content: [{ type: "text", text: "second prompt" }] } }),
      line({ type: "user", uuid: "4", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "out" }] } }),
      line({ type: "user", uuid: "5", isMeta: true, message: { role: "user", content: "meta" } }),
      line({ type: "user", uuid: "6", message: { role: "user", content: "<command-name>/clear</command-name>" } }),
      '{"type":"user","cut mid-wri',
    ].join("\n");
    expect(lastPromptOf(tail)).toBe("second prompt");
    expect(lastPromptOf(line({ type: "system", subtype: "turn_duration" }))).toBeNull();
  });
});
