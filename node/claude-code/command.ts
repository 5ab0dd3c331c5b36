/**
 * The Claude Code command line: which session a command runs, and the command that forks it.
 * Commands are argument lists (run without a shell), so quoting typed by the user stays intact.
 */
import { isUuid } from "../util/uuid.ts";

/** Splits a command line as a POSIX shell would split words: '…', "…" and \\ quoting. */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error("unterminated ' in the command");
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      i++;
      for (; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) i++;
        word += line[i];
      }
      if (i >= line.length) throw new Error('unterminated " in the command');
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) out.push(word);
  return out;
}

/** Flags that name the session a run continues or creates; `value`: whether one follows. */
const SESSION_FLAGS: Record<string, { value: "required" | "optional" | "none" }> = {
  "--session-id": { value: "required" },
  "--resume": { value: "optional" },
  "-r": { value: "optional" },
  "--continue": { value: "none" },
  "-c": { value: "none" },
  "--fork-session": { value: "none" },
};

const isSessionValue = (arg: string | undefined) => arg !== undefined && !arg.startsWith("-");

/** The command without its session flags (and their values): what every run of it shares. */
export function baseCommand(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const spec = SESSION_FLAGS[flag];
    if (!spec) {
      out.push(arg);
      continue;
    }
    if (flag !== arg) continue; // --flag=value
    if (spec.value === "required" || (spec.value === "optional" && isSessionValue(argv[i + 1]))) i++;
  }
  return out;
}

/**
 * The session id a command names with --session-id, or null. One that is not a UUID is refused,
 * as the CLI refuses it (it would also name a transcript outside the CLI's folder).
 */
export function sessionIdOf(argv: readonly string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const named = arg === "--session-id" ? (argv[i + 1] ?? "") : arg.startsWith("--session-id=") ? arg.slice("--session-id=".length) : null;
    if (named === null) continue;
    if (!isUuid(named)) throw new Error(`tine: --session-id ${JSON.stringify(named)} is not a UUID (Claude Code takes only UUIDs)`);
    return named;
  }
  return null;
}

/** A new session: `--session-id <id>` added unless the command names one already. */
export function withSessionId(argv: readonly string[], id: string): { argv: string[]; sessionId: string } {
  const named = sessionIdOf(argv);
  return named ? { argv: [...argv], sessionId: named } : { argv: [...argv, "--session-id", id], sessionId: id };
}

/** The command that forks session `sourceId` into `newId`: the base command resuming it as a fork. */
export function forkCommand(argv: readonly string[], sourceId: string, newId: string): string[] {
  return [...baseCommand(argv), "--resume", sourceId, "--fork-session", "--session-id", newId];
}

/** The command that continues session `id` (a stored thread opened again). */
export function resumeCommand(argv: readonly string[], id: string): string[] {
  return [...baseCommand(argv), "--resume", id];
}
