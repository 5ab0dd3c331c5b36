/**
 * The names the model calls MCP tools by: `mcp__<server>__<tool>` in the characters the Messages
 * API takes, cut to its length. Servers name tools freely (`a.b` and `a_b`, two long names alike
 * up to the cut, an empty name), and the API refuses a request whose tool names repeat, so each
 * name is given to one tool only: a tool whose name needs no change gets it first, another that
 * would take a name already given gets a suffix (`_2`, `_3`…), and an empty name gets none. A
 * name once given keeps its tool for the host's life: a thread keeps the list it started with,
 * and a call of a name in it must run the tool it was offered as, whatever the server lists later.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

const PREFIX = "mcp__";
/** Characters the API refuses in a custom tool's name (its pattern: ^[a-zA-Z0-9_-]{1,128}$). */
const NOT_IN_NAME = /[^A-Za-z0-9_-]/g;
const MAX_NAME = 128;

/** The server and the tool (as the server names it) that an offered name calls. */
export type McpToolRef = { readonly server: string; readonly tool: string };

/** `name` as it starts, before any suffix: the API's characters only, cut to its length. */
const baseName = (server: string, tool: string) => `${PREFIX}${server}__${tool.replace(NOT_IN_NAME, "_")}`.slice(0, MAX_NAME);

/** Whether a call of `name` is for an MCP tool at all. */
export const isMcpName = (name: string) => name.startsWith(PREFIX);

/**
 * How the display names a call: `server › tool` for an offered name, null for a name no MCP
 * tool's. Read from the name alone (the display has no registry): it splits at the first `__`
 * after the prefix, so a server named with `__` in it reads as a shorter name, and the tool is
 * named as offered (`a.b` as `a_b`); the call itself goes by the whole name.
 */
export function callTitle(name: string): string | null {
  if (!isMcpName(name)) return null;
  const rest = name.slice(PREFIX.length);
  const cut = rest.indexOf("__");
  return cut > 0 && cut + 2 < rest.length ? `${rest.slice(0, cut)} › ${rest.slice(cut + 2)}` : null;
}

/** The server a name is spelled for (the longest configured name that fits), and what follows it. */
export function spelledFor(name: string, servers: readonly string[]): { server: string; rest: string } | null {
  const server = servers.filter((s) => name.startsWith(`${PREFIX}${s}__`)).sort((a, b) => b.length - a.length)[0];
  return server === undefined ? null : { server, rest: name.slice(`${PREFIX}${server}__`.length) };
}

const key = (server: string, tool: string) => `${server}\u0000${tool}`;

export class McpToolNames {
  private readonly byName = new Map<string, McpToolRef>();
  private readonly byTool = new Map<string, string>();

  /**
   * The name of each of `server`'s tools, in the order given, without the tools that get none (an
   * empty name; a name the server lists twice, after its first). Names not given yet are given now.
   */
  name(server: string, tools: readonly Tool[]): { readonly name: string; readonly tool: Tool }[] {
    const unique: Tool[] = [];
    const seen = new Set<string>();
    for (const t of tools) {
      if (t.name === "" || seen.has(t.name)) continue;
      seen.add(t.name);
      unique.push(t);
    }
    // Those that need no change first, so a tool named `a_b` is called `a_b` whatever else is named so; by name within each.
    const unchanged = (t: Tool) => baseName(server, t.name) === `${PREFIX}${server}__${t.name}`;
    const byName = (a: Tool, b: Tool) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    for (const t of [...unique.filter(unchanged).sort(byName), ...unique.filter((t) => !unchanged(t)).sort(byName)])
      this.give(server, t.name);
    return unique.map((tool) => ({ name: this.byTool.get(key(server, tool.name))!, tool }));
  }

  /** The tool a name was given to, if it was. */
  target(name: string): McpToolRef | undefined {
    return this.byName.get(name);
  }

  private give(server: string, tool: string): void {
    if (this.byTool.has(key(server, tool))) return;
    const base = baseName(server, tool);
    let name = base;
    for (let n = 2; this.byName.has(name); n++) name = `${base.slice(0, MAX_NAME - `_${n}`.length)}_${n}`;
    this.byName.set(name, { server, tool });
    this.byTool.set(key(server, tool), name);
  }
}
