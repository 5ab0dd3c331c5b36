import assert from "node:assert/strict";
import { it } from "vitest";
import { parseSend } from "./send-command.ts";

it("recognises @fork with and without a prompt, only at the start", () => {
  assert.deepEqual(parseSend("@fork try the other way"), { type: "fork", prompt: "try the other way" });
  assert.deepEqual(parseSend("  @fork\n\nmulti\nline  "), { type: "fork", prompt: "multi\nline" });
  assert.deepEqual(parseSend("@fork"), { type: "fork", prompt: "" });
  assert.deepEqual(parseSend("@forklift"), { type: "message", text: "@forklift" });
  assert.deepEqual(parseSend("please @fork this"), { type: "message", text: "please @fork this" });
});

it("recognises @bg with a prompt as a background fork", () => {
  assert.deepEqual(parseSend("@bg look into the failing test"), { type: "background-fork", prompt: "look into the failing test" });
  assert.deepEqual(parseSend("@bgx"), { type: "message", text: "@bgx" });
});

it("recognises --worktree before a fork's prompt (@fork and @bg)", () => {
  assert.deepEqual(parseSend("@fork --worktree try it"), { type: "fork", prompt: "try it", worktree: true });
  assert.deepEqual(parseSend("@fork --worktree"), { type: "fork", prompt: "", worktree: true });
  assert.deepEqual(parseSend("@bg --worktree fix the test"), { type: "background-fork", prompt: "fix the test", worktree: true });
  assert.deepEqual(parseSend("@fork --worktrees x"), { type: "fork", prompt: "--worktrees x" });
});

it("recognises an unattended fork: @bg!, and --unattended with or beside --worktree, in any order", () => {
  assert.deepEqual(parseSend("@bg! fix the test"), { type: "background-fork", prompt: "fix the test", unattended: true });
  assert.deepEqual(parseSend("@bg! --worktree x"), { type: "background-fork", prompt: "x", unattended: true, worktree: true });
  assert.deepEqual(parseSend("@fork --unattended try it"), { type: "fork", prompt: "try it", unattended: true });
  assert.deepEqual(parseSend("@bg --worktree --unattended go"), {
    type: "background-fork",
    prompt: "go",
    worktree: true,
    unattended: true,
  });
  // Only the flags before the prompt count; `@bg!x` is no command.
  assert.deepEqual(parseSend("@fork try --unattended"), { type: "fork", prompt: "try --unattended" });
  assert.deepEqual(parseSend("@bg!x"), { type: "message", text: "@bg!x" });
});

it("recognises @handoff with its goal", () => {
  assert.deepEqual(parseSend("@handoff write the migration"), { type: "handoff", goal: "write the migration" });
});

it("recognises @now with its text (steering), only at the start", () => {
  assert.deepEqual(parseSend("@now use the staging database\nnot prod"), { type: "now", text: "use the staging database\nnot prod" });
  assert.deepEqual(parseSend("@nowhere"), { type: "message", text: "@nowhere" });
  assert.deepEqual(parseSend("do it @now"), { type: "message", text: "do it @now" });
});

it("recognises @compact with or without instructions, only at the start", () => {
  assert.deepEqual(parseSend("@compact"), { type: "compact", instructions: "" });
  assert.deepEqual(parseSend("@compact keep the API decisions"), { type: "compact", instructions: "keep the API decisions" });
  assert.deepEqual(parseSend("@compaction"), { type: "message", text: "@compaction" });
});

it("recognises a fan-out: @fork×N and @fork*N, with the prompt after", () => {
  assert.deepEqual(parseSend("@fork×3 make it faster"), { type: "fan-out", n: 3, prompt: "make it faster" });
  assert.deepEqual(parseSend("@fork*2 x"), { type: "fan-out", n: 2, prompt: "x" });
  assert.deepEqual(parseSend("@fork×0"), { type: "fan-out", n: 0, prompt: "" });
  assert.deepEqual(parseSend("@fork×3x"), { type: "message", text: "@fork×3x" });
  assert.deepEqual(parseSend("@fork×N"), { type: "message", text: "@fork×N" });
  // A space before the sign is still the fan-out (never a fork titled "×3 spaced"); only × and * are the sign.
  assert.deepEqual(parseSend("@fork ×3 spaced"), { type: "fan-out", n: 3, prompt: "spaced" });
  assert.deepEqual(parseSend("@fork *2 x"), { type: "fan-out", n: 2, prompt: "x" });
  assert.deepEqual(parseSend("@fork x3 y"), { type: "fork", prompt: "x3 y" });
});
