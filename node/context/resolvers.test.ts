import { execFileSync } from "node:child_process";
import { realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { History } from "../core/history.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import type { EditorFacts, GatherRequest } from "./editor.ts";
import { expandMentions } from "./expand.ts";
import type { ContextLimits, FilePlace } from "./files.ts";
import { RESOLVERS, type ResolveScope } from "./resolvers.ts";

const project = tempFolders("tine-mentions-");

const LIMITS: ContextLimits = { maxBytes: 1024, maxFiles: 3, gitTimeoutMs: 10_000 };
const NO_EDITOR: EditorFacts = { source: null, buffers: [], diagnostics: [], quickfix: [], modified: new Map() };

function scope(root: string, editor: Partial<EditorFacts> = {}): ResolveScope {
  return {
    environment: localEnvironment(root),
    editor: { ...NO_EDITOR, ...editor },
    limits: LIMITS,
    followed: new Map(),
    projectFiles: async () => ["a.ts", "src/b.ts", "src/c.ts", "src/d.js"],
    approved: new Set(),
    askApproval: () => {
      throw new Error("asked for approval");
    },
    tell: () => {},
  };
}

const git = (root: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: root, encoding: "utf8" });

describe("@file", () => {
  it("a file's text, by its path relative to the root", async () => {
    const root = project({ "src/b.ts": "export const b = 1;\n" });
    expect(await RESOLVERS.file.resolve("src/b.ts", scope(root))).toEqual([
      { kind: "file", path: "src/b.ts", text: "export const b = 1;\n", unsaved: false, changed: false },
    ]);
    // An absolute path inside the root is named the same way.
    expect((await RESOLVERS.file.resolve(join(root, "src/b.ts"), scope(root)))[0]).toMatchObject({ path: "src/b.ts" });
  });

  it("a modified buffer's text wins over the disk's", async () => {
    const root = project({ "a.ts": "on disk\n" });
    const modified = new Map([[join(root, "a.ts"), { name: join(root, "a.ts"), text: "in the buffer", eol: true, modified: true }]]);
    expect(await RESOLVERS.file.resolve("a.ts", scope(root, { modified }))).toEqual([
      { kind: "file", path: "a.ts", text: "in the buffer\n", unsaved: true, changed: false },
    ]);
  });

  it("a glob over the project's files", async () => {
    const root = project({ "src/b.ts": "b", "src/c.ts": "c" });
    expect((await RESOLVERS.file.resolve("src/*.ts", scope(root))).map((i) => i.kind === "file" && i.path)).toEqual([
      "src/b.ts",
      "src/c.ts",
    ]);
  });

  it("a file outside the root (a link, `..`, an absolute path) named alone waits for approval; a glob leaves it out", async () => {
    const outside = project({ "secret.txt": "SECRET\n" });
    const root = project({ "a.ts": "a\n", "sub/b.ts": "b\n" });
    symlinkSync(join(outside, "secret.txt"), join(root, "link.ts"));
    const asked: string[] = [];
    const told: string[] = [];
    const s = { ...scope(root), askApproval: (p: FilePlace) => asked.push(`${p.name} -> ${p.target}`), tell: (n: string) => told.push(n) };
    const real = realpathSync(join(outside, "secret.txt"));
    for (const named of ["link.ts", join(outside, "secret.txt"), `../${basename(outside)}/secret.txt`])
      expect(await RESOLVERS.file.resolve(named, s)).toEqual([]);
    expect(asked).toEqual([`link.ts -> ${real}`, `${join(outside, "secret.txt")} -> ${real}`, `${join(outside, "secret.txt")} -> ${real}`]);
    expect(await RESOLVERS.file.resolve("link.ts", { ...s, approved: new Set([real]) })).toEqual([
      { kind: "file", path: "link.ts", text: "SECRET\n", unsaved: false, changed: false },
    ]);
    const glob = { ...s, projectFiles: async () => ["a.ts", "link.ts"] };
    expect((await RESOLVERS.file.resolve("*.ts", glob)).map((i) => i.kind === "file" && i.path)).toEqual(["a.ts"]);
    expect(told).toEqual([`left out link.ts: it leads outside the project (to ${real})`]);
    await expect(RESOLVERS.file.resolve("l*.ts", glob)).rejects.toThrow("matches only files that lead outside the project (link.ts)");
    expect(asked).toHaveLength(3);
  });

  it("errors a user can act on: no such file, no match, too many, too large, binary, no path", async () => {
    const root = project({ "big.txt": "x".repeat(2000), "bin.dat": "a\0b" });
    const s = scope(root);
    await expect(RESOLVERS.file.resolve("nope.ts", s)).rejects.toThrow(`no such file: ${join(root, "nope.ts")}`);
    await expect(RESOLVERS.file.resolve("*.md", s)).rejects.toThrow("matches no file of the project");
    await expect(RESOLVERS.file.resolve("**/*", s)).rejects.toThrow("matches 4 files, more than context_max_files (3)");
    await expect(RESOLVERS.file.resolve("big.txt", s)).rejects.toThrow(/more than a mention \(context_max_bytes\) reads \(1.0 KiB\)/);
    await expect(RESOLVERS.file.resolve("bin.dat", s)).rejects.toThrow("is a binary file");
    await expect(RESOLVERS.file.resolve(null, s)).rejects.toThrow("needs a path");
  });
});

describe("editor mentions", () => {
  it("@buf: the source window's buffer with its cursor; none known is an error", async () => {
    const root = project({});
    const source = { name: join(root, "x.lua"), text: "a\nb", eol: true, modified: true, cursor: 2 };
    expect(await RESOLVERS.buf.resolve(null, scope(root, { source }))).toEqual([
      { kind: "buffer", name: "x.lua", text: "a\nb\n", cursor: 2, unsaved: true },
    ]);
    await expect(RESOLVERS.buf.resolve(null, scope(root))).rejects.toThrow("no window to take a buffer from");
  });

  it("@bufs leaves out the empty buffer without a name", async () => {
    const root = project({});
    const buffers = [
      { name: "", text: "", eol: true, modified: false },
      { name: "/elsewhere/y.txt", text: "y", eol: false, modified: false },
    ];
    expect(await RESOLVERS.bufs.resolve(null, scope(root, { buffers }))).toEqual([
      { kind: "buffer", name: "/elsewhere/y.txt", text: "y", cursor: 0, unsaved: false },
    ]);
  });

  it("@diag: each diagnostic with its place, severity, source and the lines around it", async () => {
    const root = project({});
    const source = { name: join(root, "a.ts"), text: "", eol: true, modified: false, cursor: 1 };
    const diagnostics = [
      {
        name: join(root, "a.ts"),
        lnum: 2,
        col: 5,
        first: 1,
        lines: ["one", "two", "three"],
        severity: "error",
        source: "ts",
        message: "bad",
      },
    ];
    const [item] = await RESOLVERS.diag.resolve(null, scope(root, { source, diagnostics }));
    expect(item).toEqual({
      kind: "diagnostics",
      scope: "a.ts",
      count: 1,
      text: "a.ts:2:5: error [ts] bad\n    1 | one\n  > 2 | two\n    3 | three",
    });
  });

  it("@qf: entries with the line they point at", async () => {
    const root = project({});
    const quickfix = [{ name: join(root, "b.ts"), lnum: 7, col: 1, first: 7, lines: ["let x"], type: "E", text: "oops" }];
    const [item] = await RESOLVERS.qf.resolve(null, scope(root, { quickfix }));
    expect(item).toEqual({ kind: "quickfix", count: 1, text: "b.ts:7:1: E: oops\n  > 7 | let x" });
  });
});

describe("@diff, @staged, @diff:<rev>", () => {
  it("git's diffs in the environment's root", async () => {
    const root = project({ "a.txt": "one\n" });
    git(root, "init", "-q");
    git(root, "add", "a.txt");
    git(root, "commit", "-qm", "first");
    writeFileSync(join(root, "a.txt"), "two\n");
    const s = scope(root);
    const [unstaged] = await RESOLVERS.diff.resolve(null, s);
    expect(unstaged).toMatchObject({ kind: "git-diff", mention: "@diff" });
    expect(unstaged?.kind === "git-diff" && unstaged.text).toContain("-one\n+two\n");
    expect(await RESOLVERS.staged.resolve(null, s)).toEqual([{ kind: "git-diff", mention: "@staged", text: "(no changes)" }]);
    git(root, "add", "a.txt");
    const [staged] = await RESOLVERS.staged.resolve(null, s);
    expect(staged?.kind === "git-diff" && staged.text).toContain("+two");
    const [rev] = await RESOLVERS.diff.resolve("HEAD", s);
    expect(rev).toMatchObject({ mention: "@diff:HEAD" });
    expect(rev?.kind === "git-diff" && rev.text).toContain("+two");
  });

  it("no repository, an unknown revision, or one that is not a revision at all: errors", async () => {
    const root = project({ "a.txt": "one\n" });
    await expect(RESOLVERS.diff.resolve(null, scope(root))).rejects.toThrow("is not in a git repository");
    git(root, "init", "-q");
    await expect(RESOLVERS.diff.resolve("nosuchrev", scope(root))).rejects.toThrow("git does not know the revision nosuchrev");
    await expect(RESOLVERS.diff.resolve("--output=/tmp/x", scope(root))).rejects.toThrow("is not a revision git takes");
    await expect(RESOLVERS.diff.resolve("HEAD;rm", scope(root))).rejects.toThrow("is not a revision git takes");
  });

  it("runs the environment's git, not the host's own", async () => {
    // No repository here: only the environment's git can answer.
    const root = project({ "a.txt": "one\n" });
    const base = scope(root);
    const asked: string[][] = [];
    const environment = {
      ...base.environment,
      git: async (args: readonly string[]) => {
        asked.push([...args]);
        const answer = args.includes("rev-parse") ? `${root}\n` : "the environment's diff\n";
        return { stdout: Buffer.from(answer), stderr: "", code: 0 };
      },
    };
    expect(await RESOLVERS.diff.resolve(null, { ...base, environment })).toEqual([
      { kind: "git-diff", mention: "@diff", text: "the environment's diff\n" },
    ]);
    expect(asked.some((args) => args.includes("diff"))).toBe(true);
  });
});

describe("expandMentions", () => {
  it("asks the editor once, for what all the mentions need, and names the mention that failed", async () => {
    const root = project({ "a.ts": "a\n" });
    const asked: GatherRequest[] = [];
    const gather = async (r: GatherRequest) => {
      asked.push(r);
      return { source: { name: join(root, "a.ts"), text: "a", eol: true, modified: false, cursor: 1 }, modified: {} };
    };
    const s = { environment: localEnvironment(root), limits: LIMITS, gather, approved: new Set<string>(), tell: () => {} };
    const context = await expandMentions("@buf and @diag and @file:a.ts", History.empty, s);
    expect(asked).toEqual([{ source: true, buffers: false, diagnostics: "buffer", quickfix: false, modified: true, around: 2 }]);
    // @buf's buffer is a.ts, sent once, as the file @file:a.ts follows; @buf says it adds nothing new.
    expect(context?.items.map((i) => i.kind)).toEqual(["repeat", "diagnostics", "file"]);
    await expect(expandMentions("see @file:nope.ts", History.empty, s)).rejects.toThrow(/^tine: @file:nope\.ts: no such file/);
    // Nothing mentioned and nothing followed: no call at all.
    expect(await expandMentions("hello me@file.com", History.empty, s)).toBeNull();
    expect(asked).toHaveLength(2);
  });
});
