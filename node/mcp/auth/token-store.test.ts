/** The sign-in file: kept readable only by the user, and one that is not tine's, or that others may read, not used. */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SignInFile, signInDir, signInFile } from "./token-store.ts";

const URL_A = "https://mcp.example.com/mcp";
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tine-auth-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tokens = { access_token: "at-1", token_type: "bearer", refresh_token: "rt-1" };

describe("a server's sign-in file", () => {
  it("is one per server URL under the data folder, written 0600 in a 0700 folder, and read back", () => {
    const path = signInFile(dir, URL_A);
    expect(dirname(path)).toBe(signInDir(dir));
    expect(signInFile(dir, "https://other.example.com/mcp")).not.toBe(path);
    const file = new SignInFile(path, URL_A);
    expect(file.read()).toEqual({ stored: { url: URL_A } });
    file.write({ url: URL_A, tokens, client: { client_id: "c1" }, port: 4321 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(signInDir(dir)).mode & 0o777).toBe(0o700);
    expect(file.read()).toEqual({ stored: { url: URL_A, tokens, client: { client_id: "c1" }, port: 4321 } });
    expect(readdirSync(signInDir(dir))).toEqual([path.split("/").at(-1)]);
    file.remove();
    expect(file.read()).toEqual({ stored: { url: URL_A } });
  });

  it("is not used when others may read it, and says so without its content", () => {
    const path = signInFile(dir, URL_A);
    const file = new SignInFile(path, URL_A);
    file.write({ url: URL_A, tokens });
    chmodSync(path, 0o644);
    const read = file.read();
    expect(read).toEqual({ problem: expect.stringContaining("may be read by others (mode 644)") });
    expect(JSON.stringify(read)).not.toContain("at-1");
    // The next write replaces it, readable only by the user again.
    file.write({ url: URL_A });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("is not used when it is not JSON, not tine's shape, or another server's", () => {
    const path = signInFile(dir, URL_A);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const file = new SignInFile(path, URL_A);
    const cases: [string, string][] = [
      ["{not json", "is not JSON"],
      [JSON.stringify({ url: URL_A, tokens: { access_token: 5 } }), "is not a sign-in tine wrote"],
      [JSON.stringify({ url: "https://elsewhere/mcp", tokens }), "is not a sign-in tine wrote"],
      [JSON.stringify([1, 2]), "is not a sign-in tine wrote"],
      [JSON.stringify({ url: URL_A, port: 70000 }), "is not a sign-in tine wrote"],
    ];
    for (const [text, problem] of cases) {
      writeFileSync(path, text, { mode: 0o600 });
      chmodSync(path, 0o600);
      expect(file.read()).toEqual({ problem: expect.stringContaining(problem) });
    }
  });
});
