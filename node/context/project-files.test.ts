import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { listProjectFiles } from "./project-files.ts";

const project = tempFolders("tine-files-");

const TREE = {
  ".gitignore": "build/\n*.log\n",
  "src/a.ts": "a",
  "src/deep/.gitignore": "secret.txt\n",
  "src/deep/secret.txt": "s",
  "src/deep/b.ts": "b",
  "build/out.js": "o",
  "debug.log": "l",
  "node_modules/x/index.js": "x",
  "README.md": "r",
};

describe("listProjectFiles", () => {
  it("in a git work tree: tracked and untracked files, ignored ones left out", async () => {
    const root = project(TREE);
    execFileSync("git", ["init", "-q"], { cwd: root });
    execFileSync("git", ["add", "src/a.ts"], { cwd: root });
    const listed = await listProjectFiles(root, 10_000);
    expect(listed.source).toBe("git");
    expect(listed.files).toEqual([
      ".gitignore",
      "README.md",
      "node_modules/x/index.js",
      "src/a.ts",
      "src/deep/.gitignore",
      "src/deep/b.ts",
    ]);
  });

  it("outside git: a walk honouring every .gitignore on the way, skipping node_modules", async () => {
    const root = project(TREE);
    const listed = await listProjectFiles(root, 10_000);
    expect(listed.source).toBe("walk");
    expect(listed.files).toEqual([".gitignore", "README.md", "src/a.ts", "src/deep/.gitignore", "src/deep/b.ts"]);
  });
});
