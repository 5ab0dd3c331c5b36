/** The transcripts a test's Neovim wrote in its data folder (`<cwd>/.data`), read as a user could. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Where a test's Neovim keeps tine's data (`stdpath("data")/tine`). */
export const dataDir = (cwd: string) => join(cwd, ".data", "nvim", "tine");

/** Every transcript file a test's Neovim wrote, of every project. */
export function transcripts(cwd: string): string[] {
  const root = join(dataDir(cwd), "projects");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((p) =>
    readdirSync(join(root, p))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(root, p, f)),
  );
}

/** The transcript of thread `id` as written on disk. */
export function transcript(cwd: string, id: string): string {
  const root = join(dataDir(cwd), "projects");
  for (const p of existsSync(root) ? readdirSync(root) : []) {
    const path = join(root, p, `${id}.jsonl`);
    if (existsSync(path)) return readFileSync(path, "utf8");
  }
  throw new Error(`no transcript of ${id}`);
}
