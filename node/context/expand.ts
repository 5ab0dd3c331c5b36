/**
 * A message's mentions made context, before the message is sent: the one entry the host's `send`
 * calls. It asks the editor once for what every mention needs, resolves each mention (an
 * unresolvable one is an error naming it: nothing is sent), and reads the files followed as they
 * are now. What it returns travels with the send message; the blocks are made from it when the
 * send reaches the thread (follow.ts), against the history as it is then.
 */
import type { History } from "../core/history.ts";
import type { Environment } from "../tools/environment.ts";
import { ContextGitTimeout } from "../tools/project-git.ts";
import { fileOf, type MentionItems, mentionItems } from "./blocks.ts";
import { type EditorFacts, type EditorNeed, type GatherRequest, readFacts, requestFor } from "./editor.ts";
import { type ContextLimits, type FilePlace, placeOf, readText, Unreadable } from "./files.ts";
import { type FollowedCopy, followedAfter, type SendContext } from "./follow.ts";
import { parseMentions } from "./mentions.ts";
import { RESOLVERS } from "./resolvers.ts";

export type ExpandScope = {
  readonly environment: Environment;
  readonly limits: ContextLimits;
  /** Asks Neovim for the editor's facts (lua/tine/context.lua `gather`). */
  readonly gather: (request: GatherRequest) => Promise<unknown>;
  /** Where the files outside the environment the user approved for this send lead (none: every one is asked about). */
  readonly approved: ReadonlySet<string>;
  /** Tells the user what the send left out (a glob's link out of the project, a file no longer followed). */
  readonly tell: (notice: string) => void;
};

/**
 * Nothing was sent: files named alone lead outside the environment (through a link, `..`, an
 * absolute path), and wait for the user's yes. Asked in Neovim; the send is made again with them approved.
 */
export class AwaitingApproval extends Error {
  constructor(readonly files: readonly FilePlace[]) {
    super(
      `tine: ${files.map((f) => f.name).join(", ")} lead${files.length === 1 ? "s" : ""} outside the project: not sent without your approval`,
    );
  }
}

/** The context a send of `text` after `history` carries, or null when it carries none (no mention, no file followed). */
export async function expandMentions(text: string, history: History, scope: ExpandScope): Promise<SendContext | null> {
  const mentions = parseMentions(text);
  const followed = followedAfter(history);
  if (mentions.length === 0 && followed.size === 0) return null;
  const needs = new Set<EditorNeed>(mentions.flatMap((m) => RESOLVERS[m.name].needs));
  if (followed.size) needs.add("modified");
  const editor = needs.size ? readFacts(await scope.gather(requestFor(needs))) : NO_FACTS;
  let files: Promise<readonly string[]> | null = null;
  const asked: FilePlace[] = [];
  const notices: string[] = [];
  const resolved: MentionItems[] = [];
  for (const mention of mentions) {
    const resolveScope = {
      ...scope,
      editor,
      followed,
      projectFiles: () => (files ??= scope.environment.listProjectFiles(scope.limits.gitTimeoutMs).then((l) => l.files)),
      askApproval: (place: FilePlace) => asked.push(place),
      tell: (notice: string) => notices.push(`tine: ${mention.source}: ${notice}`),
    };
    try {
      resolved.push({ mention: mention.source, items: await RESOLVERS[mention.name].resolve(mention.argument, resolveScope) });
    } catch (error) {
      // A git stopped midway is no fault of the mention's: saying that nothing went tells the user they may simply send again.
      const more = error instanceof ContextGitTimeout ? ": nothing was sent" : "";
      throw new Error(`tine: ${mention.source}: ${(error as Error).message}${more}`);
    }
  }
  if (asked.length) throw new AwaitingApproval(asked);
  const items = mentionItems(resolved);
  const mentioned = new Set(items.flatMap((item) => fileOf(item) ?? []));
  const copies: FollowedCopy[] = [];
  for (const path of followed.keys()) {
    // A file followed is read only while it stays inside: one that leads out now (a link put in its place) stops.
    const place = placeOf(scope.environment, path);
    if (place.inside) copies.push(await followedCopy(scope.environment, place, editor, scope.limits));
    else {
      copies.push({ type: "gone", path, why: "leads outside the project" });
      if (!mentioned.has(path))
        notices.push(
          `tine: ${path} is no longer followed: it leads outside the project (to ${place.target}); mention it again to send it (you are asked first)`,
        );
    }
  }
  // Only once nothing stops the send: a send asked about again would say them twice.
  for (const notice of notices) scope.tell(notice);
  return { items, followed: copies };
}

async function followedCopy(environment: Environment, place: FilePlace, editor: EditorFacts, limits: ContextLimits): Promise<FollowedCopy> {
  const path = place.name;
  try {
    return { type: "text", path, ...(await readText(environment, place, editor, limits)) };
  } catch (error) {
    if (error instanceof Unreadable) return { type: "gone", path, why: error.gone };
    throw error;
  }
}

const NO_FACTS: EditorFacts = { source: null, buffers: [], diagnostics: [], quickfix: [], modified: new Map() };
