/** Which ended forks a project's tree keeps apart to be restored (`:Tine threads!`). */
import { describe, expect, it } from "vitest";
import { NO_STORED_USAGE } from "../usage/stored.ts";
import { projectTree } from "./project-tree.ts";
import type { ThreadSummary } from "./summary.ts";

const thread = (id: string, more: Partial<ThreadSummary> = {}): ThreadSummary => ({
  id,
  num: 1,
  title: id,
  cwd: "/p",
  model: "m",
  created: 0,
  parent: id === "root" ? null : { relation: "fork", id: "root", records: 1, atMessage: 0, messages: 1 },
  updated: 0,
  messages: 1,
  deleted: false,
  runner: { kind: "api" },
  branches: [],
  ended: null,
  problems: [],
  worktree: null,
  usage: NO_STORED_USAGE,
  fanOut: null,
  check: null,
  queued: 0,
  ...more,
});

describe("ended forks", () => {
  it("a discarded or reported fork, and one promoted from a worktree of its own, can be restored; one promoted from its parent's folder lives on in it", () => {
    const worktree = { path: "/data/worktrees/p/2-abc", base: "0".repeat(40) };
    const { visible, ended } = projectTree([
      thread("root"),
      thread("discarded", { ended: { how: "discarded" } }),
      thread("reported", { ended: { how: "reported" } }),
      thread("promoted-apart", { ended: { how: "promoted", into: "root" }, worktree }),
      thread("promoted-here", { ended: { how: "promoted", into: "root" } }),
      thread("deleted", { ended: { how: "discarded" }, deleted: true }),
    ]);
    expect(visible.map((t) => t.id)).toEqual(["root"]);
    expect(ended.map((t) => t.id)).toEqual(["discarded", "reported", "promoted-apart"]);
  });
});
