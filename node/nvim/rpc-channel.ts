/**
 * The host's end of Neovim's msgpack-RPC channel (jobstart's `rpc = true`, on stdio): Neovim's
 * requests go to one handler and get its answer back, its notifications to another, and the
 * host's own requests (the bridge's calls into Lua) get theirs. Only that: the neovim package's
 * client also fetches and decodes the whole API's metadata before it serves a first request,
 * which was a good part of start-up.
 */
import { decodeMultiStream, encode } from "@msgpack/msgpack";
import { assertUnreachable } from "../util/assert-unreachable.ts";

/** The three messages of msgpack-RPC. */
type Message =
  | [type: 0, id: number, method: string, args: unknown[]]
  | [type: 1, id: number, error: unknown, result: unknown]
  | [type: 2, method: string, args: unknown[]];

export type RequestHandler = (method: string, args: unknown[]) => Promise<unknown>;
/** Neovim's two kinds of calls: a request waits for its answer, a notification for nothing. */
export type CallHandlers = { request: RequestHandler; notification(method: string, args: unknown[]): void };

export class RpcChannel {
  private lastId = 0;
  private readonly pending = new Map<number, { method: string; resolve(value: unknown): void; reject(error: Error): void }>();

  /** `write` sends bytes to Neovim, in order. */
  constructor(
    private readonly write: (bytes: Uint8Array) => void,
    private readonly on: CallHandlers,
  ) {}

  /** Reads messages from what Neovim sends until it ends. */
  async listen(chunks: AsyncIterable<Uint8Array>): Promise<void> {
    for await (const message of decodeMultiStream(chunks)) this.receive(message as Message);
  }

  /** Calls `method` in Neovim; a Neovim error rejects with "method: its message". */
  request(method: string, args: unknown[]): Promise<unknown> {
    const id = ++this.lastId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.send([0, id, method, args]);
    });
  }

  private receive(message: Message): void {
    switch (message[0]) {
      case 0: {
        const [, id, method, args] = message;
        // A handler that throws is answered with its error too: the channel keeps reading.
        new Promise((resolve) => resolve(this.on.request(String(method), args))).then(
          (result) => this.answer(id, null, result ?? null),
          (error: unknown) => this.answer(id, error instanceof Error ? error.message : String(error), null),
        );
        return;
      }
      case 1: {
        const [, id, error, result] = message;
        const waiting = this.pending.get(id);
        this.pending.delete(id);
        if (!waiting) return;
        // Neovim's errors are [type, message].
        if (error !== null) waiting.reject(new Error(`${waiting.method}: ${Array.isArray(error) ? error[1] : String(error)}`));
        else waiting.resolve(result);
        return;
      }
      case 2: {
        const [, method, args] = message;
        this.on.notification(String(method), args);
        return;
      }
      default:
        assertUnreachable(message);
    }
  }

  /** Answers request `id`; an answer that cannot be encoded is answered as an error (Neovim waits for one). */
  private answer(id: number, error: string | null, result: unknown): void {
    try {
      this.send([1, id, error, result]);
    } catch (e) {
      this.send([1, id, `tine: the answer could not be sent: ${(e as Error).message}`, null]);
    }
  }

  private send(message: Message): void {
    this.write(encode(message));
  }
}
