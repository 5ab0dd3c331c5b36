/**
 * What the methods of a table (methods.ts, test-methods.ts) run as: one function per method, on
 * the host, with its checked arguments. Apart from handlers.ts, which dispatches to them, so the
 * tables of runners (there and in test-methods.ts) import it and not each other.
 */
import type { App } from "../host/app.ts";
import type { ArgsIn, Method, ResultIn } from "./methods.ts";

/** What a method runs against: the App, once `init` has made it. */
export type Host = { readonly app: App; start(config: unknown): void };

/** One function per method of `T`, taking its checked arguments and giving its result. */
export type MethodRunners<T extends Record<string, Method>> = {
  [M in keyof T]: (host: Host, args: ArgsIn<T, M>) => ResultIn<T, M> | Promise<ResultIn<T, M>>;
};
