/**
 * Installing as a user does (README, Install): the README's lazy.nvim build command run in a clean
 * copy of the checkout, the size it leaves in the plugin folder, and the host it builds answering
 * in Neovim; and what a copy that was never built (a lazy.nvim `dir =` spec) tells its user.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { ROOT } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";
import { MockAnthropic } from "../mock-anthropic/server.ts";

const nv = inject("nvim");

/** The most a plugin manager's install may leave in the plugin folder (issue #30). */
const INSTALL_LIMIT_BYTES = 60_000_000;

/** The build command of the README's lazy.nvim spec: what a user's plugin manager runs. */
function readmeBuildCommand(): string {
  const spec = /\{ "OWNER\/tine\.nvim", build = "([^"]+)"/.exec(readFileSync(join(ROOT, "README.md"), "utf8"));
  assert.ok(spec, "README.md has no lazy.nvim spec with a build command");
  return spec[1]!;
}

/** The checkout's files as a clone has them (tracked, and new ones not ignored), copied to `dir`. */
function copyCheckout(dir: string): void {
  const files = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(files.status, 0, files.stderr);
  for (const f of files.stdout.split("\0")) {
    if (f === "" || !existsSync(join(ROOT, f))) continue; // a tracked file deleted in the working tree
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    copyFileSync(join(ROOT, f), join(dir, f));
  }
}

/** Bytes under `path` as `du -sb` counts them: files, links and folders, each hard-linked file once. */
function folderBytes(path: string, seen = new Set<string>()): number {
  const st = lstatSync(path);
  const id = `${st.dev}:${st.ino}`;
  if (seen.has(id)) return 0;
  seen.add(id);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((sum, name) => sum + folderBytes(join(path, name), seen), st.size);
}

/** The environment of a plugin manager's build: no npm settings of the `npm test` running this. */
function userEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/** Neovim's arguments: headless, with only `pluginDir` as tine, running `commands`, then quitting. */
const neovimArgs = (pluginDir: string, commands: string[]) => [
  ...["--headless", "-u", "NONE", "-i", "NONE", "-n", "--cmd", `set rtp^=${pluginDir}`, "--cmd", "runtime plugin/tine.lua"],
  ...[...commands, "qa!"].flatMap((c) => ["-c", c]),
];

/** What that Neovim writes to stdout, with its data and state under `cwd`. */
function neovimIn(pluginDir: string, cwd: string, commands: string[]): string {
  const r = spawnSync(nv.bin, neovimArgs(pluginDir, commands), {
    cwd,
    encoding: "utf8",
    timeout: 30_000,
    env: userEnv({ XDG_DATA_HOME: join(cwd, ".data"), XDG_STATE_HOME: join(cwd, ".state") }),
  });
  assert.equal(r.status, 0, `Neovim failed: ${r.stderr}`);
  return r.stdout;
}

describe(`installing (${nv.version})`, () => {
  describe("a copy that was never built (a lazy.nvim `dir =` spec)", () => {
    let tmp: string;
    let plugin: string;
    beforeAll(() => {
      tmp = mkdtempSync(join(tmpdir(), "tine-unbuilt-"));
      // lazy.nvim names a plugin after its folder: `dir = ".../tine.nvim"`.
      plugin = join(tmp, "tine.nvim");
      mkdirSync(join(plugin, "doc"), { recursive: true });
      for (const d of ["lua", "plugin"]) symlinkSync(join(ROOT, d), join(plugin, d));
      copyFileSync(join(ROOT, "doc/tine.txt"), join(plugin, "doc/tine.txt"));
    });
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));

    const errorOfTine = (before: string[]) =>
      neovimIn(plugin, tmp, [...before, 'lua require("tine").setup({})', "silent! Tine", "lua io.stdout:write(vim.v.errmsg)"]);

    it(":Tine says which command builds the host", () => {
      assert.equal(errorOfTine([]), `tine: the host is not built: run \`node scripts/install.mjs\` in ${plugin}`);
    });

    it("under lazy.nvim, :Tine names :Lazy build and the spec's build line", () => {
      assert.equal(
        errorOfTine(["lua package.loaded.lazy = {}"]),
        'tine: the host is not built: run :Lazy build tine.nvim (its spec needs build = "node scripts/install.mjs")',
      );
    });

    it(":checkhealth tine says the help is not tagged and how to tag it; then :help tine.nvim opens tine's help", () => {
      const report = (extra: string[]) =>
        neovimIn(plugin, tmp, [
          'lua require("tine").setup({})',
          ...extra,
          "checkhealth tine",
          "lua io.stdout:write(table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n'))",
        ]);
      assert.ok(report([]).includes(`WARNING help not tagged: run :helptags ${plugin}/doc`));
      assert.match(report([`helptags ${plugin}/doc`]), /OK help tagged: :help \|?tine\.nvim\|?$/m);
      const help = neovimIn(plugin, tmp, ["help tine.nvim", "lua io.stdout:write(vim.api.nvim_buf_get_name(0))"]);
      assert.equal(help, join(plugin, "doc/tine.txt"));
    });
  });

  // The build is the same whichever Neovim runs the tests (and takes ~20 s of both cores): it runs
  // once, with the newest Neovim under test; the unbuilt copy's messages above run in each.
  if (inject("newestUnderTest"))
    describe("the README's lazy.nvim build, in a clean copy of the checkout", () => {
      let tmp: string;
      let plugin: string;
      beforeAll(() => {
        tmp = mkdtempSync(join(tmpdir(), "tine-install-"));
        plugin = join(tmp, "tine.nvim");
        copyCheckout(plugin);
        const command = readmeBuildCommand();
        const started = performance.now();
        // As lazy.nvim runs it: through the shell, in the plugin's folder. From npm's cache, which
        // `npm ci` of this checkout filled: the test needs no network.
        const r = spawnSync("sh", ["-c", command], { cwd: plugin, encoding: "utf8", env: userEnv({ npm_config_prefer_offline: "true" }) });
        assert.equal(r.status, 0, `${command} failed:\n${r.stdout}\n${r.stderr}`);
        console.log(`install: \`${command}\` took ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }, 240_000);
      afterAll(() => rmSync(tmp, { recursive: true, force: true }));

      it(`leaves at most ${INSTALL_LIMIT_BYTES / 1e6} MB in the plugin folder`, () => {
        const bytes = folderBytes(plugin);
        console.log(`install: ${(bytes / 1e6).toFixed(1)} MB in the plugin folder (limit ${INSTALL_LIMIT_BYTES / 1e6} MB)`);
        assert.ok(bytes <= INSTALL_LIMIT_BYTES, `${(bytes / 1e6).toFixed(1)} MB`);
      });

      it("its bundles load with nothing but dist/ (the SDKs the host loads on first use too)", () => {
        const r = spawnSync(process.execPath, ["-e", 'for (const f of ["sdk", "mcp-sdk"]) require("./dist/" + f + ".cjs")'], {
          cwd: plugin,
          encoding: "utf8",
          env: userEnv({ NODE_PATH: "" }),
        });
        assert.equal(r.status, 0, r.stderr);
      });

      it("Neovim with that folder as tine sends, and its host gets the reply", async () => {
        const mock = await MockAnthropic.start();
        mock.reply(textReply("hello from the installed host"));
        const cwd = join(tmp, "project");
        mkdirSync(cwd);
        // The thread as the host holds it once the reply is in (tine.messages()).
        const lua = [
          "require('tine').setup({ auto_title = false })",
          "vim.cmd('Tine')",
          "local tine = require('tine')",
          "local id = tine.current()",
          "tine.send(id, 'hello')",
          "vim.wait(30000, function() return #tine.messages(id) == 2 end, 20)",
          "io.stdout:write(vim.json.encode(tine.messages(id)))",
        ].join("; ");
        let proc: ChildProcess | undefined;
        try {
          // Not spawnSync: the mock answers from this process.
          proc = spawn(nv.bin, neovimArgs(plugin, [`lua ${lua}`]), {
            cwd,
            env: userEnv({
              ANTHROPIC_API_KEY: "test-key",
              ANTHROPIC_BASE_URL: mock.url,
              XDG_DATA_HOME: join(cwd, ".data"),
              XDG_STATE_HOME: join(cwd, ".state"),
            }),
          });
          let stdout = "";
          let stderr = "";
          proc.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
          proc.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
          const code = await new Promise<number | null>((resolve) => proc!.once("exit", resolve));
          assert.equal(code, 0, stderr);
          const messages = JSON.parse(stdout) as { role: string; content: { type: string; text?: string }[] }[];
          assert.deepEqual(
            messages.map((m) => [m.role, m.content.find((c) => c.type === "text")?.text]),
            [
              ["user", "hello"],
              ["assistant", "hello from the installed host"],
            ],
          );
        } finally {
          proc?.kill("SIGKILL");
          await mock.close();
        }
      });
    });
});
