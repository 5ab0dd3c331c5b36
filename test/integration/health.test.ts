/**
 * `:checkhealth tine` as the user reads it: Node, the build, the key's presence, Neovim, the host
 * log, and whether an unattended fork's sandbox (bubblewrap) can start here. The failing sandbox
 * is a real program: a `bwrap` first on PATH that fails as bwrap does where user namespaces are
 * off, so the host's probe meets exactly what such a machine gives it.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { withNeovim } from "../helpers/neovim.ts";

const nv = inject("nvim");
const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A folder holding an executable `bwrap` that fails as bwrap does without user namespaces; removed after `fn`. */
async function withFailingBwrap(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tine-bwrap-"));
  try {
    const bwrap = join(dir, "bwrap");
    writeFileSync(bwrap, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n");
    chmodSync(bwrap, 0o755);
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe(`:checkhealth tine (${nv.version})`, () => {
  it(":checkhealth tine reports Node, the build, the key's presence (not its value) and Neovim", async () => {
    await withNeovim(
      nv,
      async (s) => {
        const text = await s.health();
        assert.match(text, /Neovim 0\.\d+/);
        assert.match(text, /Node v\d+/);
        assert.match(text, /host built/);
        assert.match(text, /ANTHROPIC_API_KEY is set/);
        assert.match(text, /model claude-sonnet-5-5 · max_tokens 32000 · thinking adaptive · effort model default/);
        assert.ok(!text.includes("secret-value-123"));
        // The host log is named as written only once it is: before, that nothing is logged yet.
        const log = await s.lua<string>("return require('tine.host').log_path()");
        rmSync(log, { force: true });
        assert.match(await s.health(), new RegExp(`host log: ${escapeRe(log)} \\(nothing logged yet\\)`));
        writeFileSync(log, "12:00:00 something\n");
        assert.match(await s.health(), new RegExp(`host log: ${escapeRe(log)}\n`));
      },
      { env: { ANTHROPIC_API_KEY: "secret-value-123" } },
    );
  });

  it("says the sandbox can start where bubblewrap works (the test machine has it)", async () => {
    await withNeovim(nv, async (s) => {
      assert.match(await s.health(), /OK sandbox: bubblewrap works: unattended forks can run\n/);
    });
  });

  it("where bwrap cannot create its namespaces, warns with bwrap's own words and how to allow them", async () => {
    await withFailingBwrap(async (dir) => {
      await withNeovim(
        nv,
        async (s) => {
          const text = await s.health();
          assert.match(
            text,
            /WARNING sandbox: bwrap cannot create its namespaces: bwrap: setting up uid map: Permission denied: unattended forks cannot run\n/,
          );
          assert.match(text, /ADVICE:\n\s*- allow unprivileged user namespaces: .*kernel\.apparmor_restrict_unprivileged_userns=0/);
          assert.doesNotMatch(text, /bubblewrap works/);
        },
        { env: { PATH: `${dir}:${process.env["PATH"]}` } },
      );
    });
  });

  it("where the host cannot start, still reports the rest and says the sandbox could not be checked", async () => {
    await withNeovim(
      nv,
      async (s) => {
        const text = await s.health();
        assert.match(text, /`no-such-node` not found: install Node >= 20/);
        assert.match(text, /ERROR the host could not check the sandbox: tine: `no-such-node` \(Node >= 20\) was not found/);
        // The sections after it are still there.
        assert.match(text, /tine\.nvim: worktrees/);
      },
      { setup: { node: "no-such-node" } },
    );
  });
});
