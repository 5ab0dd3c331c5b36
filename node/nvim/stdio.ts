/**
 * Neovim's channel on the host's stdin and stdout, read and written as file descriptors instead
 * of through process.stdin and process.stdout: making those loads Node's net and stream modules,
 * a good part of the host's own start-up. Neovim gives its jobs blocking descriptors (a pipe, or
 * a socket pair), so a write returns once its bytes are in the pipe and a read waits in libuv's
 * thread pool. A descriptor that does not block (EAGAIN: something made it non-blocking) is
 * handed to Node's streams from then on, without losing or reordering a byte.
 */
import { read, writeSync } from "node:fs";

const STDIN = 0;
const STDOUT = 1;
const CHUNK = 64 * 1024;

const errno = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** What stdin brings, chunk by chunk, until it ends. */
export async function* stdinChunks(): AsyncGenerator<Uint8Array> {
  for (;;) {
    // A buffer of its own per read: the decoder may keep views into it.
    const buffer = Buffer.allocUnsafe(CHUNK);
    let bytes: number;
    try {
      bytes = await new Promise<number>((resolve, reject) =>
        read(STDIN, buffer, 0, CHUNK, null, (error, n) => (error ? reject(error) : resolve(n))),
      );
    } catch (error) {
      if (errno(error) !== "EAGAIN") throw error;
      yield* process.stdin as AsyncIterable<Uint8Array>; // nothing was read: the stream starts where this left off
      return;
    }
    if (bytes === 0) return;
    yield buffer.subarray(0, bytes);
  }
}

let throughStream = false;

/** Writes all of `bytes` to stdout, after everything written before. */
export function writeStdout(bytes: Uint8Array): void {
  if (throughStream) {
    process.stdout.write(bytes);
    return;
  }
  for (let done = 0; done < bytes.length; ) {
    try {
      done += writeSync(STDOUT, bytes, done);
    } catch (error) {
      if (errno(error) === "EPIPE") return; // Neovim is gone: stdin ends, and the host with it
      if (errno(error) !== "EAGAIN") throw error;
      throughStream = true;
      process.stdout.write(bytes.subarray(done));
      return;
    }
  }
}
