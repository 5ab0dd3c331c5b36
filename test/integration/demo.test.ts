/** `npm run try`: the Neovim it starts, started the same way (scripts/try-init.mjs) but headless. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { demoEnv, demoFolder, tryInit } from "../../scripts/try-init.mjs";
import { typeAndSend } from "../helpers/chat-driver.ts";
import { projectDir, ROOT, withNeovim } from "../helpers/neovim.ts";
import { demoAnswers } from "../mock-anthropic/demo-answers.ts";

const nv = inject("nvim");

/**
 * Lines of a help file where a `code` span opens and does not close (Vim's help highlighting and
 * the vimdoc parser end a span at its line: the rest shows a stray backtick). Example blocks (from
 * a line ending in `>` to one starting with `<` or not indented) are shown as written: not checked.
 */
function unclosedSpans(text: string): string[] {
  const out: string[] = [];
  let example = false;
  text.split("\n").forEach((line, i) => {
    let prose = line;
    if (example) {
      if (line.startsWith("<")) prose = line.slice(1);
      else if (line === "" || /^\s/.test(line)) return;
      example = false;
    }
    if (/(^|\s)>$/.test(prose)) {
      example = true;
      prose = prose.slice(0, -1);
    }
    if ((prose.match(/`/g) ?? []).length % 2 === 1) out.push(`${i + 1}: ${line}`);
  });
  return out;
}

describe(`npm run try (${nv.version})`, () => {
  it(":help tine opens and closes every `code` span on one line (no stray backtick)", () => {
    assert.deepEqual(unclosedSpans(readFileSync(join(ROOT, "doc/tine.txt"), "utf8")), []);
  });

  it(":help tine works in the demo's Neovim", () => {
    const cwd = projectDir();
    // A checkout as a fresh clone has it: its help, no tags made yet (this one's doc/tags is other tests').
    const checkout = join(cwd, "checkout");
    mkdirSync(join(checkout, "doc"), { recursive: true });
    copyFileSync(join(ROOT, "doc/tine.txt"), join(checkout, "doc/tine.txt"));
    for (const dir of ["lua", "plugin"]) symlinkSync(join(ROOT, dir), join(checkout, dir));
    try {
      const r = spawnSync(
        nv.bin,
        [
          "--headless",
          "-u",
          "NONE",
          "-i",
          "NONE",
          "--cmd",
          tryInit(checkout, join(cwd, "data")),
          "-c",
          "help tine",
          "-c",
          "lua io.stdout:write(vim.api.nvim_buf_get_name(0))",
          "-c",
          "qa!",
        ],
        {
          cwd,
          encoding: "utf8",
          timeout: 30_000,
          env: { ...process.env, XDG_DATA_HOME: join(cwd, ".data"), XDG_STATE_HOME: join(cwd, ".state") },
        },
      );
      assert.match(r.stdout, /doc\/tine\.txt$/, `stdout: ${r.stdout}\nstderr: ${r.stderr}`);
      // Tagged in the demo's folder: the checkout gets no doc/tags.
      assert.ok(r.stdout.startsWith(`${demoFolder(checkout).help}/`), r.stdout);
      assert.ok(!existsSync(join(checkout, "doc", "tags")), "the checkout's doc/ was tagged");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("the offline demo keeps what it writes in its folder: its threads, the host's log and code cache, none in the user's folders", async () => {
    const cwd = projectDir();
    const checkout = join(cwd, "checkout");
    mkdirSync(join(checkout, "doc"), { recursive: true });
    copyFileSync(join(ROOT, "doc/tine.txt"), join(checkout, "doc/tine.txt"));
    for (const dir of ["lua", "plugin", "dist"]) symlinkSync(join(ROOT, dir), join(checkout, dir));
    const demo = demoFolder(checkout);
    const user = { XDG_DATA_HOME: join(cwd, ".data"), XDG_STATE_HOME: join(cwd, ".state") };
    try {
      const r = spawnSync(
        nv.bin,
        [
          "--headless",
          "-u",
          "NONE",
          "-i",
          "NONE",
          "--cmd",
          tryInit(checkout, demo.data),
          "-c",
          // The host started (it writes its code cache as it exits, after Neovim).
          `lua require("tine.host").request("store_health"); io.stdout:write(vim.json.encode({ log = require("tine.host").log_path(), data = require("tine.config").options.data_dir }))`,
          "-c",
          "qa!",
        ],
        { cwd, encoding: "utf8", timeout: 30_000, env: demoEnv(checkout, { ...process.env, ...user }) },
      );
      const where = JSON.parse(r.stdout) as { log: string; data: string };
      assert.equal(where.data, join(demo.dir, "data"), `stderr: ${r.stderr}`);
      assert.ok(where.log.startsWith(`${demo.dir}/`), `the log is in the demo's folder: ${where.log}`);
      assert.ok(existsSync(join(where.log, "..")), "and its folder is there to write it in");
      assert.ok(!existsSync(join(user.XDG_STATE_HOME, "nvim", "tine.log")));
      const cached = () => (existsSync(demo.hostCache) ? readdirSync(demo.hostCache).filter((f) => f.endsWith(".v8cache")) : []);
      for (const deadline = Date.now() + 20_000; cached().length === 0 && Date.now() < deadline; )
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(cached().length, 1, "the host's code cache is in the demo's folder, not beside the checkout's build");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe(`the offline demo's replies (${nv.version})`, () => {
  it("a fork's first request reads its parent's prompt cache, as against the API: its list line has no cold-start warning", async () => {
    await withNeovim(nv, async (s) => {
      const demo = demoAnswers(0);
      s.mock.otherwise(demo.reply).otherwiseTitle(demo.title);
      await s.cmd("Tine");
      const parent = (await s.threads())[0]!;
      await typeAndSend(s, "explain the project");
      await s.waitForDisplay(parent.id, "awaiting approval");
      await s.onDisplayLine(parent.id, "🔧 bash_command: $ ls", "d");
      await s.waitForStatus(parent.id, "idle");
      await s.focus(parent.input_bufnr!);
      await typeAndSend(s, "@fork what if");
      await s.waitForThreadCount(2);
      const fork = (await s.threads()).find((t) => t.id !== parent.id)!;
      await s.waitForDisplay(fork.id, "awaiting approval");
      await s.openList();
      const line = (await s.listLines())[(await s.listLine("⑂ ")) - 1]!;
      assert.match(line, /tok/, `its usage is counted: ${line}`);
      assert.doesNotMatch(line, /read no cache/);
    });
  });
});
