import assert from "node:assert/strict";
import { it } from "vitest";
import { parseSend } from "./send-command.ts";

it("recognises @fork with and without a prompt, only at the start", () => {
  assert.deepEqual(parseSend("@fork try the other way"), { type: "fork", prompt: "try the other way" });
  assert.deepEqual(parseSend("  @fork\n\nmulti\nline  "), { type: "fork", prompt: "multi\nline" });
  assert.deepEqual(parseSend("@fork"), { type: "fork", prompt: "" });
  assert.deepEqual(parseSend("@forklift"), { type: "message", text: "@forklift" });
  assert.deepEqual(parseSend("please @fork this"), { type: "message", text: "please @fork this" });
});
