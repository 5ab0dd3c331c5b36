/**
 * Long text bounded by keeping its start and its end and counting what falls between: how a
 * command's output (tools/local-shell.ts) and a fork's report (chat/prompts.ts) are capped, so
 * the model sees how something began and how it ended, and how much it was not shown.
 */

/** Keeps the first `headBytes` and the last `tailBytes` of a stream however much comes. */
export class HeadAndTail {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(
    private readonly maxHead: number,
    private readonly maxTail: number,
    /** What the text is, for the note that says how much was dropped ("output", "report"). */
    private readonly what: string,
  ) {}

  push(chunk: Buffer): void {
    if (this.headBytes < this.maxHead) {
      const taken = chunk.subarray(0, this.maxHead - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      chunk = chunk.subarray(taken.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes > this.maxTail) {
      const excess = this.tailBytes - this.maxTail;
      const first = this.tail[0]!;
      const cut = Math.min(excess, first.length);
      if (cut === first.length) this.tail.shift();
      else this.tail[0] = first.subarray(cut);
      this.tailBytes -= cut;
      this.dropped += cut;
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    return this.dropped ? `${head}\n[… ${this.dropped} bytes of ${this.what} dropped here …]\n${tail}` : head + tail;
  }
}

/** `text` with at most `headBytes` of its start and `tailBytes` of its end (UTF-8), the middle counted. */
export function headAndTail(text: string, headBytes: number, tailBytes: number, what: string): string {
  // Most text is short: no copy then.
  if (text.length * 3 <= headBytes + tailBytes) return text;
  const kept = new HeadAndTail(headBytes, tailBytes, what);
  kept.push(Buffer.from(text, "utf8"));
  return kept.text();
}
