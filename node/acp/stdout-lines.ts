/**
 * The agent's stdout as the SDK's ndJsonStream reads it, less what is not a JSON-RPC message: a
 * line that does not start with `{` (a log line an agent printed to the wrong stream, a banner) is
 * dropped and reported, so a noisy agent neither confuses the protocol nor goes unnoticed. A line
 * that starts with `{` but is not JSON is left to the SDK, which answers it with a parse error.
 */

const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;
/** How much of a dropped line is reported. */
const SHOWN_BYTES = 200;

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d;

/** `onNoise(text)` hears each dropped line, cut to a few hundred bytes. */
export function dropNonMessages(onNoise: (text: string) => void): TransformStream<Uint8Array, Uint8Array> {
  // Where the current line stands: before its first non-blank byte, passed on, or dropped.
  let state: "start" | "pass" | "drop" = "start";
  let shown: number[] = [];
  const report = () => onNoise(Buffer.from(shown).toString("utf8").trimEnd());
  return new TransformStream({
    transform(chunk, controller) {
      let i = 0;
      while (i < chunk.length) {
        if (state === "start") {
          // Blank bytes before the first character are not passed on (the SDK would trim them).
          while (i < chunk.length && (isSpace(chunk[i]!) || chunk[i] === NEWLINE)) i++;
          if (i === chunk.length) break;
          state = chunk[i] === OPEN_BRACE ? "pass" : "drop";
          shown = [];
        }
        const end = chunk.indexOf(NEWLINE, i);
        const stop = end === -1 ? chunk.length : end + 1;
        if (state === "pass") controller.enqueue(chunk.slice(i, stop));
        else for (let j = i; j < stop && shown.length < SHOWN_BYTES; j++) shown.push(chunk[j]!);
        if (end !== -1) {
          if (state === "drop") report();
          state = "start";
        }
        i = stop;
      }
    },
    flush() {
      if (state === "drop") report();
    },
  });
}
