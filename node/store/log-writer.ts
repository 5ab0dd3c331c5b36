/** A transcript open for appending: whole records only, written synchronously. */
import { closeSync, ftruncateSync, writeSync } from "node:fs";
import { type ChangeRecord, encode } from "./records.ts";

/** Writes all of `bytes` (a write to a nearly full disk may take part of them, then fail). */
export function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) {
    const n = writeSync(fd, bytes, done, bytes.length - done);
    if (n <= 0) throw new Error("the disk took none of a write");
    done += n;
  }
}

/**
 * A transcript open for appending. Writes are synchronous: a kill -9 loses no finished record. A
 * write that fails (a full or read-only disk) leaves no part of itself: the file is cut back to
 * its last whole record, so later records never follow a torn line.
 */
export class LogWriter {
  private closed = false;
  /** A failed write could not be cut back (the disk refused that too): it is cut before the next write. */
  private torn = false;

  constructor(
    readonly id: string,
    /** Open for appending (`a`): a write after a cut-back goes at the file's new end. */
    private readonly fd: number,
    /** Change records in the log so far: what a fork taken now points at. */
    public records: number,
    /** Bytes of whole records in the file. */
    private size: number,
    private readonly onClose: () => void,
  ) {}

  /** Appends `records` whole, or throws and leaves the file as it was. */
  append(records: readonly ChangeRecord[]): void {
    if (this.closed || records.length === 0) return;
    const bytes = Buffer.from(records.map(encode).join(""));
    try {
      if (this.torn) ftruncateSync(this.fd, this.size);
      this.torn = false;
      writeAll(this.fd, bytes);
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        this.torn = true;
      }
      throw error;
    }
    this.size += bytes.length;
    this.records += records.length;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    this.onClose();
  }
}
