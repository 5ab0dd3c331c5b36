/**
 * Where Claude Code keeps a project's sessions: `<config dir>/projects/<encoded real path of the
 * working directory>/<session id>.jsonl`, the config dir being $CLAUDE_CONFIG_DIR or ~/.claude.
 */
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { isUuid } from "../util/uuid.ts";

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env["CLAUDE_CONFIG_DIR"] || join(env["HOME"] || homedir(), ".claude");
}

/** Java's String.hashCode, which the CLI uses to shorten long folder names. */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = ((h << 5) - h + s.charCodeAt(i)) | 0;
  return h;
}

/** The folder name Claude Code gives a working directory. */
export function encodeProject(cwd: string): string {
  let real = cwd;
  try {
    real = realpathSync(cwd);
  } catch {
    // A folder that is gone keeps its name as given.
  }
  const dir = real.replace(/[^a-zA-Z0-9]/g, "-");
  return dir.length > 200 ? `${dir.slice(0, 200)}-${Math.abs(javaHash(real)).toString(36)}` : dir;
}

export function projectSessionsDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), "projects", encodeProject(cwd));
}

export type SessionFile = { readonly id: string; readonly path: string; readonly modified: number; readonly size: number };

/** This project's sessions, newest first. */
export function listSessions(cwd: string, env: NodeJS.ProcessEnv = process.env): SessionFile[] {
  const dir = projectSessionsDir(cwd, env);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl") && isUuid(f.slice(0, -6)))
    .flatMap((f) => {
      const path = join(dir, f);
      const info = statSync(path);
      return info.isFile() ? [{ id: f.slice(0, -6), path, modified: info.mtimeMs, size: info.size }] : [];
    })
    .sort((a, b) => b.modified - a.modified);
}

/** A session's file, by id (searched in every project, as `--resume` does) or by path. */
export function findSession(idOrPath: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (idOrPath.includes("/")) return existsSync(idOrPath) ? idOrPath : null;
  const root = join(configDir(env), "projects");
  if (!existsSync(root)) return null;
  for (const project of readdirSync(root)) {
    const path = join(root, project, `${idOrPath}.jsonl`);
    if (existsSync(path)) return path;
  }
  return null;
}
