/**
 * Which of a stored Claude Code thread's arguments run again when it is opened (after a restart,
 * in another Neovim, or forked without being opened). A transcript's header is a file: whoever
 * can write it could put `--settings` with hooks, `--mcp-config`, `--plugin-dir` or
 * `--dangerously-skip-permissions` there, and the CLI runs hooks and servers before its first
 * request. So a stored thread replays only arguments that run nothing, read no file and widen no
 * permission: which model answers and how hard it thinks, what its terminal shows, and what only
 * takes abilities away. Every other one (a prompt or subcommand too) is dropped and named to the
 * user; what the user types in `:Tine claude` runs as typed.
 *
 * Left out on purpose: `--append-system-prompt`/`--system-prompt` (text from the file steering
 * the model; the pinned CLI sends the system prompt it recorded at the session's first request
 * on a resume anyway), `--permission-mode` other than `plan`/`manual`, `--allowedTools`/`--tools`,
 * `--add-dir`, `--settings`, `--setting-sources`, `--mcp-config`, `--agents`, `--plugin-*`,
 * `--debug-file` (writes a file), `--file`, `--remote-control`, `--ide`, `--chrome`.
 *
 * Read as the CLI's parser (commander) reads them: a flag taking a value takes the next argument
 * whatever it is, so a value that looks like a flag drops the pair (replayed, the CLI could read
 * it otherwise than here); a list flag takes every next argument up to one that starts with `-`.
 */

import { baseCommand } from "./command.ts";

type Replayed =
  /** A flag alone. */
  | { readonly takes: "nothing" }
  /** A flag and one value; `only`: the values allowed (others take abilities away no more). */
  | { readonly takes: "one"; readonly only?: readonly string[] }
  /** A flag and one or more values. */
  | { readonly takes: "list" };

const REPLAYED: Readonly<Record<string, Replayed>> = {
  "--model": { takes: "one" },
  "--fallback-model": { takes: "one" },
  "--effort": { takes: "one" },
  "--verbose": { takes: "nothing" },
  "--disallowedTools": { takes: "list" },
  "--disallowed-tools": { takes: "list" },
  // `plan` runs nothing, `manual` asks before each action; the others act without asking.
  "--permission-mode": { takes: "one", only: ["plan", "manual"] },
};

/** How :help and the notice name what is replayed. */
export const REPLAYED_NAMES = "--model, --fallback-model, --effort, --verbose, --disallowedTools, --permission-mode plan|manual";

const looksLikeFlag = (arg: string) => arg.startsWith("-");

/**
 * A stored thread's arguments split into those replayed and those dropped (in order); its session
 * flags are neither (tine gives the session itself: `--resume <id>`).
 */
export function replayable(args: readonly string[]): { replayed: string[]; dropped: string[] } {
  const replayed: string[] = [];
  const dropped: string[] = [];
  const rest = baseCommand(args);
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const spec = REPLAYED[eq > 0 ? arg.slice(0, eq) : arg];
    if (!spec) {
      dropped.push(arg);
      continue;
    }
    if (eq > 0) {
      // --flag=value: one value, whatever the flag takes (the CLI reads no more after it).
      const value = arg.slice(eq + 1);
      const ok = spec.takes !== "nothing" && (spec.takes !== "one" || !spec.only || spec.only.includes(value));
      (ok ? replayed : dropped).push(arg);
      continue;
    }
    if (spec.takes === "nothing") {
      replayed.push(arg);
      continue;
    }
    const value = rest[i + 1];
    const ok = value !== undefined && !looksLikeFlag(value) && (spec.takes !== "one" || !spec.only || spec.only.includes(value));
    const taken = [arg];
    if (value !== undefined) taken.push(rest[++i]!);
    if (spec.takes === "list") while (i + 1 < rest.length && !looksLikeFlag(rest[i + 1]!)) taken.push(rest[++i]!);
    (ok ? replayed : dropped).push(...taken);
  }
  return { replayed, dropped };
}

/** An argument as the notice shows it: as typed when plain, else quoted; a long one cut. */
function shown(arg: string): string {
  const cut = arg.length > 80 ? `${arg.slice(0, 77)}...` : arg;
  return /^[\w@%+=:,./-]+$/.test(cut) ? cut : JSON.stringify(cut);
}

/** What the user is told when thread `title` (session `sessionId`) runs without stored arguments `dropped`. */
export function droppedNotice(title: string, sessionId: string, dropped: readonly string[]): string {
  return (
    `tine: ${title}: Claude Code runs without its stored arguments ${dropped.map(shown).join(" ")}: tine replays only ` +
    `${REPLAYED_NAMES} from a stored thread, as others can run code, load files or widen permissions (:help tine-claude-stored-args; its session: ${sessionId})`
  );
}
