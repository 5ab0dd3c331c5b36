/**
 * What went wrong with a request, said so a user can act on it: where (the API host), why (refused,
 * DNS, TLS, reset, an HTTP status with the API's error type and request id), and whether trying
 * again can help (and how long the server asked to wait).
 */
import Anthropic from "@anthropic-ai/sdk";

export function isRetryable(error: unknown): boolean {
  if (!(error instanceof Anthropic.APIError)) return false;
  return error.status === 429 || error.status === 529 || error.type === "overloaded_error" || error.type === "rate_limit_error";
}

/** The wait the server asked for (`retry-after-ms`, else `retry-after` in seconds or as a date), or null. */
export function retryAfterMs(error: unknown, now = Date.now()): number | null {
  if (!(error instanceof Anthropic.APIError) || !error.headers) return null;
  const headers = error.headers as Headers | Record<string, string>;
  const get = (name: string) =>
    (typeof (headers as Headers).get === "function" ? (headers as Headers).get(name) : (headers as Record<string, string>)[name]) ?? null;
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
