/** The transcripts a test's Neovim wrote in its data folder (`<cwd>/.data`), read as a user could. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The transcript of thread `id` as written on disk. */
export function transcript(cwd: string, id: string): string {
  const root = join(cwd, ".data", "nvim", "tine", "projects");
  for (const p of existsSync(root) ? readdirSync(root) : []) {
    const path = join(root, p, `${id}.jsonl`);
    if (existsSync(path)) return readFileSync(path, "utf8");
  }
  throw new Error(`no transcript of ${id}`);
}
