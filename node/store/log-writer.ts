/** A transcript open for appending: whole records only, written synchronously. */
import { closeSync, writeSync } from "node:fs";
import { type ChangeRecord, encode } from "./records.ts";

/** A transcript open for appending. Writes are synchronous: a kill -9 loses no finished record. */
export class LogWriter {
  private closed = false;

  constructor(
    readonly id: string,
    private readonly fd: number,
    /** Change records in the log so far: what a fork taken now points at. */
    public records: number,
    private readonly onClose: () => void,
  ) {}

  append(records: readonly ChangeRecord[]): void {
    if (this.closed || records.length === 0) return;
    writeSync(this.fd, records.map(encode).join(""));
    this.records += records.length;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    this.onClose();
  }
}
