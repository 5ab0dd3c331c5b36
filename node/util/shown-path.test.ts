import { describe, expect, it } from "vitest";
import { shownPath } from "./shown-path.ts";

describe("a folder as a list row names it", () => {
  it("from the data folder when inside it, else with ~ for home, else whole", () => {
    const data = "/home/u/.local/share/nvim/tine";
    expect(shownPath(`${data}/worktrees/app-1a2b/3-abcd1234`, data, "/home/u")).toBe("worktrees/app-1a2b/3-abcd1234");
    expect(shownPath("/home/u/wt/app-1a2b/3-abcd1234", data, "/home/u")).toBe("~/wt/app-1a2b/3-abcd1234");
    expect(shownPath("/srv/wt/3-abcd1234", data, "/home/u")).toBe("/srv/wt/3-abcd1234");
    // A name that only starts like the folder is not inside it; the folder itself is not shortened to nothing.
    expect(shownPath("/home/u/.local/share/nvim/tine2/x", data, "/home/u")).toBe("~/.local/share/nvim/tine2/x");
    expect(shownPath("/home/u2/x", data, "/home/u")).toBe("/home/u2/x");
    expect(shownPath(data, data, "/home/u")).toBe("~/.local/share/nvim/tine");
  });
});
