/**
 * Reviewing the turns of a thread run by an ACP agent (issue #34), with the real Claude ACP
 * adapter (pinned) running Claude Code against the mock: the agent's own tools edit the file (a
 * Read, then a Write the mock scripts), the files are recorded before its prompt goes, so the
 * turn's change list and hunks are the agent's edits; one hunk undone in the working file, taken
 * back with `:Tine restore undo`, undone again, and the next prompt tells the agent, after the
 * user's text. Each adapter start costs a second or more: one scenario per Neovim.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { adapterAgents, KEY_VARIABLE, scriptAdapter, sendIn, TEST_KEY } from "../helpers/acp.ts";
import { saidIn } from "../helpers/claude-code.ts";
import { gitProject } from "../helpers/git-project.ts";
import type { Session } from "../helpers/neovim.ts";
import { withNeovim, withProject } from "../helpers/neovim.ts";
import { api, EDITED, LINES, withLine } from "../helpers/review-turn.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

type Hunk = { path: string; index: number; state: string };
const states = async (s: Session, id: string) =>
  ((await api<Hunk[]>(s, "hunks", id)) as Hunk[]).filter((h) => h.path === "lines.txt").map((h) => `${h.path}#${h.index} ${h.state}`);

describe(`reviewing a turn of an ACP agent (${nv.version})`, () => {
  it("the agent's edits are the turn's hunks; one undone, taken back, undone again; the next prompt tells the agent", async () => {
    await withProject(async (project) => {
      gitProject(project, { ".gitignore": ".state/\n.config/\n.data/\n.claude-config/\n.acp-home/\n.claude/\n", "lines.txt": LINES });
      const { agents } = adapterAgents(join(project, ".acp-home"), `\${ANTHROPIC_BASE_URL}`, project);
      const file = join(project, "lines.txt");
      await withNeovim(
        nv,
        async (s) => {
          const script = scriptAdapter(
            s.mock,
            response([{ toolUse: { id: "toolu_r", name: "Read", input: { file_path: file } } }], { id: "msg_read" }),
            response([{ toolUse: { id: "toolu_w", name: "Write", input: { file_path: file, content: EDITED } } }], { id: "msg_write" }),
            textReply("Edited.", { id: "msg_edited" }),
          );
          const id = await s.lua<string>("return require('tine').agent('claude')");
          await s.waitForDisplay(id, /◆ Run by the ACP agent "claude"/);
          await sendIn(s, id, "Edit lines.txt");
          await s.waitForDisplay(id, "Edited.");
          assert.equal(readFileSync(file, "utf8"), EDITED, "the agent wrote the file");
          await s.waitForDisplay(id, /▸ \d+ files? changed/);
          assert.deepEqual(await states(s, id), ["lines.txt#1 pending", "lines.txt#2 pending"]);

          assert.deepEqual(await api(s, "reject_hunk", id, "lines.txt", 1), { path: "lines.txt", index: 1, conflicts: 0 });
          assert.equal(readFileSync(file, "utf8"), withLine(LINES, 18, "LINE 18"));
          await s.cmd("Tine restore undo");
          await s.until("the agent's hunk is back", async () => readFileSync(file, "utf8") === EDITED);
          assert.deepEqual(await states(s, id), ["lines.txt#1 pending", "lines.txt#2 pending"]);
          assert.deepEqual(await api(s, "reject_hunk", id, "lines.txt", 1), { path: "lines.txt", index: 1, conflicts: 0 });
          assert.deepEqual(await states(s, id), ["lines.txt#1 undone", "lines.txt#2 pending"]);

          // The next prompt carries the note after the user's text.
          script.reply(textReply("Understood.", { id: "msg_ok" }));
          await sendIn(s, id, "go on");
          await s.waitForDisplay(id, "Understood.");
          const said = saidIn(script.conversation().at(-1)!.body);
          const note = said.find((t) => t.includes("[tine] Since your last turn, the user reviewed your edits"));
          assert.ok(note, `the note went with the prompt: ${said.join("\n---\n")}`);
          assert.match(note, /the user undid your change to lines\.txt line 2 .*these lines came back:\n {4}line 2\n/s);
          assert.ok(said.findIndex((t) => t.includes("go on")) <= said.indexOf(note), "the note comes after the user's text");
        },
        {
          cwd: project,
          env: { [KEY_VARIABLE]: TEST_KEY },
          setup: { acp_agents: { claude: { ...agents["claude"], mode: "bypassPermissions" } } },
        },
      );
    });
  });
});
