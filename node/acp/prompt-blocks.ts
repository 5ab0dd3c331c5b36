/**
 * A message as an ACP prompt: its text, and each `@file` mention as the agent can take it. Every
 * agent takes text and resource links (the spec's baseline); an agent whose promptCapabilities
 * say `embeddedContext` gets the file's text embedded, as tine read it when the message was sent,
 * so the agent sees what the user saw.
 */
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { readContextBlock } from "../context/blocks.ts";
import type { UserBlock } from "../core/native.ts";
import type { PromptCapabilitiesSaid } from "./summary.ts";

export type PromptPart =
  | { readonly kind: "text"; readonly text: string }
  /** A mentioned file: its absolute path, and its text when tine read it (null: not read, linked only). */
  | { readonly kind: "file"; readonly path: string; readonly text: string | null };

export function promptBlocks(parts: readonly PromptPart[], can: PromptCapabilitiesSaid): ContentBlock[] {
  return parts.map((part): ContentBlock => {
    if (part.kind === "text") return { type: "text", text: part.text };
    const uri = pathToFileURL(part.path).href;
    if (part.text !== null && can.embeddedContext) return { type: "resource", resource: { uri, text: part.text, mimeType: "text/plain" } };
    return { type: "resource_link", uri, name: basename(part.path) };
  });
}

/**
 * A user message's blocks (chat/thread.ts: its mentions' context blocks, then its text) as prompt
 * parts: each `@file` mention a file part (its path made absolute against the session's folder
 * `cwd`), so the agent gets it as a resource; every other block as its text.
 */
export function promptParts(blocks: readonly UserBlock[], cwd: string): PromptPart[] {
  const parts: PromptPart[] = [];
  for (const block of blocks) {
    if (block.type !== "text") continue;
    const item = readContextBlock(block.text);
    if (item?.kind === "file") parts.push({ kind: "file", path: resolve(cwd, item.path), text: item.text });
    else parts.push({ kind: "text", text: block.text });
  }
  return parts;
}
