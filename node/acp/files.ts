/**
 * The file reads and writes tine serves an agent (`fs/read_text_file`, `fs/write_text_file`),
 * through the thread's Environment, so a worktree fork's agent works in its worktree and the
 * sandbox's confinement applies. Only paths inside the thread's folder are served: a request for
 * one outside is refused with a message the agent passes on (there is no approval for it yet).
 */
import type { Environment } from "../tools/environment.ts";

/** What the connection asks of a session's files; failures are thrown as messages for the agent. */
export type AcpFiles = {
  /** The text of `path`, from 1-based `line` (null: the start), at most `limit` lines (null: all). */
  readTextFile(path: string, line: number | null, limit: number | null): Promise<string>;
  writeTextFile(path: string, content: string): Promise<void>;
};

/** The most bytes one read serves. */
export const ACP_READ_MAX_BYTES = 4 * 1024 * 1024;

const TOOL = "the agent's fs/read_text_file";

export function environmentFiles(env: Environment, maxBytes = ACP_READ_MAX_BYTES): AcpFiles {
  const inside = (path: string, verb: string) => {
    if (!path.startsWith("/")) throw new Error(`tine refuses to ${verb} "${path}": ACP paths must be absolute`);
    if (!env.contains(path)) throw new Error(`tine refuses to ${verb} ${path}: it is outside the thread's folder (${env.root})`);
  };
  return {
    async readTextFile(path, line, limit) {
      inside(path, "read");
      const text = (await env.readFile(path, { bytes: maxBytes, tool: TOOL })).toString("utf8");
      if (line === null && limit === null) return text;
      const lines = text.split("\n");
      const from = Math.max(0, (line ?? 1) - 1);
      return lines.slice(from, limit === null ? undefined : from + Math.max(0, limit)).join("\n");
    },
    async writeTextFile(path, content) {
      inside(path, "write");
      const refusal = env.writeRefusal(path);
      if (refusal) throw new Error(refusal);
      const bytes = Buffer.from(content, "utf8");
      try {
        await env.writeFile(path, bytes, "create");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        await env.writeFile(path, bytes, "replace");
      }
    },
  };
}
