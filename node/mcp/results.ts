/**
 * What an MCP tool's result becomes for the model: its text (capped as the built-in tools' output
 * is, head and tail kept), its images as image blocks, the resources it names listed, and what
 * the Messages API cannot take (audio, binary resources, other image types) named instead of sent.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { sizeOf } from "../tools/byte-size.ts";
import type { ToolImage, ToolOutcome } from "../tools/source.ts";
import { headAndTail } from "../util/head-and-tail.ts";

/** The text kept of a long result: its first and last bytes (30,000 in all, as run.ts keeps of a built-in tool's). */
export const MAX_TEXT_HEAD = 15_000;
export const MAX_TEXT_TAIL = 15_000;
/** The API refuses an image over 5 MB; base64 is 4/3 of the bytes. */
export const MAX_IMAGE_BASE64 = Math.floor((5 * 1024 * 1024 * 4) / 3);
/** Images kept of one result (a request takes at most 100 in all). */
export const MAX_IMAGES = 20;

const IMAGE_TYPES: readonly ToolImage["mediaType"][] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
const isImageType = (t: string): t is ToolImage["mediaType"] => (IMAGE_TYPES as readonly string[]).includes(t);

/** The size of base64 data in words (three bytes per four characters). */
const sizeOfBase64 = (length: number) => sizeOf(Math.floor((length * 3) / 4));

/**
 * A result not read for its size: a stdio server's answer over `limit` bytes (stdio-transport.ts),
 * or an HTTP server's, `cut` once past it (bounded-fetch.ts), so only its least size is known.
 */
export const tooLarge = (bytes: number, limit: number, cut = false): ToolOutcome => ({
  text: `[not read: the result is ${cut ? "over " : ""}${sizeOf(cut ? limit : bytes)}, and tine reads at most ${sizeOf(limit)} of an MCP server's answer]`,
  isError: true,
});

export function toOutcome(result: CallToolResult): ToolOutcome {
  const texts: string[] = [];
  const images: ToolImage[] = [];
  const links: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        break;
      case "image":
        if (!isImageType(block.mimeType))
          texts.push(`[an image of type ${block.mimeType} left out: the model takes PNG, JPEG, GIF and WebP]`);
        else if (block.data.length > MAX_IMAGE_BASE64)
          texts.push(`[an image of ${sizeOfBase64(block.data.length)} left out: over the API's 5 MB]`);
        else if (images.length >= MAX_IMAGES) texts.push(`[an image left out: only ${MAX_IMAGES} of one result are sent]`);
        else images.push({ mediaType: block.mimeType, data: block.data });
        break;
      case "audio":
        texts.push(`[audio (${block.mimeType}) left out: the model takes no audio]`);
        break;
      case "resource_link":
        links.push(`- ${block.name}: ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ""}`);
        break;
      case "resource": {
        const r = block.resource;
        if ("text" in r && typeof r.text === "string") texts.push(`[resource ${r.uri}]\n${r.text}`);
        else links.push(`- ${r.uri}${r.mimeType ? ` (${r.mimeType}, binary: not shown)` : " (binary: not shown)"}`);
        break;
      }
    }
  }
  // A result with structured content only: its JSON is what there is to read.
  if (!texts.length && !images.length && result.structuredContent !== undefined) texts.push(JSON.stringify(result.structuredContent));
  if (links.length) texts.push(`Resources named in the result:\n${links.join("\n")}`);
  const text = headAndTail(texts.join("\n"), MAX_TEXT_HEAD, MAX_TEXT_TAIL, "output");
  const isError = result.isError === true;
  return images.length ? { text, isError, images } : { text, isError };
}
