/** The worktrees `:checkhealth tine` reports (health.ts), with real folders. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import type { CodeSnapshots } from "../snapshot/code.ts";
import { worktreeHealth } from "./health.ts";
import { MARKER } from "./worktree.ts";

const folder = tempFolders("tine-worktree-health-");

describe("the worktrees :checkhealth reports", () => {
  it("lists them in their forks' order: #2 before #10", async () => {
    const names = ["10-bbbbbbbb", "2-aaaaaaaa", "1-cccccccc", "11-dddddddd"];
    const dir = folder(Object.fromEntries(names.map((n) => [join(n, ".git", MARKER), '{"thread":"t","base":"b"}\n'])));
    // Nobody works in them, so no snapshot is read.
    const report = await worktreeHealth(dir, [], {} as CodeSnapshots);
    expect(report.worktrees.map((w) => w.path)).toEqual(
      ["1-cccccccc", "2-aaaaaaaa", "10-bbbbbbbb", "11-dddddddd"].map((n) => join(dir, n)),
    );
  });
});
