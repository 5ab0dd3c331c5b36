/**
 * A test's hold on a promote's merge (fork-code.ts), so a test can stop it at a known point.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

/** Told how many files a merge has written, after each: a test's hold on it (`testHold`), or nothing. */
export type MergeProgress = (written: number) => Promise<void>;

/**
 * A test's hold on a merge (with TINE_TEST_HOOKS=1, TINE_TEST_MERGE_HOLD=<n>:<file>): once n files
 * are done, `file` is made and the merge waits until the test writes "go" into it (or for ever),
 * so a test can kill the host (a real kill -9), or change files, at a known point of it. Once:
 * while `file` exists, merges go on. Undefined otherwise.
 */
export function testHold(env: NodeJS.ProcessEnv): MergeProgress | undefined {
  const hold = env["TINE_TEST_HOOKS"] === "1" ? /^(\d+):(.+)$/.exec(env["TINE_TEST_MERGE_HOLD"] ?? "") : null;
  if (!hold) return undefined;
  const [at, file] = [Number(hold[1]), hold[2]!];
  return (written) => {
    if (written !== at || existsSync(file)) return Promise.resolve();
    // Made whole under another name, then renamed: a test that sees the file and writes "go" at
    // once must not have its "go" overwritten by this write landing after it (a hang under load).
    writeFileSync(`${file}.made`, String(written));
    renameSync(`${file}.made`, file);
    return new Promise<void>((go) => {
      const poll = setInterval(() => {
        if (!existsSync(file) || readFileSync(file, "utf8") !== "go") return;
        clearInterval(poll);
        go();
      }, 20);
    });
  };
}
