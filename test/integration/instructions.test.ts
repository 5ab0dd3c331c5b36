/**
 * Project instructions as a user meets them: AGENTS.md, CLAUDE.md and their own file under
 * $XDG_CONFIG_HOME go in a thread's system prompt after tine's text, the banner names them, and a
 * thread keeps what it started with (a later edit, a restart, a fork change nothing of it).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { readsCacheOf } from "../helpers/cache-prefix.ts";
import { body, exchange } from "../helpers/chat-driver.ts";
import { oneExchange } from "../helpers/fixtures.ts";
import { type Session, tempProjects, withNeovim } from "../helpers/neovim.ts";
import { textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** A project holding AGENTS.md and CLAUDE.md, and the user's own file where tests put XDG_CONFIG_HOME (neovim.ts). */
function projectWithInstructions(): string {
  const cwd = project();
  writeFileSync(join(cwd, "AGENTS.md"), "Run the tests before you say done.\n");
  writeFileSync(join(cwd, "CLAUDE.md"), "Prefer small commits.\n");
  mkdirSync(join(cwd, ".config", "tine"), { recursive: true });
  writeFileSync(join(cwd, ".config", "tine", "AGENTS.md"), "Answer in plain words.\n");
  return cwd;
}

/** The `system` blocks of request `i`. */
function systemOf(s: Session, i: number) {
  const system = body(s, i).system;
  assert.ok(Array.isArray(system), `request ${i} has system blocks`);
  return system;
}

/** The text of the system block that follows tine's own in request `i` (its instructions). */
const instructionsOf = (s: Session, i: number): string => systemOf(s, i)[1]?.text ?? "";

const firstLine = async (s: Session, ref: string | number) => (await s.display(ref)).split("\n")[0] ?? "";

describe(`project instructions (${nv.version})`, () => {
  it("the user's file, AGENTS.md and CLAUDE.md follow tine's text in the first request's system prompt; the banner and :checkhealth name them", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "hello", "Hi.");
        const tine = await s.lua<string>("return require('tine.config').options.system_prompt");
        const system = systemOf(s, 0);
        assert.equal(system.length, 2);
        assert.deepEqual(system[0], { type: "text", text: tine }, "tine's own text first, as it is");
        assert.deepEqual(system[1]!.cache_control, { type: "ephemeral" }, "one breakpoint after both");
        const text = system[1]!.text;
        const at = (s: string) => text.indexOf(s);
        assert.ok(at('<instructions file=".config/tine/AGENTS.md">\nAnswer in plain words.\n</instructions>') > 0);
        assert.ok(
          at('<instructions file="AGENTS.md">\nRun the tests before you say done.\n</instructions>') > at("Answer in plain words."),
        );
        assert.ok(at('<instructions file="CLAUDE.md">\nPrefer small commits.\n</instructions>') > at("Run the tests"));
        assert.equal(await firstLine(s, 1), "instructions: .config/tine/AGENTS.md, AGENTS.md, CLAUDE.md");
        const health = await s.health();
        assert.match(health, /AGENTS\.md: sent to new threads[\s\S]*CLAUDE\.md: sent to new threads/);
      },
      { cwd: projectWithInstructions() },
    );
  });

  it("editing AGENTS.md changes nothing for a thread already started; a new thread reads the new text", async () => {
    const cwd = projectWithInstructions();
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "first", "One.");
        writeFileSync(join(cwd, "AGENTS.md"), "Use tabs, never spaces.\n");
        await exchange(s, 1, "second", "Two.");
        assert.deepEqual(systemOf(s, 1), systemOf(s, 0), "the same system prompt: its cache stays valid");
        assert.ok(readsCacheOf(body(s, 1), body(s, 0)));
        await s.cmd("Tine new");
        await exchange(s, 2, "third", "Three.");
        assert.match(instructionsOf(s, 2), /<instructions file="AGENTS.md">\nUse tabs, never spaces\.\n<\/instructions>/);
        assert.doesNotMatch(instructionsOf(s, 2), /Run the tests/);
      },
      { cwd },
    );
  });

  it("a fork's first request keeps its source's system prompt; after a restart, the thread, its fork and a fork of it taken from disk send it still", async () => {
    const cwd = projectWithInstructions();
    await withNeovim(
      nv,
      async (s) => {
        const id = await oneExchange(s, "plan", "Planned.");
        await exchange(s, 2, "@fork another way", "Forked.");
        assert.deepEqual(systemOf(s, 1), systemOf(s, 0));
        assert.ok(readsCacheOf(body(s, 1), body(s, 0)), "the fork's first request reads its source's cache");
        const fork = (await s.thread(2)).id;
        assert.equal(await firstLine(s, 2), '⑂ Forked from "plan" at Claude\'s reply "Planned." · gp: go to parent');
        assert.match(await s.display(2), /\ninstructions: \.config\/tine\/AGENTS\.md, AGENTS\.md, CLAUDE\.md\n/);

        // The files change, then the host starts again: every stored thread sends what it started with.
        writeFileSync(join(cwd, "AGENTS.md"), "Something else entirely.\n");
        writeFileSync(join(cwd, "CLAUDE.md"), "And this too.\n");
        await s.cmd("Tine restart");
        s.mock.reply(textReply("From disk."));
        const fromDisk = await s.lua<string>("return require('tine').fork(..., 'from disk')", id);
        await s.waitForDisplay(fromDisk, "From disk.");
        assert.deepEqual(systemOf(s, 2), systemOf(s, 0), "a fork of the stored thread, taken without loading it");
        assert.ok(readsCacheOf(body(s, 2), body(s, 0)));
        await s.open(id);
        await exchange(s, id, "go on", "Went on.");
        assert.deepEqual(systemOf(s, 3), systemOf(s, 0), "the thread, loaded again");
        assert.match(await firstLine(s, id), /^instructions: \.config\/tine\/AGENTS\.md, AGENTS\.md, CLAUDE\.md$/);
        await s.open(fork);
        await exchange(s, fork, "and the fork?", "Also.");
        assert.deepEqual(systemOf(s, 4), systemOf(s, 0), "its fork, loaded again (its file points into its source's)");
      },
      { cwd },
    );
  });

  it("instructions = false sends tine's text alone and the banner names none", async () => {
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "hello", "Hi.");
        const tine = await s.lua<string>("return require('tine.config').options.system_prompt");
        assert.deepEqual(systemOf(s, 0), [{ type: "text", text: tine, cache_control: { type: "ephemeral" } }]);
        assert.doesNotMatch(await s.display(1), /instructions:/);
        assert.match(await s.health(), /instructions = false: no instruction files are sent/);
      },
      { cwd: projectWithInstructions(), setup: { instructions: false } },
    );
  });

  it("files set in setup replace the default list whole; a wrong value is reported at setup, naming the option", async () => {
    await withNeovim(nv, async (s) => {
      const options = await s.lua<{ files: string[]; max_bytes: number }>(
        "return require('tine.config').setup({ instructions = { files = { 'docs/agents.md' } } }).instructions",
      );
      assert.deepEqual(options, { files: ["docs/agents.md"], max_bytes: 32768 });
      await s.lua("require('tine.config').setup({ instructions = { files = 'AGENTS.md' } })");
      assert.match(await s.lastNotification(), /^tine: setup: instructions\.files must be a list of strings \(got "AGENTS\.md"\)$/);
    });
  });

  it("a file that cannot be read does not stop the thread, and one over max_bytes is cut: the banner says both", async () => {
    const cwd = project();
    mkdirSync(join(cwd, "AGENTS.md"));
    writeFileSync(join(cwd, "CLAUDE.md"), `${"Keep it short. ".repeat(20)}THE END`);
    await withNeovim(
      nv,
      async (s) => {
        await oneExchange(s, "hello", "Hi.");
        assert.equal(
          await firstLine(s, 1),
          "instructions: AGENTS.md (could not be read: it is a directory), CLAUDE.md (cut: 307 bytes, over instructions.max_bytes)",
        );
        const text = instructionsOf(s, 0);
        assert.match(
          text,
          /<instructions file="CLAUDE.md">\n(Keep it short\. ){6}Keep it sh\n\[tine: the file is 307 bytes; only its first 100 bytes are here/,
        );
        assert.doesNotMatch(text, /THE END|file="AGENTS.md"/);
      },
      { cwd, setup: { instructions: { max_bytes: 100 } } },
    );
  });
});
