/**
 * What went wrong with a request, said so a user can act on it: where (the API host), why (refused,
 * DNS, TLS, reset, an HTTP status with the API's error type and request id), and whether trying
 * again can help (and how long the server asked to wait): the one rule of what is retried.
 */
import Anthropic from "@anthropic-ai/sdk";

/** Causes of a failed connection that waiting does not mend: the server's TLS certificate. */
const LASTING_CAUSES = new Set([
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/**
 * Whether the same request, sent again, can succeed: the server's `x-should-retry` header when it
 * sends one ("true" or "false"); else, as the SDK's own rule, a request or lock timeout (408, 409),
 * a rate limit (429), a server error or overload (5xx, 529), or no response at all (the connection
 * refused, reset or timed out, the name not resolved; not a bad certificate). In the middle of a
 * stream, an overloaded or rate-limit error event. A connection cut after the response began is
 * not retried: what had arrived is kept, marked interrupted.
 */
export function isRetryable(error: unknown): boolean {
  // Before APIError: the SDK's connection errors are APIErrors without a status.
  if (error instanceof Anthropic.APIConnectionError) {
    const code = rootCause(error)?.code;
    return !(code && LASTING_CAUSES.has(code));
  }
  if (!(error instanceof Anthropic.APIError)) return false;
  const should = header(error, "x-should-retry");
  if (should === "true") return true;
  if (should === "false") return false;
  const status = error.status;
  // An error event in the stream: no status of its own.
  if (status === undefined) return error.type === "overloaded_error" || error.type === "rate_limit_error";
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A response header of an API error, or null. */
function header(error: InstanceType<typeof Anthropic.APIError>, name: string): string | null {
  const headers = error.headers as Headers | Record<string, string> | undefined;
  if (!headers) return null;
  return (
    (typeof (headers as Headers).get === "function" ? (headers as Headers).get(name) : (headers as Record<string, string>)[name]) ?? null
  );
}

/** The wait the server asked for (`retry-after-ms`, else `retry-after` in seconds or as a date), or null. */
export function retryAfterMs(error: unknown, now = Date.now()): number | null {
  if (!(error instanceof Anthropic.APIError)) return null;
  const get = (name: string) => header(error, name);
  const ms = Number(get("retry-after-ms"));
  if (get("retry-after-ms") !== null && Number.isFinite(ms)) return Math.max(0, ms);
  const after = get("retry-after");
  if (after === null) return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}

const CAUSES: Record<string, string> = {
  ECONNREFUSED: "the connection was refused (is the server running?)",
  ENOTFOUND: "the host name could not be resolved (DNS)",
  EAI_AGAIN: "the host name could not be resolved for now (DNS)",
  ECONNRESET: "the connection was reset",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host cannot be reached",
  ENETUNREACH: "the network cannot be reached",
  UND_ERR_SOCKET: "the connection was closed by the other side",
  CERT_HAS_EXPIRED: "TLS: the server's certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "TLS: the server's certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "TLS: the server's certificate cannot be verified",
  ERR_TLS_CERT_ALTNAME_INVALID: "TLS: the certificate does not match the host name",
};

/** The innermost cause with a code (fetch wraps socket errors in one or two layers). */
function rootCause(error: unknown): { code?: string; message: string } | null {
  let e: unknown = error;
  let found: { code?: string; message: string } | null = null;
  for (let depth = 0; e && depth < 6; depth++) {
    const { code, message, cause } = e as { code?: string; message?: string; cause?: unknown };
    if (code || (message && depth > 0)) found = { code, message: message ?? "" };
    e = cause;
  }
  return found;
}

export function hostOf(baseURL: string | undefined): string {
  try {
    return new URL(baseURL || "https://api.anthropic.com").host;
  } catch {
    return String(baseURL);
  }
}

/** One line for the thread: what failed, where, and why. */
export function describeError(error: unknown, baseURL?: string): string {
  const host = hostOf(baseURL);
  if (error instanceof Anthropic.APIError && error.status) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    const type = body?.error?.type ?? error.type ?? "error";
    const message = body?.error?.message ?? error.message;
    const id = error.requestID ? ` (request id ${error.requestID})` : "";
    return `${host} answered HTTP ${error.status} ${type}: ${message}${id}`;
  }
  const cause = rootCause(error);
  if (error instanceof Anthropic.APIConnectionError || cause?.code) {
    const why = (cause?.code && CAUSES[cause.code]) ?? cause?.message ?? (error as Error).message;
    return `could not reach ${host}: ${why}${cause?.code && !CAUSES[cause.code] ? ` (${cause.code})` : ""}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  // undici's word for a body cut off mid-stream.
  if (message === "terminated") return `the connection to ${host} was closed in the middle of the response`;
  return `${message} (${host})`;
}
