/**
 * The MCP servers of this Neovim: one per configured name, shared by every thread and fork. The
 * list is read when first needed (setup's, then the project's files), and each server starts on
 * first use (mcp/server.ts). What the user should hear of them (a failed start, a restart, a
 * changed tool list, a project file that cannot be used) goes out through `notify`; `:Tine mcp`
 * and `:checkhealth tine` read `report`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ThreadId } from "../core/ids.ts";
import type { SignInState } from "./auth/sign-in.ts";
import { MCP_FILES, type McpOrigin, type McpServerSpec, mergeServers, readProjectFile, refusedVariables } from "./config.ts";
import { Elicitations } from "./elicitations.ts";
import { McpServer, type ServerEvent, type ServerState } from "./server.ts";

export type McpNotice = { readonly level: "info" | "error"; readonly text: string };

export type RegistryDeps = {
  readonly root: string;
  readonly vars: Readonly<Record<string, string | undefined>>;
  /** What a project's file may not read of `vars` (environment.ts `deniedVariables`). */
  readonly denied: ReadonlySet<string>;
  readonly timeoutMs: number;
  readonly notify: (notice: McpNotice) => void;
  /** Whether the project's files are read (`mcp_project_files`): they name programs to start. */
  readonly projectFiles: boolean;
  /** A server's question waits for this thread's user (elicitations.ts). */
  readonly elicitationWaiting: (thread: ThreadId) => void;
  /** tine's data folder: remote servers' sign-ins are kept under it (auth/token-store.ts). */
  readonly dataDir: string;
  /** Shows the user a server's sign-in page (`mcp_open_url`, lua/tine/mcp.lua). */
  readonly openUrl: (server: string, url: string) => void;
  /** A server's sign-in began or ended (what waits for it says so). */
  readonly signInChanged?: () => void;
};

/** How long a sign-in's callback is waited for, once its page is opened. */
export const SIGN_IN_WAIT_MS = 5 * 60 * 1000;

/** One server as `:Tine mcp` and `:checkhealth tine` show it. */
export type McpServerReport = {
  name: string;
  from: McpOrigin;
  /** Its command line or URL, as configured (variables unresolved). */
  where: string;
  state: ServerState["type"];
  /** Its state in words: `ready with 3 tools`, `failed: …`. */
  detail: string;
  /** Its last lines of stderr. */
  stderr: string[];
  /** A remote server's sign-in (auth/sign-in.ts), in words; "" when it never asked for one. */
  signin: string;
  /** Which sign-in state that is (`:Tine mcp` offers to sign in or out by it). */
  signin_state: SignInState["type"];
};

/** One of a server's tools as `:Tine mcp` lists it: its name as the server gives it (as `mcp_auto_approve` takes it), its description. */
export type McpToolReport = { name: string; description: string };

export class McpServers {
  private servers: Map<string, McpServer> | null = null;
  /** What the servers ask the users of the threads calling them, waiting for their answers. */
  readonly elicitations: Elicitations;

  constructor(
    /** Setup's `mcp_servers`. */
    private readonly setup: readonly McpServerSpec[],
    private readonly deps: RegistryDeps,
  ) {
    this.elicitations = new Elicitations({
      waiting: deps.elicitationWaiting,
      tell: (text) => deps.notify({ level: "error", text }),
    });
  }

  /** Every server, by name; the project's files are read the first time. */
  all(): McpServer[] {
    this.servers ??= this.load();
    return [...this.servers.values()];
  }

  /** The servers whose start waits for the user to sign in (their page was opened). */
  waitingForSignIn(): string[] {
    return (this.servers ? [...this.servers.values()] : []).filter((s) => s.signIn?.state.type === "signing-in").map((s) => s.name);
  }

  get(name: string): McpServer | undefined {
    return this.all().find((s) => s.name === name);
  }

  private load(): Map<string, McpServer> {
    // Never run what a cloned project names without the user's word: said once, when it is there.
    for (const text of this.unread()) this.deps.notify({ level: "info", text: `tine: ${text}` });
    const files = (this.deps.projectFiles ? MCP_FILES : []).map((file) => {
      const read = readProjectFile(this.deps.root, file);
      if ("problem" in read) {
        this.deps.notify({ level: "error", text: `tine: ${read.problem} (its MCP servers are not used)` });
        return [];
      }
      return read.servers;
    });
    // By name: setup's table comes from Lua, whose tables have no order.
    const specs = mergeServers(this.setup, ...files).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.tellRefused(specs);
    return new Map(
      specs.map((spec) => [
        spec.name,
        new McpServer(spec, {
          ...this.deps,
          event: (e) => this.heard(spec.name, e),
          elicit: (params, signal) => this.elicitations.ask(spec.name, params, signal),
          signIn: this.signInDeps,
        }),
      ]),
    );
  }

  /**
   * The project's MCP files that are there but not read (mcp_project_files is off), each as the
   * user is told of it: when the servers are first listed, and by `:Tine mcp` and `:checkhealth tine`.
   */
  unread(): string[] {
    if (this.deps.projectFiles) return [];
    return MCP_FILES.filter((file) => existsSync(join(this.deps.root, file))).map(
      (file) => `${file} is there but not read: set mcp_project_files = true to use it`,
    );
  }

  private get signInDeps() {
    return { dataDir: this.deps.dataDir, openUrl: this.deps.openUrl, waitMs: SIGN_IN_WAIT_MS };
  }

  /** Said once, when the files are read (not at each start): which variables each file names that its servers do not get. */
  private tellRefused(specs: readonly McpServerSpec[]): void {
    for (const file of MCP_FILES) {
      const refused = [...new Set(specs.filter((s) => s.from === file).flatMap((s) => refusedVariables(s, this.deps.denied)))];
      if (refused.length)
        this.deps.notify({
          level: "error",
          text: `tine: ${file} names ${refused.map((v) => `\${${v}}`).join(", ")}: a project's MCP servers never get the API key or tool_env_deny's variables, so they read as unset`,
        });
    }
  }

  private heard(name: string, event: ServerEvent): void {
    switch (event.type) {
      case "restarting":
        this.deps.notify({ level: "info", text: `tine: MCP server ${name} ${event.after}; starting it again` });
        return;
      case "failed":
        this.deps.notify({ level: "error", text: `tine: MCP server ${name} could not start: ${event.error}` });
        return;
      case "notice":
        this.deps.notify({ level: event.level, text: event.text });
        this.deps.signInChanged?.();
        return;
      case "tools-changed": {
        const what = [
          event.added.length ? `added ${event.added.join(", ")}` : "",
          event.removed.length ? `removed ${event.removed.join(", ")}` : "",
        ]
          .filter(Boolean)
          .join("; ");
        this.deps.notify({
          level: "info",
          text: `tine: MCP server ${name} changed its tools (${what || "their descriptions"}): new threads get them; threads already started keep theirs`,
        });
        return;
      }
    }
  }

  report(): McpServerReport[] {
    return this.all().map((s) => ({
      name: s.name,
      from: s.spec.from,
      where: s.where,
      state: s.state.type,
      detail: s.describe(),
      stderr: [...s.stderr],
      signin: s.signIn?.describe() ?? "",
      signin_state: s.signIn?.state.type ?? "not-asked",
    }));
  }

  /**
   * `:Tine mcp`: done in the background (a start may take up to mcp_timeout, and Neovim must not
   * wait for it); how a restart went is told when it is known. Returns the server as it is now.
   */
  act(name: string, action: "restart" | "stop" | "sign-in" | "sign-out"): McpServerReport {
    const server = this.named(name);
    if (action === "stop") void server.stop();
    else if (action === "sign-out") {
      server.signIn?.signOut();
      void server.restart();
    } else {
      if (action === "sign-in") server.signIn?.allowOpening();
      void server.restart().then(() => {
        if (server.state.type === "ready") this.deps.notify({ level: "info", text: `tine: MCP server ${name}: ${server.describe()}` });
      });
    }
    return this.report().find((s) => s.name === name)!;
  }

  /**
   * `:Tine mcp`'s tools of a server, by name: started first when it is not running (the user asked
   * for them), so this may take up to mcp_timeout. A server that cannot start, or that the user
   * stopped, is an error saying so.
   */
  async tools(name: string): Promise<McpToolReport[]> {
    const server = this.named(name);
    await server.ready();
    const state = server.state;
    if (state.type !== "ready") throw new Error(`tine: the tools of MCP server ${name} are not known: ${server.describe()}`);
    return state.tools
      .filter((t) => t.name !== "")
      .map((t) => ({ name: t.name, description: t.description ?? "" }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private named(name: string): McpServer {
    const server = this.get(name);
    if (!server) throw new Error(`tine: no MCP server ${name}`);
    return server;
  }

  /** The host exits: every stdio server's process is ended. */
  killAll(): void {
    for (const s of this.servers?.values() ?? []) s.killNow();
  }
}
