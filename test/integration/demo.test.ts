/** `npm run try`: the Neovim it starts, started the same way (scripts/try-init.mjs) but headless. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { tryInit } from "../../scripts/try-init.mjs";
import { projectDir, ROOT } from "../helpers/neovim.ts";

const nv = inject("nvim");

describe(`npm run try (${nv.version})`, () => {
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
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
