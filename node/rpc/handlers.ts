/**
 * The requests the Lua side may make, dispatched over tables of methods (methods.ts,
 * test-methods.ts): a call's arguments are checked against its table first, then its runner
 * answers it, against what `init` started. Which service answers each method is the composition
 * root's (node/host/requests.ts): this file knows no service. Both entries (the jobstart host and
 * the classic remote-plugin host) route through here.
 */

import { parseArguments } from "../core/checks.ts";
import type { MirroredThreads } from "../view/threads-mirror.ts";
import type { ArgsIn, Method, ResultIn } from "./methods.ts";

/** What a method runs against: `app`, what `init` started (reading it before throws), and `start`, for `init`. */
export type Host<App> = { readonly app: App; start(config: unknown): void };

/** One function per method of `T`, taking its checked arguments and giving its result. */
export type MethodRunners<T extends Record<string, Method>, App> = {
  [M in keyof T]: (host: Host<App>, args: ArgsIn<T, M>) => ResultIn<T, M> | Promise<ResultIn<T, M>>;
};

/** A table of methods with their runners, as the handlers look a request up in it. */
export type MethodSet<App> = {
  /** Whether this host answers `name` (a test method only when its environment variable is set). */
  answers(name: string): boolean;
  run(host: Host<App>, name: string, args: readonly unknown[]): unknown;
};

/** `table`'s methods answered by `runners`; `enabled`: which of them this host answers (all by default). */
export function methodSet<T extends Record<string, Method>, App>(
  table: T,
  runners: MethodRunners<T, App>,
  enabled: (name: keyof T & string) => boolean = () => true,
): MethodSet<App> {
  const known = (name: string): name is keyof T & string => Object.hasOwn(table, name);
  return {
    answers: (name) => known(name) && enabled(name),
    run: (host, name, args) => {
      if (!known(name)) throw new Error(`tine: unknown request ${name}`);
      const method = table[name]!;
      return runners[name]!(host, parseArguments<T[typeof name]["args"]>(method.api ?? name, method.args, args));
    },
  };
}

/** How the handlers start, read and end what `init` starts (`App`), from the options (`Config` once checked). */
export type Starting<App, Config> = {
  /** The options checked (throws: a rejected `init` changes nothing). */
  check(config: unknown): Config;
  start(config: Config): App;
  close(app: App): void;
  /** What changed in the thread list since Lua last got it (view/threads-mirror.ts). */
  threadsDue(app: App): MirroredThreads | null;
  /** Looked up in order: the first that answers a name runs it. */
  methods: readonly MethodSet<App>[];
};

/** What every request is answered with (lua/tine/host.lua unwraps it). */
export type Answer = { result: unknown; threads: MirroredThreads | null };

export class Handlers<App, Config> implements Host<App> {
  private current: App | null = null;
  /** Why the last `init` failed: every method says it (the jobstart host gets `init` as a notification, which has no answer). */
  private failedStart: string | null = null;

  constructor(private readonly starting: Starting<App, Config>) {}

  get app(): App {
    if (!this.current) throw new Error(this.failedStart ?? "tine: the host is not initialised");
    return this.current;
  }

  /** `init`: a new App with these options (a second init replaces the first; a rejected one changes nothing). */
  start(config: unknown): void {
    try {
      const checked = this.starting.check(config);
      if (this.current) this.starting.close(this.current);
      this.current = null;
      this.current = this.starting.start(checked);
      this.failedStart = null;
    } catch (error) {
      if (!this.current) this.failedStart = `tine: the host failed to start: ${error instanceof Error ? error.message : String(error)}`;
      throw error;
    }
  }

  /** The host is exiting: release what the store holds (locks). */
  close(): void {
    if (this.current) this.starting.close(this.current);
  }

  /**
   * Runs a request. Its answer carries the thread list when it changed since Lua last got it
   * (view/threads-mirror.ts): after any call, threads() in Lua is as current as the host.
   */
  async handle(method: string, args: unknown[]): Promise<Answer> {
    const result = await this.runMethod(method, args);
    return { result: result ?? null, threads: this.current ? this.starting.threadsDue(this.current) : null };
  }

  private async runMethod(method: string, args: unknown[]): Promise<unknown> {
    const set = this.starting.methods.find((s) => s.answers(method));
    if (!set) throw new Error(`tine: unknown request ${method}`);
    return await set.run(this, method, args);
  }
}
