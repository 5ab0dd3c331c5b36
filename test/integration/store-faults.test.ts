/**
 * Storage when the disk refuses writes, in real Neovim: `data_dir` on a 1 MB tmpfs that fills up,
 * or is remounted read-only. Threads work on in memory, say (in the list and their banner) that
 * they are not being saved and why, the user is told once each way, and once the disk takes
 * writes again every thread is written whole: after a restart nothing is missing.
 */
import assert from "node:assert/strict";
import { afterEach, describe, inject, it } from "vitest";
import { exchange, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { alive, projectDir, type Session, withNeovim } from "../helpers/neovim.ts";
import { mountTmpfs, type Tmpfs, tmpfsRefused } from "../helpers/tmpfs.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});
function setUp(): { disk: Tmpfs; cwd: string } {
  const disk = mountTmpfs("1m");
  const cwd = projectDir();
  cleanup.push(() => disk.close());
  return { disk, cwd };
}

/** Polls `check` until it holds (outside a Neovim session). */
async function eventually(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const notSavedNotices = async (s: Session) => (await s.notifications()).filter((n) => /not being saved/.test(n.msg));

/** A reply of about 100 KB, in lines: more than the full disk can take in a file's last page. */
const LONG = Array.from({ length: 4000 }, (_, i) => `line ${i} of a long reply`).join("\n");

describe.skipIf(tmpfsRefused !== null)(
  `a data_dir that refuses writes (${nv.version})${tmpfsRefused ? ` (skipped: ${tmpfsRefused})` : ""}`,
  () => {
    it("a full disk: threads work on, say they are not saved and why, once each; freed, everything is written and comes back whole", async () => {
      const { disk, cwd } = setUp();
      const ids: string[] = [];
      const expected: string[][] = [];
      await withNeovim(
        nv,
        async (s) => {
          const first = await oneExchange(s, "first question", "First answer.");
          disk.fill();
          s.mock.reply(textReply(LONG));
          await typeAndSend(s, "second question");
          await s.waitForDisplay(first, "line 3999 of a long reply");
          await s.notified(new RegExp(`not being saved \\(no space left on ${disk.dir}\\): "first question"`));
          await s.waitForDisplay(first, `⚠ Not being saved: no space left on ${disk.dir}.`);
          // A thread made while the disk is full works too, and is told of once.
          await s.cmd("Tine new");
          await exchange(s, 2, "made on a full disk", "Answered anyway.");
          const second = (await s.thread(2)).id;
          await s.waitForDisplay(second, "⚠ Not being saved: no space left on");
          await s.open(first);
          await exchange(s, first, "third question", "Third answer.");
          assert.equal((await notSavedNotices(s)).length, 2, "one notice per thread that stopped being saved, none per failed write");
          await s.openList();
          const line = (await s.listLines())[(await s.listLine(`⚠ not saved: no space left on ${disk.dir}`)) - 1]!;
          assert.match(line, /first question {2}· idle · 6 msgs · /);

          disk.free();
          await s.notified(/saving works again: .*"first question"/);
          await s.notified(/saving works again: .*"made on a full disk"/);
          // Each display is drawn again on its own: both are waited for.
          const saved = async (id: string) => !(await s.display(id)).includes("Not being saved");
          await s.until("both banners to go", async () => (await saved(first)) && (await saved(second)));
          await s.until("the list to show no failure", async () => !(await s.listText()).includes("not saved"));
          ids.push(first, second);
          for (const id of ids) expected.push(texts(await s.messages(id)));
        },
        { cwd, setup: { data_dir: disk.dir } },
      );
      assert.deepEqual(expected[0], ["first question", "First answer.", "second question", LONG, "third question", "Third answer."]);
      await withNeovim(
        nv,
        async (s) => {
          await s.openList();
          assert.doesNotMatch(await s.listText(), /unreadable|⚠/);
          for (const [i, id] of ids.entries()) {
            await s.open(id);
            assert.deepEqual(texts(await s.messages(id)), expected[i]);
          }
        },
        { cwd, setup: { data_dir: disk.dir } },
      );
    });

    it("a read-only data_dir: a stored thread opens and works on, said to be read-only (not a missing file), and is written once the disk is writable", async () => {
      const { disk, cwd } = setUp();
      let id = "";
      let hostPid = 0;
      await withNeovim(
        nv,
        async (s) => {
          id = await oneExchange(s, "before read-only", "Stored.");
          hostPid = await s.hostPid();
        },
        { cwd, setup: { data_dir: disk.dir } },
      );
      // A disk with files open for writing cannot be made read-only: the first host must be gone.
      await eventually("the first host to exit", () => !alive(hostPid));
      disk.readOnly(true);
      cleanup.push(() => disk.readOnly(false));
      await withNeovim(
        nv,
        async (s) => {
          await s.open(id);
          await s.waitForDisplay(id, `⚠ Not being saved: ${disk.dir} is read-only.`);
          await s.notified(new RegExp(`not being saved \\(${disk.dir} is read-only\\): "before read-only"`));
          await exchange(s, id, "while read-only", "Kept in memory.");
          disk.readOnly(false);
          await s.notified(/saving works again: "before read-only" is written/);
          await s.until("the banner to go", async () => !(await s.display(id)).includes("Not being saved"));
          assert.equal((await notSavedNotices(s)).length, 1);
        },
        { cwd, setup: { data_dir: disk.dir } },
      );
      await withNeovim(
        nv,
        async (s) => {
          await s.open(id);
          assert.deepEqual(texts(await s.messages(id)), ["before read-only", "Stored.", "while read-only", "Kept in memory."]);
        },
        { cwd, setup: { data_dir: disk.dir } },
      );
    });
  },
);
