/**
 * Completion of the mention being typed in a thread's input (the input's omnifunc asks, through
 * the `complete_mention` request): after `@`, the mentions by name with what each gives
 * (mention-names.ts); after `@file:` and `@drop:`, the project's files (project-files.ts),
 * fuzzy-matched (path-match.ts); after `@diff:`, the repository's branches and tags. The lists are
 * kept while the user types, so a keystroke never waits on git: see `Kept` for when they are made
 * again.
 */

import type { AgentCommand } from "../core/agent-commands.ts";
import { SEND_COMMANDS } from "../core/send-commands.ts";
import type { Environment } from "../tools/environment.ts";
import { contextGit, type GitPlace } from "../tools/project-git.ts";
import { assertUnreachable } from "../util/assert-unreachable.ts";
import { MENTIONS, type MentionName, type MentionSpec } from "./mention-names.ts";
import { PathMatcher, preparePaths } from "./path-match.ts";

export type CompletionKind = "command" | "mention" | "file" | "rev";

/** One item, as an omnifunc returns it (`:help complete-items`). */
export type CompletionItem = { word: string; menu: string; info: string; kind: CompletionKind };

/** `start`: where the completed word begins in the line, in bytes (what an omnifunc's findstart returns). */
export type MentionCompletion = { start: number; items: CompletionItem[] };

/** What the argument of each mention is completed from; a new mention must say (the compiler asks). */
const ARGUMENT_FROM: Record<MentionName, "files" | "revs" | "nothing"> = {
  file: "files",
  drop: "files",
  diff: "revs",
  buf: "nothing",
  bufs: "nothing",
  diag: "nothing",
  "diag!": "nothing",
  qf: "nothing",
  staged: "nothing",
};

/** The mention at the end of `before` (the line up to the cursor): its name being typed, or its argument. */
export type Typed =
  | { type: "name"; typed: string; start: number }
  | { type: "argument"; mention: MentionSpec; typed: string; start: number };

/**
 * A mention starts a line or follows white space, and runs to the cursor without any, unless its
 * argument is quoted (`@file:"my no`): a path with spaces is written in quotes (mentions.ts).
 */
const MENTION_AT_END = /(?:^|\s)@([^\s":]+:"[^"]*|\S*)$/u;

export function typedMention(before: string): Typed | null {
  const found = MENTION_AT_END.exec(before);
  if (!found) return null;
  const text = found[1]!;
  const afterAt = before.length - text.length;
  const colon = text.indexOf(":");
  if (colon < 0) return { type: "name", typed: text, start: byteLength(before, afterAt) };
  const mention = MENTIONS.find((m) => m.name === text.slice(0, colon));
  if (!mention || mention.argument === "none") return null;
  // The completed word replaces the opening quote too: it is quoted again when it needs it.
  const quoted = text[colon + 1] === '"' ? 1 : 0;
  return { type: "argument", mention, typed: text.slice(colon + 1 + quoted), start: byteLength(before, afterAt + colon + 1) };
}

/** Lua's columns are bytes; JavaScript's indexes are UTF-16 units. */
function byteLength(text: string, end: number): number {
  return Buffer.byteLength(text.slice(0, end), "utf8");
}

/** The mentions whose name starts with `typed` (or, when none does, holds it), in the list's order. */
function mentionItems(typed: string): CompletionItem[] {
  const t = typed.toLowerCase();
  const starting = MENTIONS.filter((m) => m.name.startsWith(t));
  return (starting.length ? starting : MENTIONS.filter((m) => m.name.includes(t))).map((m) => ({
    // One that needs its argument gets its colon, so the next completion goes on to the argument.
    word: m.argument === "required" ? `${m.name}:` : m.name,
    menu: m.info,
    info: `@${m.name}${m.argument === "none" ? "" : m.argument === "required" ? ":<…>" : "[:<…>]"}  ${m.info}`,
    kind: "mention",
  }));
}

/**
 * The `@`-commands whose name starts with `typed`, for an `@` that starts the message (where only
 * they are recognised). `fork×N` completes to `fork×`, the count typed next.
 */
function commandItems(typed: string): CompletionItem[] {
  const t = typed.toLowerCase();
  return Object.entries(SEND_COMMANDS).flatMap(([name, { usage, info }]) => {
    const word = name.replace(/N$/, "");
    return word.startsWith(t) ? [{ word, menu: info, info: `${usage}  ${info}`, kind: "command" as const }] : [];
  });
}

/** A `/` command being typed at the very start of a message (an agent's command, see agentCommands). */
const SLASH_AT_START = /^\s*\/(\S*)$/u;

/** The agent's commands whose name starts with `typed` (or, when none does, holds it), as the agent listed them. */
function slashItems(typed: string, commands: readonly AgentCommand[]): CompletionItem[] {
  const t = typed.toLowerCase();
  const starting = commands.filter((c) => c.name.toLowerCase().startsWith(t));
  return (starting.length ? starting : commands.filter((c) => c.name.toLowerCase().includes(t))).map((c) => ({
    word: c.name,
    menu: c.description,
    info: `/${c.name}${c.hint ? ` <${c.hint}>` : ""}  ${c.description}`,
    kind: "command",
  }));
}

/** A listing is made again in the background when a completion finds it older than this. */
const STALE_AFTER_MS = 5000;
/** Insert mode began: a listing older than this is made again at once (the user is about to type). */
const FRESH_FOR_INSERT_MS = 1000;

/**
 * A list kept for the typing session: made on first use, served as it is while a newer one is
 * made in the background, and never made twice at once.
 */
export class Kept<T> {
  private held: { value: T; madeAt: number } | null = null;
  private making: Promise<T> | null = null;

  constructor(
    private readonly make: () => Promise<T>,
    private readonly now: () => number,
  ) {}

  /** The list held (made again in the background when older than `staleAfterMs`), or the first one. */
  get(staleAfterMs: number): Promise<T> {
    if (!this.held) return this.remake();
    // In the background: one that fails (git past its time limit) is made again next time.
    if (this.now() - this.held.madeAt > staleAfterMs) this.remake().catch(() => {});
    return Promise.resolve(this.held.value);
  }

  /** Makes the list again unless it is younger than `ms` (or being made); `first`: even one never made yet. */
  refreshIfOlder(ms: number, first: boolean): void {
    if (this.held ? this.now() - this.held.madeAt > ms : first) this.remake().catch(() => {});
  }

  private remake(): Promise<T> {
    if (this.making) return this.making;
    const startedAt = this.now();
    this.making = this.make()
      .then((value) => {
        this.held = { value, madeAt: startedAt };
        return value;
      })
      .finally(() => {
        this.making = null;
      });
    return this.making;
  }
}

/** Completion for one project (its environment): its files and its revisions, kept while the user types. */
export class MentionCompleter {
  private readonly files: Kept<PathMatcher>;
  private readonly revs: Kept<PathMatcher>;

  constructor(
    /** The project's environment: its files and its git. */
    environment: Environment,
    /** The most items one completion offers (`complete_max_items`). */
    private readonly maxItems: number,
    /** The longest one git may take (`context_git_timeout`): a list that takes longer is not made. */
    gitTimeoutMs: number,
    now: () => number = Date.now,
  ) {
    this.files = new Kept(async () => {
      const matcher = new PathMatcher(preparePaths((await environment.listProjectFiles(gitTimeoutMs)).files));
      // After the answer that waits on this list, giving way to the keys typed next.
      setImmediate(() => void matcher.warmUp());
      return matcher;
    }, now);
    this.revs = new Kept(async () => new PathMatcher(preparePaths(await listRevs(environment, gitTimeoutMs))), now);
  }

  /**
   * Insert mode began in an input: the files are listed (again, if older than a moment) while the
   * user types; the revisions only if they were ever asked for (`@diff:` is rarer).
   */
  prepare(): void {
    this.files.refreshIfOlder(FRESH_FOR_INSERT_MS, true);
    this.revs.refreshIfOlder(FRESH_FOR_INSERT_MS, false);
  }

  /**
   * What completes the mention at the end of `before` (the line up to the cursor); null: no mention
   * there. `messageStart`: the line is the message's first, so an `@` alone at its start may be an
   * `@`-command too (offered before the mentions).
   */
  async complete(before: string, messageStart = false, agentCommands: readonly AgentCommand[] = []): Promise<MentionCompletion | null> {
    const slash = messageStart ? SLASH_AT_START.exec(before) : null;
    if (slash && agentCommands.length)
      return {
        start: byteLength(before, before.length - slash[1]!.length),
        items: slashItems(slash[1]!, agentCommands).slice(0, this.maxItems),
      };
    const typed = typedMention(before);
    if (!typed) return null;
    if (typed.type === "name") {
      const commands =
        messageStart && before.slice(0, before.length - typed.typed.length - 1).trim() === "" ? commandItems(typed.typed) : [];
      return { start: typed.start, items: [...commands, ...mentionItems(typed.typed)].slice(0, this.maxItems) };
    }
    const from = ARGUMENT_FROM[typed.mention.name];
    switch (from) {
      case "files": {
        const paths = (await this.files.get(STALE_AFTER_MS)).match(typed.typed, this.maxItems);
        return { start: typed.start, items: paths.map((path) => ({ word: quotedPath(path), menu: "", info: "", kind: "file" })) };
      }
      case "revs": {
        const revs = await this.revs.get(STALE_AFTER_MS);
        // Typed nothing yet: the most recent first, as git sorted them.
        const names = typed.typed === "" ? revs.list.paths.slice(0, this.maxItems) : revs.match(typed.typed, this.maxItems);
        return { start: typed.start, items: names.map((word) => ({ word, menu: "", info: "", kind: "rev" })) };
      }
      case "nothing":
        return null;
      default:
        return assertUnreachable(from);
    }
  }
}

/** A path as a mention's argument: in quotes when it holds white space, as mentions.ts reads it. */
function quotedPath(path: string): string {
  return /\s/u.test(path) ? `"${path}"` : path;
}

/** HEAD, then the branches and tags, the most recently committed first; none outside a repository (or past the time limit). */
async function listRevs(place: GitPlace, gitTimeoutMs: number): Promise<string[]> {
  const args = ["for-each-ref", "--sort=-committerdate", "--format=%(refname:short)", "refs/heads", "refs/tags"];
  const listed = await contextGit(place, args, gitTimeoutMs).catch(() => null);
  return listed
    ? [
        "HEAD",
        ...listed.stdout
          .toString("utf8")
          .split("\n")
          .filter((r) => r.length > 0),
      ]
    : [];
}
