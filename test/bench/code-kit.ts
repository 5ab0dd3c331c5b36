/**
 * What the code benchmarks (snapshot.bench.ts, worktree.bench.ts) share: a committed repository
 * of FILES small files, and the figures table they print (each with its target and PASS/FAIL).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitProject } from "../helpers/git-project.ts";

export const FILES = 10_000;

/** A git repository of `count` (FILES unless told) small files in 100 folders, committed, in a new folder under `parent`. */
export function bigProject(prefix: string, count = FILES, parent = tmpdir()): string {
  const root = mkdtempSync(join(parent, prefix));
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`d${i % 100}/f${i}.txt`] = `file ${i}\n${"x".repeat(200)}\n`;
  gitProject(root, files);
  return root;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The lines a benchmark prints: figures with a target (`row`) and plain ones (`note`). */
export class Figures {
  readonly rows: string[] = [];
  row(what: string, value: string, pass: boolean, target: string): void {
    this.rows.push(`${pass ? "PASS" : "FAIL"}  ${what}: ${value} (target ${target})`);
  }
  note(text: string): void {
    this.rows.push(`      ${text}`);
  }
}
