import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { agentCommandsOf } from "../core/agent-commands.ts";
import type { Environment } from "../tools/environment.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import { Kept, MentionCompleter, typedMention } from "./complete.ts";
import { MENTIONS } from "./mention-names.ts";

const folder = tempFolders("tine-complete-");

function gitProject(files: Record<string, string>): string {
  const root = folder(files);
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root });
  return root;
}

describe("typedMention", () => {
  it("finds the mention before the cursor, at a line's start or after white space", () => {
    expect(typedMention("@fi")).toEqual({ type: "name", typed: "fi", start: 1 });
    expect(typedMention("look at @")).toEqual({ type: "name", typed: "", start: 9 });
    expect(typedMention("mail me@home")).toBeNull();
    expect(typedMention("@file:a b")).toBeNull();
  });

  it("after a colon, the argument of a mention that takes one", () => {
    const file = MENTIONS.find((m) => m.name === "file")!;
    expect(typedMention("see @file:src/a")).toEqual({ type: "argument", mention: file, typed: "src/a", start: 10 });
    expect(typedMention("@buf:x")).toBeNull();
    expect(typedMention("@nosuch:x")).toBeNull();
  });

  it("reads a quoted argument up to the cursor, spaces included; the quote is part of what is replaced", () => {
    const file = MENTIONS.find((m) => m.name === "file")!;
    expect(typedMention('see @file:"my no')).toEqual({ type: "argument", mention: file, typed: "my no", start: 10 });
    expect(typedMention('@file:"my notes.md" and @')).toEqual({ type: "name", typed: "", start: 25 });
  });

  it("counts the start in bytes, as Neovim's columns do", () => {
    expect(typedMention("é ✓ @file:x")).toEqual(expect.objectContaining({ start: "é ✓ @file:".length + 1 + 2 }));
  });
});

describe("MentionCompleter", () => {
  it("offers the mentions by name with what each gives; one that needs its argument ends in a colon", async () => {
    const c = new MentionCompleter(localEnvironment(tmpdir()), 50, 10_000);
    const all = await c.complete("@");
    expect(all?.items.map((i) => i.word)).toEqual(MENTIONS.map((m) => (m.argument === "required" ? `${m.name}:` : m.name)));
    const di = await c.complete("@di");
    expect(di?.items.map((i) => i.word)).toEqual(["diag", "diag!", "diff"]);
    expect(di?.items[0]?.menu).toBe(MENTIONS.find((m) => m.name === "diag")!.info);
  });

  it("at a message's start, the @-commands first, then the mentions; anywhere else the mentions only", async () => {
    const c = new MentionCompleter(localEnvironment(tmpdir()), 50, 10_000);
    const words = async (before: string, start: boolean) => (await c.complete(before, start))?.items.map((i) => i.word);
    expect(await words("@", true)).toEqual([
      "fork",
      "fork×",
      "bg",
      "bg!",
      "handoff",
      "compact",
      "now",
      ...MENTIONS.map((m) => (m.argument === "required" ? `${m.name}:` : m.name)),
    ]);
    expect(await words("  @f", true)).toEqual(["fork", "fork×", "file:"]);
    const fork = (await c.complete("@fo", true))?.items[0];
    expect(fork).toMatchObject({
      word: "fork",
      kind: "command",
      info: expect.stringMatching(/^@fork \[--worktree\|--unattended\] <prompt>/),
    });
    // Not at the start of the message, or not on its first line: commands are not recognised there.
    expect(await words("look at @f", true)).toEqual(["file:"]);
    expect(await words("@f", false)).toEqual(["file:"]);
  });

  it("after / at a message's start, the commands of the thread's agent, as it described them; nothing when it has none", async () => {
    const c = new MentionCompleter(localEnvironment(tmpdir()), 50, 10_000);
    const commands = agentCommandsOf([
      { name: "compact", description: "Compact the conversation", input: { hint: "instructions" } },
      { name: "init", description: "Write a CLAUDE.md" },
      { name: "bad name\u001b[31m", description: "refused" },
      { name: "/review", description: "Review\nthe diff" },
    ]);
    expect(await c.complete("/", true, commands)).toEqual({
      start: 1,
      items: [
        { word: "compact", menu: "Compact the conversation", info: "/compact <instructions>  Compact the conversation", kind: "command" },
        { word: "init", menu: "Write a CLAUDE.md", info: "/init  Write a CLAUDE.md", kind: "command" },
        { word: "review", menu: "Review the diff", info: "/review  Review the diff", kind: "command" },
      ],
    });
    expect((await c.complete("  /re", true, commands))?.items.map((i) => i.word)).toEqual(["review"]);
    // Not at a message's start, or a thread whose program takes none: nothing.
    expect(await c.complete("see /re", true, commands)).toBeNull();
    expect(await c.complete("/re", false, commands)).toBeNull();
    expect(await c.complete("/", true, [])).toBeNull();
    // A description too long for a line is cut, and the cut marked.
    const [long] = agentCommandsOf([{ name: "long", description: `${"d".repeat(300)} end` }]);
    expect(long?.description).toBe(`${"d".repeat(199)}…`);
  });

  it("after @file:, the project's files best first, ignored ones left out", async () => {
    const root = gitProject({ ".gitignore": "dist/\n", "src/app.ts": "", "src/apple/pie.ts": "", "dist/app.js": "" });
    const c = new MentionCompleter(localEnvironment(root), 50, 10_000);
    const done = await c.complete("explain @file:app");
    expect(done).toEqual({
      start: "explain @file:".length,
      items: [
        { word: "src/app.ts", menu: "", info: "", kind: "file" },
        { word: "src/apple/pie.ts", menu: "", info: "", kind: "file" },
      ],
    });
  });

  it("a path with spaces is offered in quotes, and found again from a quoted start", async () => {
    const root = gitProject({ "notes/my notes.md": "", "notes/plain.md": "" });
    const c = new MentionCompleter(localEnvironment(root), 50, 10_000);
    const words = async (before: string) => (await c.complete(before))?.items.map((i) => i.word);
    expect(await words("@file:notes")).toEqual(['"notes/my notes.md"', "notes/plain.md"]);
    const quoted = await c.complete('@file:"notes/my no');
    expect(quoted?.start).toBe("@file:".length);
    expect(quoted?.items.map((i) => i.word)).toEqual(['"notes/my notes.md"']);
  });

  it("after @diff:, HEAD and the branches", async () => {
    const root = gitProject({ "a.txt": "a" });
    const git = (...args: string[]) => execFileSync("git", args, { cwd: root });
    git("add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
    git("branch", "feature/parser");
    const c = new MentionCompleter(localEnvironment(root), 50, 10_000);
    const revs = (await c.complete("@diff:"))?.items.map((i) => i.word);
    expect(revs?.[0]).toBe("HEAD");
    expect(revs?.slice(1).sort()).toEqual(["feature/parser", "main"]);
    expect((await c.complete("@diff:fpar"))?.items.map((i) => i.word)).toEqual(["feature/parser"]);
  });

  it("lists what its environment lists: the files and the gits are the environment's, never the host's own", async () => {
    // An empty folder outside any repository: whatever is offered came from the environment.
    const local = localEnvironment(folder());
    const asked: string[][] = [];
    const environment: Environment = {
      ...local,
      listProjectFiles: async () => ({ files: ["far/away.ts"], truncated: false, source: "git" }),
      git: async (args) => {
        asked.push([...args]);
        return { stdout: Buffer.from("elsewhere\n"), stderr: "", code: 0 };
      },
    };
    const c = new MentionCompleter(environment, 50, 10_000);
    expect((await c.complete("@file:away"))?.items.map((i) => i.word)).toEqual(["far/away.ts"]);
    expect((await c.complete("@diff:"))?.items.map((i) => i.word)).toEqual(["HEAD", "elsewhere"]);
    expect(asked.some((args) => args.includes("for-each-ref"))).toBe(true);
  });
});

describe("Kept", () => {
  it("serves the list it holds while a newer one is made, and makes one at a time", async () => {
    let clock = 0;
    let made = 0;
    const gates: (() => void)[] = [];
    const kept = new Kept(
      () =>
        new Promise<number>((resolve) => {
          const n = ++made;
          gates.push(() => resolve(n));
        }),
      () => clock,
    );
    const first = kept.get(5000);
    const second = kept.get(5000);
    expect(made).toBe(1); // the second call waits on the same listing
    gates.shift()!();
    expect([await first, await second]).toEqual([1, 1]);
    clock = 6000;
    expect(await kept.get(5000)).toBe(1); // stale: served at once, a new one started
    expect(made).toBe(2);
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(await kept.get(5000)).toBe(2);
    kept.refreshIfOlder(10_000, true);
    expect(made).toBe(2); // young enough
    clock = 20_000;
    kept.refreshIfOlder(1000, false);
    expect(made).toBe(3);
    let lazyMade = 0;
    const lazy = new Kept(
      async () => ++lazyMade,
      () => clock,
    );
    lazy.refreshIfOlder(1000, false);
    expect(lazyMade).toBe(0); // never asked for: not made before its first use
    expect(await lazy.get(5000)).toBe(1);
  });
});
