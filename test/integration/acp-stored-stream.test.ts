/**
 * An ACP thread's turn while it streams, stored as a block's streamed text is: not with each
 * update (a turn is thousands of them) but at most a second behind what is drawn, so a kill -9 of
 * the host mid-turn keeps what was drawn up to then. The real Claude ACP adapter (pinned) runs
 * Claude Code against the mock Messages API, which holds its reply mid-stream.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { adapterAgents, KEY_VARIABLE, scriptAdapter, sendIn, TEST_KEY } from "../helpers/acp.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { response } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

/** Every stored transcript's text under `dir`. */
function storedText(dir: string): string {
  if (!existsSync(dir)) return "";
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
}

describe(`an ACP turn stored while it streams (${nv.version})`, () => {
  it("SIGKILL of the host mid-turn: after :Tine restart the thread shows the reply as far as it was drawn a second before", async () => {
    await withProject(async (project) => {
      const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
      await withNeovim(
        nv,
        async (s) => {
          const arrived = "A reply that streams in many small pieces. ".repeat(20);
          scriptAdapter(
            s.mock,
            response([{ text: `${arrived}never arrived`, chunk: 8, holdInside: { hold: "h", afterDeltas: arrived.length / 8 } }], {
              id: "msg_long",
            }),
          );
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
          await sendIn(s, id, "Tell me a long story");
          await s.mock.reached("h");
          // Claude Code passes the text on in pieces of its own: what it has drawn of it by now.
          const drawn = arrived.slice(0, 300);
          await s.waitForDisplay(id, drawn);
          // Written about once a second while it streams, not per update: wait for it on disk.
          const data = join(project, ".data");
          await s.until("the drawn reply on disk", async () => storedText(data).includes(drawn));
          process.kill(await s.hostPid(), "SIGKILL");
          await s.until("the host's death to be noticed", async () => !(await s.lua<boolean>("return require('tine.host').running()")));
          await s.cmd("Tine restart");
          await s.until("the thread listed again", async () => (await s.threads()).some((x) => x.id === id));
          await s.open(id);
          const shown = await s.waitForDisplay(id, drawn);
          assert.doesNotMatch(shown, /never arrived/);
          assert.deepEqual(
            (await s.messages(id)).map((m) => m.role),
            ["user", "assistant"],
          );
          s.mock.release("h");
        },
        { cwd: project, env: { [KEY_VARIABLE]: TEST_KEY }, setup: { acp_agents: agents } },
      );
    });
  });
});
