import { describe, expect, it } from "vitest";
import { matchPaths, PathMatcher, preparePaths } from "./path-match.ts";

const PATHS = preparePaths([
  "README.md",
  "app/core/alpha/file-5.ts",
  "components/x/y.ts",
  "lib/compile/plete.c",
  "lua/tine/complete.lua",
  "node/app.ts",
  "node/context/complete.ts",
  "node/context/project-files.ts",
  "node/rpc/methods.ts",
  "test/bench/complete.bench.ts",
]);

describe("matchPaths", () => {
  it("keeps only paths holding the typed characters in order", () => {
    expect(matchPaths("mthds", PATHS, 50)).toEqual(["node/rpc/methods.ts"]);
    expect(matchPaths("sdohtem", PATHS, 50)).toEqual([]);
  });

  it("puts a match in the file's own name before one in its folders", () => {
    expect(matchPaths("app", PATHS, 50)[0]).toBe("node/app.ts");
    expect(matchPaths("comp", PATHS, 3)).toEqual(["lua/tine/complete.lua", "node/context/complete.ts", "test/bench/complete.bench.ts"]);
  });

  it("reads `/` as a segment start: each part of n/c/p begins a folder or the name", () => {
    expect(matchPaths("n/c/p", PATHS, 1)).toEqual(["node/context/project-files.ts"]);
    expect(matchPaths("ctx/comp", PATHS, 50)).toEqual(["node/context/complete.ts"]);
  });

  it("prefers word starts and runs over scattered letters", () => {
    // p(roject)-f(iles) starts two words; `alpha/file` has p and f too, scattered.
    expect(matchPaths("pf", PATHS, 50)[0]).toBe("node/context/project-files.ts");
  });

  it("is case-insensitive unless the query has a capital", () => {
    expect(matchPaths("readme", PATHS, 50)).toEqual(["README.md"]);
    expect(matchPaths("ReadMe", PATHS, 50)).toEqual([]);
    expect(matchPaths("READ", PATHS, 50)).toEqual(["README.md"]);
  });

  it("offers at most `limit`, the best ones; with nothing typed, shallow paths first", () => {
    expect(matchPaths("t", PATHS, 2)).toHaveLength(2);
    expect(matchPaths("", PATHS, 3)).toEqual(["README.md", "node/app.ts", "components/x/y.ts"]);
  });
});

describe("PathMatcher", () => {
  it("typed a key at a time, finds what a fresh match finds, and after a deletion too", () => {
    const matcher = new PathMatcher(PATHS);
    for (const query of ["n", "no", "nod", "node", "nodeC", "nodeCo", "no", "c", "co", "com", "comp", "", "m", "mt"])
      expect(matcher.match(query, 50), query).toEqual(matchPaths(query, PATHS, 50));
  });
});
