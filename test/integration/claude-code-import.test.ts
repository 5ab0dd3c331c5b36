/**
 * Importing Claude Code sessions made by the real CLI (against the mock): the picker tells a
 * session from its fork, and the fork comes in to its last reply; lines of odd
 * types are left out and named; a session id that is not a UUID is refused before anything runs.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { texts } from "../helpers/chat-driver.ts";
import { claudeEnv, cliEnv, requireClaude, runClaude } from "../helpers/claude-code.ts";
import { withNeovim } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

describe(`importing Claude Code sessions (${nv.version})`, () => {
  it("the picker tells a session from its fork by last prompt, message count and short id; the fork imports whole", async () => {
    requireClaude();
    await withNeovim(nv, async (s) => {
      const env = claudeEnv(join(s.cwd, ".claude-config"), s.mock.url, s.cwd);
      const source = "11111111-1111-4111-8111-111111111111";
      const fork = "22222222-2222-4222-8222-222222222222";
      s.mock.reply(textReply("Source answer."), textReply("Fork answer."));
      await runClaude(["-p", "first question", "--session-id", source], s.cwd, env);
      await runClaude(["-p", "second question", "--resume", source, "--fork-session", "--session-id", fork], s.cwd, env);
      assert.equal(s.mock.requests.length, 2);

      await s.pick(1);
      await s.cmd("Tine import");
      const items = (await s.asked()).items ?? [];
      assert.equal(items.length, 2);
      assert.match(items[0]!, /second question · 4 msgs · 22222222$/, "the fork, newest first");
      assert.match(items[1]!, /first question · 2 msgs · 11111111$/);
      const t = (await s.threads()).at(-1)!;
      assert.deepEqual(texts(await s.messages(t.id)), ["first question", "Source answer.", "second question", "Fork answer."]);
    });
  });

  it("a transcript with lines of odd types is imported without them, and the notice names each line", async () => {
    await withNeovim(nv, async (s) => {
      const line = (r: object) => `${JSON.stringify(r)}\n`;
      const path = join(s.cwd, "odd.jsonl");
      writeFileSync(
        path,
        line({ type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "what is here?" } }) +
          line({ type: "assistant", uuid: "a1", parentUuid: "u1", message: { id: "m1", role: "assistant", content: [null] } }) +
          line({
            type: "assistant",
            uuid: "a2",
            parentUuid: "a1",
            message: { id: "m1", role: "assistant", content: [{ type: "text", text: "A file." }] },
          }) +
          line({
            type: "user",
            uuid: "u2",
            parentUuid: "a2",
            message: { role: "user", content: [{ type: "text", text: { not: "text" } }] },
          }),
      );
      await s.cmd(`Tine import ${path}`);
      await s.notified(
        /odd\.jsonl: some lines could not be imported and were left out \(line 2: a content block that is not an object; line 4: a text block whose text is not a string\)/,
      );
      const t = (await s.threads()).at(-1)!;
      assert.deepEqual(texts(await s.messages(t.id)), ["what is here?", "A file."]);
    });
  });

  it(":Tine claude with a --session-id that is not a UUID is refused, as the CLI refuses it", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await s.cmd("Tine claude --session-id ../../x");
        await s.notified(/--session-id "\.\.\/\.\.\/x" is not a UUID \(Claude Code takes only UUIDs\)/);
        assert.equal((await s.threads()).length, 0);
      },
      { setup: { claude_command: [requireClaude()] }, env: cliEnv },
    );
  });
});
