/** Temporary folders holding given files, for unit tests: each removed after the test that made it. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { writeFiles } from "./git-project.ts";

/** Registers the clean-up; the function returned makes a folder named `<prefix>…` holding `files`. */
export function tempFolders(prefix: string): (files?: Record<string, string | Buffer>) => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (files = {}) => {
    const root = mkdtempSync(join(tmpdir(), prefix));
    made.push(root);
    writeFiles(root, files);
    return root;
  };
}
