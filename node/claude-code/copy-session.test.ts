import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { copySession, renameSession } from "./copy-session.ts";

const OLD = "11111111-1111-4111-8111-111111111111";
const NEW = "22222222-2222-4222-8222-222222222222";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = mkdtempSync(join(tmpdir(), "tine-copy-session-"));
  dirs.push(d);
  return d;
}

describe("a Claude Code session copied as a new one", () => {
  it("every sessionId of the source, at any depth, names the new session; other lines and other fields keep their bytes", () => {
    const lines = [
      `{"type":"queue-operation","sessionId":"${OLD}"}`,
      `{"type":"user","uuid":"u1","message":{"role":"user","content":"mentions ${OLD} in text"},"sessionId":"${OLD}"}`,
      `{"type":"attachment","snapshot":{"sessionId":"${OLD}"},"leafUuid":"${OLD}"}`,
      `{"type":"summary",  "summary":"spaced as written"}`,
      `{"type":"assistant","sessionId":"${OLD}","message":{"content":[{"type":"text","te`,
    ];
    const out = renameSession(`${lines.join("\n")}\n`, OLD, NEW).split("\n");
    expect(JSON.parse(out[0]!).sessionId).toBe(NEW);
    // Only sessionId fields: a prompt that names the id, or another field holding it, are the conversation's.
    expect(JSON.parse(out[1]!)).toMatchObject({ sessionId: NEW, message: { content: `mentions ${OLD} in text` } });
    expect(JSON.parse(out[2]!)).toMatchObject({ snapshot: { sessionId: NEW }, leafUuid: OLD });
    expect(out[3]).toBe(lines[3]);
    // A last line cut mid-write is left as it is (the CLI skips it).
    expect(out[4]).toBe(lines[4]);
    expect(out[5]).toBe("");
  });

  it("the transcript and its side folder go under the new id (0600), the source untouched; an existing file is never overwritten", () => {
    const root = temp();
    const from = join(root, "a", `${OLD}.jsonl`);
    mkdirSync(join(root, "a", OLD, "subagents"), { recursive: true });
    writeFileSync(join(root, "a", OLD, "subagents", "agent-1.jsonl"), "{}\n");
    const source = `{"type":"user","sessionId":"${OLD}"}\n`;
    writeFileSync(from, source);
    const to = join(root, "b", `${NEW}.jsonl`);
    copySession(from, OLD, to, NEW);
    expect(readFileSync(to, "utf8")).toBe(`{"type":"user","sessionId":"${NEW}"}\n`);
    expect(statSync(to).mode & 0o777).toBe(0o600);
    expect(existsSync(join(root, "b", NEW, "subagents", "agent-1.jsonl"))).toBe(true);
    expect(readFileSync(from, "utf8")).toBe(source);
    expect(() => copySession(from, OLD, to, NEW)).toThrow(/EEXIST/);
  });
});
