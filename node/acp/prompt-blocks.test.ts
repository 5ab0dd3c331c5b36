import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { writeContextBlock } from "../context/blocks.ts";
import { promptBlocks, promptParts } from "./prompt-blocks.ts";

describe("a message as an ACP prompt", () => {
  const blocks = [
    { type: "text" as const, text: writeContextBlock({ kind: "file", path: "src/a.ts", text: "1\n", unsaved: false, changed: false }) },
    { type: "text" as const, text: writeContextBlock({ kind: "git-diff", mention: "@diff", text: "+x\n" }) },
    { type: "text" as const, text: "look at @file:src/a.ts" },
  ];

  it("takes each @file mention as a file of the session's folder, the rest as text", () => {
    const parts = promptParts(blocks, "/p");
    assert.deepEqual(parts[0], { kind: "file", path: "/p/src/a.ts", text: "1\n" });
    assert.equal(parts[1]?.kind, "text");
    assert.deepEqual(parts[2], { kind: "text", text: "look at @file:src/a.ts" });
  });

  it("embeds the file where the agent takes embedded context, else links it", () => {
    const parts = promptParts(blocks.slice(0, 1), "/p");
    assert.deepEqual(promptBlocks(parts, { image: false, audio: false, embeddedContext: true }), [
      { type: "resource", resource: { uri: "file:///p/src/a.ts", text: "1\n", mimeType: "text/plain" } },
    ]);
    assert.deepEqual(promptBlocks(parts, { image: false, audio: false, embeddedContext: false }), [
      { type: "resource_link", uri: "file:///p/src/a.ts", name: "a.ts" },
    ]);
  });
});
