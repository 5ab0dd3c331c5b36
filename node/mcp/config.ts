/**
 * Which MCP servers there are and how each is reached: read from setup (`mcp_servers`) and from the
 * project's `.tine/mcp.json` and `.mcp.json` (Claude Code's shape), checked into one spec per
 * server. `${VAR}` in a value is kept as written here and only resolved (`launchOf`) when the
 * server starts, so a secret never sits in anything tine writes or logs. A project's file never
 * reads the host's credentials or tool_env_deny's variables: turning its servers on lets them run,
 * not have what tools are kept from.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Check, Checked } from "../core/checks.ts";
import { ok, say } from "../core/checks.ts";
import { MCP_SERVERS } from "../core/options.ts";
import { check, type Value } from "../core/rules.ts";
import type { OAuthOptions } from "./auth/provider.ts";

/** Where a server was configured; an earlier place wins over a later one for the same name. */
export type McpOrigin = "setup" | ".tine/mcp.json" | ".mcp.json";
export const MCP_FILES = [".tine/mcp.json", ".mcp.json"] as const;

type Common = { readonly name: string; readonly from: McpOrigin };
/** A server as configured, its values as written (`${VAR}` unresolved). */
export type McpServerSpec =
  | (Common & {
      readonly kind: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string | null;
    })
  /** `sse`: the old HTTP+SSE transport only (Claude Code's `"type": "sse"`); else Streamable HTTP, falling back to SSE. */
  | (Common & {
      readonly kind: "http";
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly sse: boolean;
      /** Its `oauth` option (`${VAR}` unresolved); a server that asks for a sign-in gets one without it too. */
      readonly oauth?: OAuthSpec;
    });

/** A server's `oauth` option as written. */
export type OAuthSpec = {
  readonly client_id?: string;
  readonly client_secret?: string;
  readonly scope?: string;
  readonly callback_port?: number;
  readonly client_metadata_url?: string;
};

const isMap = (v: unknown): v is Record<string, unknown> =>
  (typeof v === "object" && v !== null && !Array.isArray(v)) || (Array.isArray(v) && v.length === 0);

/** The servers as the rule lets them through (both shapes): the spec of each, as the rest of tine reads it. */
export function serversOf(servers: Value<typeof MCP_SERVERS>, from: McpOrigin): McpServerSpec[] {
  return Object.entries(servers).map(([name, s]): McpServerSpec => {
    if ("url" in s)
      return {
        kind: "http",
        name,
        from,
        url: s.url,
        headers: s.headers ?? {},
        sse: s.type === "sse",
        ...(s.oauth ? { oauth: s.oauth } : {}),
      };
    const [command, ...rest] = typeof s.command === "string" ? [s.command] : s.command;
    return { kind: "stdio", name, from, command: command!, args: [...rest, ...(s.args ?? [])], env: s.env ?? {}, cwd: s.cwd ?? null };
  });
}

/** A table of servers by name, checked against the servers' rule (node/core/options.ts). */
export function serverTable(v: unknown, name: string, from: McpOrigin): Checked<McpServerSpec[]> {
  const checked = check(MCP_SERVERS, v, name);
  return checked.ok ? ok(serversOf(checked.value, from)) : checked;
}

/** `mcp_servers` as setup gives it (checked with the other options, node/host/config.ts). */
export const mcpServersOption: Check<McpServerSpec[]> = (v, name) => serverTable(v, name, "setup");

/** The servers a project file names (`{ "mcpServers": {...} }`), or why it cannot be used; none when it is not there. */
export function readProjectFile(root: string, file: (typeof MCP_FILES)[number]): { servers: McpServerSpec[] } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(join(root, file), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { servers: [] };
    return { problem: `${file} could not be read: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `${file} is not JSON: ${(error as Error).message}` };
  }
  const servers = isMap(json) ? (json["mcpServers"] ?? {}) : json;
  const checked = serverTable(servers, "mcpServers", file);
  return checked.ok ? { servers: checked.value } : { problem: `${file}: ${say(checked.problem)}` };
}

/** Every server, setup's first: for a name given twice the first place wins (setup, then .tine/mcp.json, then .mcp.json). */
export function mergeServers(...lists: readonly (readonly McpServerSpec[])[]): McpServerSpec[] {
  const byName = new Map<string, McpServerSpec>();
  for (const list of lists) for (const s of list) if (!byName.has(s.name)) byName.set(s.name, s);
  return [...byName.values()];
}

// ---- at start: `${VAR}` resolved ----

/** What starts a server, its values resolved: held only by the transport, never stored or logged. */
export type McpLaunch =
  | {
      readonly kind: "stdio";
      readonly command: string;
      readonly args: string[];
      readonly env: Record<string, string>;
      readonly cwd: string;
    }
  | {
      readonly kind: "http";
      readonly url: URL;
      readonly headers: Record<string, string>;
      readonly sse: boolean;
      readonly oauth: OAuthOptions;
    };

/** Thrown when a value names a variable that is not set: the message names the variable, never a value. */
export class UnsetVariable extends Error {}

/** `${VAR}` or `${VAR:-default}` in a value. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

type Values = Readonly<Record<string, string | undefined>>;
const NONE: ReadonlySet<string> = new Set();

/**
 * `${VAR}` and `${VAR:-default}` replaced from `values`; an unset variable without a default
 * throws. A `refused` one is read as unset but never throws: empty, when it has no default.
 */
export function expandVars(value: string, values: Values, refused = NONE): string {
  return value.replace(VARIABLE, (_, name: string, fallback: string | undefined) => {
    const set = refused.has(name) ? undefined : values[name];
    if (set !== undefined && set !== "") return set;
    if (fallback !== undefined) return fallback;
    if (refused.has(name)) return "";
    throw new UnsetVariable(`\${${name}} is not set in Neovim's environment`);
  });
}

const expandAll = (table: Readonly<Record<string, string>>, values: Values, refused: ReadonlySet<string>) =>
  Object.fromEntries(Object.entries(table).map(([k, v]) => [k, expandVars(v, values, refused)]));

/** Every value of `spec` that `${VAR}` may be written in. */
function valuesOf(spec: McpServerSpec): string[] {
  switch (spec.kind) {
    case "stdio":
      return [spec.command, ...spec.args, ...Object.values(spec.env), ...(spec.cwd === null ? [] : [spec.cwd])];
    case "http":
      return [
        spec.url,
        ...Object.values(spec.headers),
        ...[spec.oauth?.client_id, spec.oauth?.client_secret].filter((v) => v !== undefined),
      ];
  }
}

/**
 * The variables `spec` may not read: none for setup's (the user wrote them); for a project's
 * file's, `denied` (the host's credentials and tool_env_deny's, environment.ts `deniedVariables`).
 */
const refusedTo = (spec: McpServerSpec, denied: ReadonlySet<string>): ReadonlySet<string> => (spec.from === "setup" ? NONE : denied);

/** The variables `spec` names but may not read, each once, in the order written (the user is told). */
export function refusedVariables(spec: McpServerSpec, denied: ReadonlySet<string>): string[] {
  const refused = refusedTo(spec, denied);
  const named = valuesOf(spec).flatMap((v) => [...v.matchAll(VARIABLE)].map((m) => m[1]!));
  return [...new Set(named.filter((name) => refused.has(name)))];
}

/**
 * How to start `spec` now; `root`: the project folder (a relative cwd is taken from there);
 * `values`: the environment `${VAR}` reads; `denied`: what a project's file may not read of it.
 */
export function launchOf(spec: McpServerSpec, root: string, values: Values, denied: ReadonlySet<string>): McpLaunch {
  const refused = refusedTo(spec, denied);
  const expand = (value: string) => expandVars(value, values, refused);
  switch (spec.kind) {
    case "stdio":
      return {
        kind: "stdio",
        command: expand(spec.command),
        args: spec.args.map(expand),
        env: expandAll(spec.env, values, refused),
        cwd: spec.cwd === null ? root : resolve(root, expand(spec.cwd)),
      };
    case "http":
      return {
        kind: "http",
        url: new URL(expand(spec.url)),
        headers: expandAll(spec.headers, values, refused),
        sse: spec.sse,
        oauth: oauthOf(spec.oauth ?? {}, expand),
      };
  }
}

/** A server's `oauth` option, resolved: an unset or empty value is none. */
const oauthOf = (o: OAuthSpec, expand: (value: string) => string): OAuthOptions => ({
  clientId: o.client_id === undefined ? null : expand(o.client_id) || null,
  clientSecret: o.client_secret === undefined ? null : expand(o.client_secret) || null,
  scope: o.scope || null,
  callbackPort: o.callback_port ?? null,
  clientMetadataUrl: o.client_metadata_url ?? null,
});

/** How `:Tine mcp` and `:checkhealth tine` name where a server is, as written (no value resolved). */
export function describeSpec(spec: McpServerSpec): string {
  return spec.kind === "stdio" ? [spec.command, ...spec.args].join(" ") : spec.url;
}
