/**
 * A remote MCP server's sign-in, kept between sessions: the client tine registered as (or was
 * given) and the tokens, in one file per server URL under tine's data folder, readable only by the
 * user (0600, in a 0700 folder). A file that is not tine's shape, or that others may read, is not
 * used (the user is told once, by `problem`), and the next sign-in writes a fresh one over it.
 * Nothing here is ever logged: a problem names the file, never what is in it.
 */
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { isObject } from "../../core/shapes.ts";
import { replaceFile } from "../../util/atomic-write.ts";

/** What the file holds. `port`: the callback's port the client was registered with (tried first next time). */
export type StoredSignIn = {
  readonly url: string;
  readonly client?: OAuthClientInformationMixed;
  readonly tokens?: OAuthTokens;
  readonly port?: number;
};

export type ReadSignIn = { readonly stored: StoredSignIn } | { readonly problem: string };

/** The folder under tine's data folder (`data_dir`) the sign-ins are kept in. */
export const signInDir = (dataDir: string) => join(dataDir, "mcp-auth");

/** The file of server `url`: named by a hash of it, so a URL's characters never make a path. */
export function signInFile(dataDir: string, url: string): string {
  return join(signInDir(dataDir), `${createHash("sha256").update(url).digest("hex").slice(0, 32)}.json`);
}

/** Whether `v` has the fields the SDK reads of it, each of its type (the rest it checks when it uses them). */
function wellFormed(v: unknown, url: string): v is StoredSignIn {
  if (!isObject(v) || v["url"] !== url) return false;
  const { client, tokens, port } = v;
  if (client !== undefined && !(isObject(client) && typeof client["client_id"] === "string")) return false;
  if (tokens !== undefined && !(isObject(tokens) && typeof tokens["access_token"] === "string" && typeof tokens["token_type"] === "string"))
    return false;
  return port === undefined || (Number.isInteger(port) && (port as number) > 0 && (port as number) < 65536);
}

export class SignInFile {
  constructor(
    readonly path: string,
    private readonly url: string,
  ) {}

  /** What the file holds: nothing when it is not there; a problem (never its content) when it cannot be used. */
  read(): ReadSignIn {
    let text: string;
    try {
      const stat = statSync(this.path);
      if ((stat.mode & 0o077) !== 0)
        return { problem: `${this.path} may be read by others (mode ${(stat.mode & 0o777).toString(8)}), so it is not used` };
      if (process.getuid && stat.uid !== process.getuid()) return { problem: `${this.path} is not yours, so it is not used` };
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { stored: { url: this.url } };
      return { problem: `${this.path} could not be read (${(error as NodeJS.ErrnoException).code ?? "error"}), so it is not used` };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { problem: `${this.path} is not JSON, so it is not used` };
    }
    return wellFormed(json, this.url) ? { stored: json } : { problem: `${this.path} is not a sign-in tine wrote, so it is not used` };
  }

  /** Written whole, readable only by the user, through a file beside it (a crash leaves the old one or the new one). */
  write(stored: StoredSignIn): void {
    const dir = join(this.path, "..");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    replaceFile(this.path, Buffer.from(JSON.stringify(stored)), 0o600);
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }
}
