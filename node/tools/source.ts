/**
 * The contract every kind of client tool implements (the built-in tools, tools from MCP servers):
 * which calls it owns, whether a call waits for approval, how it runs, and what the model is told.
 * A thread holds the sources together (`ToolSources`) and never asks which kind a tool is. The
 * fork tools are not a source: they act on the thread tree, and the chat carries them out.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { ThreadId } from "../core/ids.ts";
import type { Environment } from "./environment.ts";

/** A tool as the Messages API declares it. */
export type ToolSpec = Anthropic.Messages.Tool;

/** An image a tool gave back; it goes to the model as an image block of the tool result. */
export type ToolImage = { readonly mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp"; readonly data: string };

/** What a call gave back; `images` (from MCP tools) go after the text. */
export type ToolOutcome = { readonly text: string; readonly isError: boolean; readonly images?: readonly ToolImage[] };

/** Who makes a call: the thread whose reply asked for it (an MCP server's questions during it go to that thread's user). */
export type ToolCaller = { readonly thread: ThreadId };

/**
 * Whether a call waits for the user's approval: no, yes, or, in a confined thread
 * (Environment.confinement), yes because it leaves the confinement, and why (said with its
 * approval; approved, it runs where the confinement's approved calls run).
 */
export type Approval = boolean | { readonly leaves: string };

export interface ToolSource {
  /** Whether a call of `name` is this source's to run. */
  owns(name: string): boolean;
  /** Why the call's input does not have the tool's fields (the model is told at once; nobody is asked to approve it), or null. */
  inputProblem(name: string, input: unknown): string | null;
  /** Whether the call waits for the user's approval before it runs (`env`: where the thread's tools act). */
  needsApproval(name: string, input: unknown, env: Environment): Approval;
  /** Carries the call out; aborting `signal` stops it. Never throws: a failure is an error outcome. */
  run(name: string, input: unknown, env: Environment, signal: AbortSignal, caller?: ToolCaller): Promise<ToolOutcome>;
}

/**
 * A source whose tools are known only once it has started (MCP servers start on first use): what
 * it offers a thread starting now, sorted and stable, so every request of the thread (and of its
 * forks) sends the same list and keeps the cached prefix. Never rejects; `signal`: the thread's
 * first request was aborted meanwhile.
 */
export interface OfferedTools {
  offered(signal: AbortSignal): Promise<readonly ToolSpec[]>;
}

/** A thread's tools, looked up by name over its sources in order. */
export class ToolSources {
  constructor(private readonly sources: readonly ToolSource[]) {}

  private sourceOf(name: string): ToolSource | undefined {
    return this.sources.find((s) => s.owns(name));
  }

  inputProblem(name: string, input: unknown): string | null {
    return this.sourceOf(name)?.inputProblem(name, input) ?? null;
  }

  needsApproval(name: string, input: unknown, env: Environment): Approval {
    // A call no source owns runs at once, to be answered "unknown tool".
    return this.sourceOf(name)?.needsApproval(name, input, env) ?? false;
  }

  run(name: string, input: unknown, env: Environment, signal: AbortSignal, caller?: ToolCaller): Promise<ToolOutcome> {
    const source = this.sourceOf(name);
    return source ? source.run(name, input, env, signal, caller) : Promise.resolve({ text: `Unknown tool: ${name}`, isError: true });
  }
}

/**
 * The tools a thread offers beyond the static ones, fixed at its first request: later requests,
 * its forks (which share this object) and a source that changes its list meanwhile leave them as
 * they were, so the prompt cache holds. A first listing cut off by an abort is not kept.
 */
export class PinnedTools {
  private pinned: readonly ToolSpec[] | null = null;

  constructor(private readonly source: OfferedTools) {}

  /** Whether the list is fixed already: a request asking for it then does not wait. */
  get fixed(): boolean {
    return this.pinned !== null;
  }

  async list(signal: AbortSignal): Promise<readonly ToolSpec[]> {
    if (this.pinned) return this.pinned;
    const offered = await this.source.offered(signal);
    if (!signal.aborted) this.pinned ??= offered;
    return this.pinned ?? offered;
  }
}
