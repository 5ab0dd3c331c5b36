/**
 * The connection to the Messages API: the SDK client (or none without a key) and the retry and
 * stall limits every request of this host shares. The SDK's own retries are off: tine's one
 * retry layer is in the agent.
 */
import Anthropic from "@anthropic-ai/sdk";
import { logLine } from "../util/log-line.ts";

export type Connection = {
  /** Null when ANTHROPIC_API_KEY is not set: requests then fail with a clear message. */
  client: Anthropic | null;
  /**
   * Retries of transient errors (api-errors.ts `isRetryable`), at the HTTP level and mid-stream
   * alike. This is the only retry layer (the SDK's own is off), so a persistent 529 or 503 makes
   * 1 + streamRetries requests.
   */
  streamRetries: number;
  /** First back-off when the server names no wait; doubles each time. */
  retryDelayMs: number;
  /** A longer `retry-after` than this is not waited out: the user is told and chooses. */
  maxRetryWaitMs?: number;
  /** A stream silent for this long is given up (partial text kept). */
  streamIdleTimeoutMs?: number;
  /** Where errors go with their stack (the host's log). */
  log?: (message: string) => void;
};

/** The SDK logs to the console by default, which is the host's RPC channel: send it to stderr. */
const toStderr =
  (level: string) =>
  (message: string, ...rest: unknown[]) =>
    logLine(`tine host: sdk ${level}: ${[message, ...rest.map((r) => (typeof r === "string" ? r : JSON.stringify(r)))].join(" ")}`);
export const sdkLogger = { debug: toStderr("debug"), info: toStderr("info"), warn: toStderr("warn"), error: toStderr("error") };

export function connect(
  options: {
    baseURL?: string;
    retryDelayMs?: number;
    maxRetryWaitMs?: number;
    streamIdleTimeoutMs?: number;
    logger?: typeof sdkLogger;
  } = {},
): Connection {
  const apiKey = process.env["ANTHROPIC_API_KEY"];
  let client: Anthropic | null = null;
  return {
    // Made when the first request asks for it: the host's build loads the SDK then, not at start-up.
    get client() {
      if (!apiKey) return null;
      client ??= new Anthropic({
        apiKey,
        baseURL: options.baseURL || process.env["ANTHROPIC_BASE_URL"] || undefined,
        maxRetries: 0,
        logger: options.logger ?? sdkLogger,
      });
      return client;
    },
    streamRetries: 3,
    retryDelayMs: options.retryDelayMs ?? 1000,
    maxRetryWaitMs: options.maxRetryWaitMs ?? 60_000,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? 60_000,
    log: (message) => logLine(`tine host: ${message}`),
  };
}

/** What a thread shows without a key: how to set one without leaving Neovim (the host reads it when it starts). */
export const MISSING_KEY_MESSAGE =
  "ANTHROPIC_API_KEY is not set. From inside Neovim: :let $ANTHROPIC_API_KEY = '…' (in Lua, vim.env.ANTHROPIC_API_KEY = …, " +
  "read from a password manager rather than written in your config), then :Tine restart. Or export it before starting " +
  "Neovim, or try the offline demo with `npm run try`.";
