/**
 * The Claude Code feature as the user reaches it: `:Tine claude` (a new session in a terminal),
 * `:Tine import` (a session's conversation as a tine thread) and `:Tine export` (a thread written
 * as a session and continued in Claude Code). Forks and restarts need nothing here: the runner
 * (session.ts) and the registry (host/runners.ts) do them like any other thread's.
 */
import { threadName } from "../chat/names.ts";
import type { RunnerStart } from "../chat/runner.ts";
import { titleFrom } from "../chat/thread.ts";
import { History } from "../core/history.ts";
import { entry, freezeMessage } from "../core/native.ts";
import { sessionIdOf, splitArgs } from "./command.ts";
import { listSessions, type SessionFile } from "./project.ts";
import { describeSkipped, readSession, sessionLabel, writeSession } from "./sessions.ts";

/** A thread made and shown: its id and buffers. */
export type Opened = { id: string; display: number; input: number };

/** What the host gives this feature: making threads, and reading the ones it has. */
export type ThreadHost = {
  /** Makes a thread (the `new-thread` message) and waits for its buffers. */
  create(fields: {
    runner: RunnerStart;
    title?: string;
    /** Without `title`: its title until the first prompt names it. */
    placeholder?: string;
    origin?: { kind: "claude-code"; sessionId: string | null; path: string };
    parentId?: string;
    /** Its id and number, minted with `mint`; without, the host mints them. */
    minted?: { readonly id: string; readonly num: number };
  }): Promise<Opened>;
  /** The history of a live or stored thread, or undefined when there is no such thread. */
  historyOf(id: string): History | undefined;
  titleOf(id: string): string | undefined;
  /** A new thread's id and number (unique across instances); `create` is then given them. */
  mint(): { readonly id: string; readonly num: number };
  /** Tells the user something went partly wrong (an import that left lines out). */
  warn(message: string): void;
};

export class ClaudeCodeThreads {
  constructor(
    private readonly host: ThreadHost,
    /** The project folder (Claude Code keeps its sessions by it). */
    private readonly cwd: string,
  ) {}

  /** This project's Claude Code sessions, newest first (for the `:Tine import` picker), each with its label. */
  sessions() {
    return listSessions(this.cwd).map((s) => ({ id: s.id, path: s.path, modified: s.modified, label: this.labelOf(s) }));
  }

  /** Labels read once per version of a session's file: a picker opened again reads only what changed. */
  private readonly labels = new Map<string, { size: number; modified: number; label: string }>();

  private labelOf(file: SessionFile): string {
    const hit = this.labels.get(file.path);
    if (hit && hit.size === file.size && hit.modified === file.modified) return hit.label;
    const label = sessionLabel(file);
    this.labels.set(file.path, { size: file.size, modified: file.modified, label });
    return label;
  }

  /** `:Tine claude [args]`: a thread run by the Claude Code CLI in a terminal. */
  open(args: string): Promise<Opened> {
    const argv = splitArgs(args);
    sessionIdOf(argv); // refuses a --session-id that is not a UUID before a thread is made
    const minted = this.host.mint();
    return this.host.create({ runner: { kind: "claude-code", args: argv }, placeholder: `Claude Code ${minted.num}`, minted });
  }

  /** A Claude Code session (by id or path) becomes a tine thread holding the same conversation. */
  async import(idOrPath: string): Promise<Opened> {
    const session = readSession(idOrPath);
    const history = History.of(session.messages.map((m) => entry(freezeMessage(m))));
    const opened = await this.host.create({
      runner: { kind: "api", history },
      title: titleFrom(session.firstPrompt ?? "Claude Code session"),
      origin: { kind: "claude-code", sessionId: session.sessionId, path: session.path },
    });
    if (session.skipped.length) {
      this.host.warn(`tine: ${session.path}: some lines could not be imported and were left out (${describeSkipped(session.skipped)})`);
    }
    return opened;
  }

  /**
   * A thread written as a new Claude Code session (the thread itself unchanged), continued in
   * Claude Code as a thread of its own: a child of this one in the tree, resuming that session.
   */
  async export(id: string): Promise<Opened & { session_id: string; path: string }> {
    const history = this.host.historyOf(id);
    if (!history) throw new Error(`tine: ${threadName(this.host, id)} cannot be exported`);
    const { sessionId, path } = writeSession(history.messages(), this.cwd);
    const opened = await this.host.create({
      runner: { kind: "claude-code", args: [], resume: sessionId },
      title: `${this.host.titleOf(id)} → Claude Code`,
      parentId: id,
    });
    return { session_id: sessionId, path, ...opened };
  }
}
