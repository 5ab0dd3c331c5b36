/**
 * The `session/update` notifications given to the SDK and not settled yet: while there is one, an
 * update is not taken by hand (fast-updates.ts), so the order holds. The SDK settles an update by
 * running its handler (`handled`), or by refusing it: its schema check, made as it reads the
 * message, throws, and then no handler ever runs. A refusal says nothing to tine (the SDK logs
 * it), so it is settled where the SDK reads (`reading`): the SDK is given the message after an
 * update only once that update is settled, and one whose handler has not run once all the work
 * its reading set off is done (a macrotask later: the SDK's dispatch up to the handler is promise
 * steps only) was refused. Else the count would stay up and every later text chunk would go the
 * slow way.
 */

type Message = { readonly method?: unknown; readonly id?: unknown };

export class SdkUpdates {
  private unsettled = 0;
  /** Whether the update the SDK read last has been handled (true before it has read any). */
  private lastHandled = true;
  private onHandled: (() => void) | null = null;

  /** Whether an update given to the SDK is not settled yet. */
  waiting(): boolean {
    return this.unsettled > 0;
  }

  /**
   * A line goes the SDK's way (`message`: it parsed): counted when it is an update notification
   * (a line that only holds the words, in a file's text say, or is not JSON, never reaches the handler).
   */
  passed(message: unknown): void {
    if (isUpdate(message)) this.unsettled++;
  }

  /**
   * The SDK's handler ran for the update it read last. Settles it once: a handler that ran after
   * its update was taken as refused (it cannot, in the SDK's dispatch as it is) counts nothing.
   */
  handled(): void {
    if (this.lastHandled) return;
    this.settled();
    this.onHandled?.();
  }

  private settled(): void {
    this.lastHandled = true;
    this.unsettled = Math.max(0, this.unsettled - 1);
  }

  /** `messages`, as the SDK is to read them: after an update, the next once that update is settled. */
  reading<T>(messages: ReadableStream<T>): ReadableStream<T> {
    const reader = messages.getReader();
    let last: T | null = null;
    return new ReadableStream<T>(
      {
        pull: async (controller) => {
          if (isUpdate(last)) await this.settle();
          const next = await reader.read();
          if (next.done) return controller.close();
          last = next.value;
          if (isUpdate(last)) this.lastHandled = false;
          controller.enqueue(next.value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
  }

  private async settle(): Promise<void> {
    if (!this.lastHandled)
      await new Promise<void>((resolve) => {
        const refused = setImmediate(resolve);
        this.onHandled = () => {
          clearImmediate(refused);
          resolve();
        };
      });
    this.onHandled = null;
    if (!this.lastHandled) this.settled();
  }
}

const isUpdate = (message: unknown): boolean =>
  typeof message === "object" && message !== null && (message as Message).method === "session/update" && !("id" in message);
