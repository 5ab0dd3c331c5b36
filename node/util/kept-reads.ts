/**
 * Reads of what never changes once made (two snapshots' difference, a file as a turn left it),
 * kept by key: the last `max` of them. A read still under way is shared by whoever asks meanwhile;
 * a failed one is not kept, so the next ask reads again.
 */
export class KeptReads<T> {
  private readonly known = new Map<string, Promise<T>>();

  constructor(private readonly max: number) {}

  /** What `read` gives for `key`, read once while it is kept. */
  get(key: string, read: () => Promise<T>): Promise<T> {
    const had = this.known.get(key);
    if (had) return had;
    const reading = read();
    if (this.known.size >= this.max) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, reading);
    reading.catch(() => {
      // Only this read: a newer one of the same key, made after this was evicted, stays.
      if (this.known.get(key) === reading) this.known.delete(key);
    });
    return reading;
  }
}
