import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assert, describe, expect, it } from "vitest";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import { environmentFiles } from "./files.ts";
import { promptBlocks } from "./prompt-blocks.ts";

const folder = tempFolders("tine-acp-files-");

/** Waits for `p` to fail with `message` (the whole message, or a pattern). */
const rejects = (p: Promise<unknown>, message: string | RegExp) => expect(p).rejects.toThrow(message);

describe("the files tine serves an agent", () => {
  it("reads (whole, or lines from `line` for `limit`) and writes inside the thread's folder", async () => {
    const root = folder({ "a.txt": "one\ntwo\nthree\n" });
    const files = environmentFiles(localEnvironment(root));
    assert.equal(await files.readTextFile(join(root, "a.txt"), null, null), "one\ntwo\nthree\n");
    assert.equal(await files.readTextFile(join(root, "a.txt"), 2, 1), "two");
    await files.writeTextFile(join(root, "new.txt"), "fresh");
    await files.writeTextFile(join(root, "a.txt"), "replaced");
    assert.equal(readFileSync(join(root, "new.txt"), "utf8"), "fresh");
    assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "replaced");
  });

  it("refuses paths outside the folder, and relative ones, saying why", async () => {
    const outside = folder({ "secret.txt": "no" });
    const root = folder();
    const files = environmentFiles(localEnvironment(root));
    const outsidePath = join(outside, "secret.txt");
    await rejects(
      files.readTextFile(outsidePath, null, null),
      `tine refuses to read ${outsidePath}: it is outside the thread's folder (${root})`,
    );
    await rejects(files.writeTextFile(join(outside, "x.txt"), "x"), /tine refuses to write .*: it is outside the thread's folder/);
    await rejects(files.readTextFile("a.txt", null, null), 'tine refuses to read "a.txt": ACP paths must be absolute');
  });
});

describe("a message as an ACP prompt", () => {
  const parts = [
    { kind: "text", text: "Look at" },
    { kind: "file", path: "/p/a b.ts", text: "const a = 1;" },
    { kind: "file", path: "/p/big.bin", text: null },
  ] as const;

  it("embeds a mentioned file's text when the agent takes embedded context, else links it", () => {
    assert.deepEqual(promptBlocks(parts, { image: false, audio: false, embeddedContext: true }), [
      { type: "text", text: "Look at" },
      { type: "resource", resource: { uri: "file:///p/a%20b.ts", text: "const a = 1;", mimeType: "text/plain" } },
      { type: "resource_link", uri: "file:///p/big.bin", name: "big.bin" },
    ]);
    assert.deepEqual(promptBlocks(parts, { image: false, audio: false, embeddedContext: false })[1], {
      type: "resource_link",
      uri: "file:///p/a%20b.ts",
      name: "a b.ts",
    });
  });
});
