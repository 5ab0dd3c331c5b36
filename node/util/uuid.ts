/**
 * UUIDs: what a session id looks like, and new random (version 4) ones. A new one reads its
 * randomness from /dev/urandom: the host's first thread needs an id while it starts, and
 * node:crypto costs about 2 ms to load there; where that file cannot be read (Windows),
 * node:crypto's randomUUID.
 */
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

/** What a session id looks like: Claude Code takes only UUIDs, and an id names a file, so nothing else is let through. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (v: unknown): v is string => typeof v === "string" && UUID.test(v);

/** A random version 4 UUID (RFC 9562), its bytes from `source`. */
export function randomUuid(source = "/dev/urandom"): string {
  const bytes = Buffer.alloc(16);
  let fd: number | null = null;
  try {
    fd = openSync(source, "r");
    if (readSync(fd, bytes) !== bytes.length) return randomUUID();
  } catch {
    return randomUUID();
  } finally {
    if (fd !== null) closeSync(fd);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant 10
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
