/**
 * The agent's stdout as the SDK's ndJsonStream reads it, split into lines once: a line that does
 * not start with `{` (a log line an agent printed to the wrong stream, a banner) is dropped and
 * reported, so a noisy agent neither confuses the protocol nor goes unnoticed; a line that starts
 * with `{` is offered to `take` (the updates read by hand, fast-updates.ts) and, when not taken,
 * passed on whole. A line that starts with `{` but is not JSON is left to the SDK, which answers it
 * with a parse error. One pass and no web stream per line: a turn is thousands of lines.
 */

const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;
/** How much of a dropped line is reported. */
const SHOWN_BYTES = 200;

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d;

/**
 * `onNoise(text)` hears each dropped line, cut to a few hundred bytes; `take(line)` each message
 * line (its newline included), true when it handled it (then it is not passed on). `take` must not
 * keep `line`: its bytes may be the stream's.
 */
export function messageLines(onNoise: (text: string) => void, take: (line: Buffer) => boolean): TransformStream<Uint8Array, Uint8Array> {
  // Where the current line stands: before its first non-blank byte, a message, or dropped.
  let state: "start" | "pass" | "drop" = "start";
  let pieces: Buffer[] = [];
  let shown: number[] = [];
  const report = () => onNoise(Buffer.from(shown).toString("utf8").trimEnd());
  return new TransformStream({
    transform(chunk, controller) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let i = 0;
      while (i < bytes.length) {
        if (state === "start") {
          // Blank bytes before the first character are not passed on (the SDK would trim them).
          while (i < bytes.length && (isSpace(bytes[i]!) || bytes[i] === NEWLINE)) i++;
          if (i === bytes.length) break;
          state = bytes[i] === OPEN_BRACE ? "pass" : "drop";
          pieces = [];
          shown = [];
        }
        const end = bytes.indexOf(NEWLINE, i);
        const stop = end === -1 ? bytes.length : end + 1;
        if (state === "pass") pieces.push(bytes.subarray(i, stop));
        else for (let j = i; j < stop && shown.length < SHOWN_BYTES; j++) shown.push(bytes[j]!);
        if (end !== -1) {
          if (state === "pass") {
            const line = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
            // A copy: the chunk's bytes are not ours to hand on.
            if (!take(line)) controller.enqueue(pieces.length === 1 ? Buffer.from(line) : line);
          } else report();
          state = "start";
        }
        i = stop;
      }
      // A line that goes on in the next chunk: its piece of this one, copied (the earlier ones were).
      if (state === "pass" && pieces.length) pieces[pieces.length - 1] = Buffer.from(pieces[pieces.length - 1]!);
    },
    flush(controller) {
      if (state === "pass") controller.enqueue(Buffer.concat(pieces));
      else if (state === "drop") report();
    },
  });
}
