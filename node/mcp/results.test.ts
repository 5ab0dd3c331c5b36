/** What an MCP tool result becomes for the model. */
import { describe, expect, it } from "vitest";
import { MAX_IMAGE_BASE64, MAX_TEXT_HEAD, MAX_TEXT_TAIL, toOutcome } from "./results.ts";

describe("toOutcome", () => {
  it("joins the text blocks; isError makes an error outcome", () => {
    expect(
      toOutcome({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toEqual({ text: "a\nb", isError: false });
    expect(toOutcome({ content: [{ type: "text", text: "no" }], isError: true })).toEqual({ text: "no", isError: true });
  });

  it("keeps images the API takes, and names the ones it does not (type, size) and audio instead", () => {
    const out = toOutcome({
      content: [
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "image", data: "AAAA", mimeType: "image/bmp" },
        { type: "image", data: "A".repeat(MAX_IMAGE_BASE64 + 4), mimeType: "image/jpeg" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      ],
    });
    expect(out.images).toEqual([{ mediaType: "image/png", data: "AAAA" }]);
    expect(out.text).toBe(
      [
        "[an image of type image/bmp left out: the model takes PNG, JPEG, GIF and WebP]",
        "[an image of 5.0 MiB left out: over the API's 5 MB]",
        "[audio (audio/wav) left out: the model takes no audio]",
      ].join("\n"),
    );
  });

  it("lists the resources a result names, and gives an embedded text resource's text", () => {
    const out = toOutcome({
      content: [
        { type: "text", text: "found" },
        { type: "resource_link", uri: "file:///a.txt", name: "a", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "file:///b.txt", text: "bee" } },
        { type: "resource", resource: { uri: "file:///c.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
      ],
    });
    expect(out.text).toBe(
      [
        "found",
        "[resource file:///b.txt]",
        "bee",
        "Resources named in the result:",
        "- a: file:///a.txt (text/plain)",
        "- file:///c.bin (application/octet-stream, binary: not shown)",
      ].join("\n"),
    );
  });

  it("gives structured content as JSON when there is nothing else", () => {
    expect(toOutcome({ content: [], structuredContent: { n: 1 } }).text).toBe('{"n":1}');
  });

  it("caps long text as the built-in tools' output is: head and tail kept, the middle counted", () => {
    const long = `${"h".repeat(MAX_TEXT_HEAD)}${"m".repeat(10_000)}${"t".repeat(MAX_TEXT_TAIL)}`;
    const text = toOutcome({ content: [{ type: "text", text: long }] }).text;
    expect(text).toBe(`${"h".repeat(MAX_TEXT_HEAD)}\n[… 10000 bytes of output dropped here …]\n${"t".repeat(MAX_TEXT_TAIL)}`);
  });
});
