import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { localGit } from "./local-git.ts";
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
    const listed = await listProjectFiles({ root: root, git: localGit }, 10_000);
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

  it("a repository whose work tree is elsewhere (core.worktree): none of that folder's files is listed, the project's are", async () => {
    const root = project({ "a.txt": "a" });
    const outside = project({ "secret.txt": "s", "untracked-outside.txt": "u" });
    execFileSync("git", ["init", "-q"], { cwd: root });
    execFileSync("git", ["config", "core.worktree", outside], { cwd: root });
    // With the work tree outside, git adds the outside folder's file to the project's index.
    execFileSync("git", ["add", "secret.txt"], { cwd: root });
    const listed = await listProjectFiles({ root: root, git: localGit }, 10_000);
    expect(listed.files).toEqual(["a.txt"]);
  });

  it("a work tree above the project (core.worktree=/): only the project's files, named relative to it", async () => {
    const root = project({ "a.txt": "a", "b.txt": "b" });
    const outside = project({ "secret.txt": "s" });
    execFileSync("git", ["init", "-q"], { cwd: root });
    const empty = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: root, input: "" }).toString().trim();
    for (const file of [join(outside, "secret.txt"), join(root, "a.txt")])
      execFileSync("git", ["update-index", "--add", "--cacheinfo", `100644,${empty},${relative("/", realpathSync(file))}`], { cwd: root });
    execFileSync("git", ["config", "core.worktree", "/"], { cwd: root });
    const listed = await listProjectFiles({ root: root, git: localGit }, 10_000);
    expect(listed).toMatchObject({ source: "git", files: ["a.txt", "b.txt"] });
  });

  it("outside git: a walk honouring every .gitignore on the way, skipping node_modules", async () => {
    const root = project(TREE);
    const listed = await listProjectFiles({ root: root, git: localGit }, 10_000);
    expect(listed.source).toBe("walk");
    expect(listed.files).toEqual([".gitignore", "README.md", "src/a.ts", "src/deep/.gitignore", "src/deep/b.ts"]);
  });
});
