/**
 * A message's mentions made context, before the message is sent: the one entry the host's `send`
 * calls. It asks the editor once for what every mention needs, resolves each mention (an
 * unresolvable one is an error naming it: nothing is sent), and reads the files followed as they
 * are now. What it returns travels with the send message; the blocks are made from it when the
 * send reaches the thread (follow.ts), against the history as it is then.
 */
import type { History } from "../providers/history.ts";
import type { Environment } from "../tools/environment.ts";
import { type EditorFacts, type EditorNeed, type GatherRequest, readFacts, requestFor } from "./editor.ts";
import { type ContextLimits, readText, Unreadable } from "./files.ts";
import { type FollowedCopy, followedAfter, type SendContext } from "./follow.ts";
import { parseMentions } from "./mentions.ts";
import { listProjectFiles } from "./project-files.ts";
import { RESOLVERS } from "./resolvers.ts";

export type ExpandScope = {
  readonly environment: Environment;
  readonly limits: ContextLimits;
  /** Asks Neovim for the editor's facts (lua/tine/context.lua `gather`). */
  readonly gather: (request: GatherRequest) => Promise<unknown>;
};

/** The context a send of `text` after `history` carries, or null when it carries none (no mention, no file followed). */
export async function expandMentions(text: string, history: History, scope: ExpandScope): Promise<SendContext | null> {
  const mentions = parseMentions(text);
  const followed = followedAfter(history);
  if (mentions.length === 0 && followed.size === 0) return null;
  const needs = new Set<EditorNeed>(mentions.flatMap((m) => RESOLVERS[m.name].needs));
  if (followed.size) needs.add("modified");
  const editor = needs.size ? readFacts(await scope.gather(requestFor(needs))) : NO_FACTS;
  let files: Promise<readonly string[]> | null = null;
  const resolveScope = {
    ...scope,
    editor,
    followed,
    projectFiles: () => (files ??= listProjectFiles(scope.environment.root, scope.limits.gitTimeoutMs).then((l) => l.files)),
  };
  const items = [];
  for (const mention of mentions) {
    try {
      items.push(...(await RESOLVERS[mention.name].resolve(mention.argument, resolveScope)));
    } catch (error) {
      throw new Error(`tine: ${mention.source}: ${(error as Error).message}`);
    }
  }
  const copies: FollowedCopy[] = [];
  for (const path of followed.keys()) copies.push(await followedCopy(scope.environment, path, editor, scope.limits));
  return { items, followed: copies };
}

async function followedCopy(environment: Environment, path: string, editor: EditorFacts, limits: ContextLimits): Promise<FollowedCopy> {
  try {
    return { type: "text", path, ...(await readText(environment, path, editor, limits)) };
  } catch (error) {
    if (error instanceof Unreadable) return { type: "gone", path, why: error.gone };
    throw error;
  }
}

const NO_FACTS: EditorFacts = { source: null, buffers: [], diagnostics: [], quickfix: [], modified: new Map() };
