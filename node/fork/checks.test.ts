/**
 * Fan-out forks' checks with a real shell in a real folder (localEnvironment): run when a fork
 * comes to rest after a turn, kept with the fork, aborted by a new turn or its end, bounded by
 * bash_timeout; the fork is not done while its check runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localEnvironment } from "../tools/local-environment.ts";
import { CHECK_OUTPUT_TAIL, type CheckedThread, type CheckResult, checkResult, ForkChecks, outputTail } from "./checks.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setUp(command: string | null, bashTimeoutSec = 30, filesThere: Promise<void> = Promise.resolve()) {
  const dir = mkdtempSync(join(tmpdir(), "tine-checks-"));
  dirs.push(dir);
  const threads = new Map<string, CheckedThread>([["f1", { atRest: true, status: "idle", interrupted: false }]]);
  const changes: string[] = [];
  /** What the checks gave the fork's transcript to keep. */
  const kept: (CheckResult | null)[] = [];
  /** The commands the checks started. */
  const started: string[] = [];
  let ended: () => void = () => {};
  const checks = new ForkChecks({
    thread: (id) => threads.get(id),
    checkOf: (id) => (id === "f1" ? command : undefined),
    environmentOf: async () => {
      await filesThere;
      const local = localEnvironment(dir, { bashTimeoutSec, envDeny: [] });
      return {
        ...local,
        runCommand: (command: string, signal: AbortSignal) => {
          started.push(command);
          return local.runCommand(command, signal);
        },
      };
    },
    changed: (id) => {
      changes.push(id);
      if (!checks.running(id)) ended();
    },
    kept: (_id, result) => kept.push(result),
  });
  const set = (status: string, interrupted = false) =>
    threads.set("f1", { atRest: status !== "streaming" && status !== "waiting", status, interrupted });
  /** Resolves once a check of f1 ends (or is aborted). */
  const checkEnds = () => new Promise<void>((resolve) => (ended = resolve));
  return { dir, checks, set, checkEnds, changes, started, kept };
}

describe("a fan-out fork's check", () => {
  it("runs when the fork comes to rest after a turn, not before; the fork is done once it ended", async () => {
    const { checks, set, checkEnds } = setUp("echo checking; pwd; exit 3");
    checks.batched(["f1", "other"]);
    expect(checks.running("f1")).toBe(false);
    expect(checks.state("f1")).toBe("running");
    set("streaming");
    checks.batched(["f1"]);
    expect(checks.state("f1")).toBe("running");
    set("waiting");
    checks.batched(["f1"]);
    expect(checks.state("f1")).toBe("waiting");
    set("idle");
    const ends = checkEnds();
    checks.batched(["f1"]);
    expect(checks.running("f1")).toBe(true);
    expect(checks.state("f1")).toBe("checking");
    await ends;
    const result = checks.result("f1")!;
    expect(result).toMatchObject({ ok: false, code: 3 });
    expect(result.output).toMatch(/^checking\n.*tine-checks-/);
    expect(checks.state("f1")).toBe("done");
  });

  it("of a fork whose turn was cut off (an abort, a quit while it worked) ends with it interrupted, not done", async () => {
    const { checks, set, checkEnds } = setUp("true");
    set("streaming");
    checks.batched(["f1"]);
    set("idle", true);
    const ends = checkEnds();
    checks.batched(["f1"]);
    expect(checks.state("f1")).toBe("checking");
    await ends;
    expect(checks.state("f1")).toBe("interrupted");
    // A stored fork found again after a restart that cut it off: interrupted too.
    checks.found("f1", null);
    expect(checks.state("f1")).toBe("interrupted");
  });

  it("of a fork whose worktree is still being written runs once its files are there", async () => {
    let written: () => void = () => {};
    const filesThere = new Promise<void>((resolve) => (written = resolve));
    const { checks, set, checkEnds, dir, started } = setUp("cat file.txt", 30, filesThere);
    set("streaming");
    checks.batched(["f1"]);
    set("idle");
    const ends = checkEnds();
    checks.batched(["f1"]);
    expect(checks.state("f1")).toBe("checking");
    // A turn of the event loop: a check that did not wait would have started its command by now.
    await new Promise((turn) => setImmediate(turn));
    expect(started).toEqual([]);
    writeFileSync(join(dir, "file.txt"), "there\n");
    written();
    await ends;
    expect(checks.result("f1")).toEqual({ ok: true, code: 0, output: "there\n" });
  });

  it("passes with exit 0, and runs again after a later turn; the transcript keeps each end, and the clearing by the later turn", async () => {
    const { checks, set, checkEnds, dir, kept } = setUp("test -f made && echo yes");
    set("streaming");
    checks.batched(["f1"]);
    set("idle");
    let ends = checkEnds();
    checks.batched(["f1"]);
    await ends;
    expect(checks.result("f1")).toMatchObject({ ok: false, code: 1 });
    await localEnvironment(dir, { bashTimeoutSec: 5, envDeny: [] }).runCommand("touch made", new AbortController().signal);
    set("streaming");
    checks.batched(["f1"]);
    set("idle");
    ends = checkEnds();
    checks.batched(["f1"]);
    await ends;
    expect(checks.result("f1")).toEqual({ ok: true, code: 0, output: "yes\n" });
    expect(kept).toEqual([{ ok: false, code: 1, output: "" }, null, { ok: true, code: 0, output: "yes\n" }]);
  });

  it("of a stored fork found again shows its kept end; the fork is done, and nothing runs until a later turn", () => {
    const { checks, started, kept } = setUp("echo again");
    checks.found("f1", { ok: false, code: 2, output: "2 failed\n" });
    checks.batched(["f1"]);
    expect(checks.state("f1")).toBe("done");
    expect(checks.result("f1")).toEqual({ ok: false, code: 2, output: "2 failed\n" });
    expect(started).toEqual([]);
    expect(kept).toEqual([]);
  });

  it("is aborted by a new turn and by the fork's end; none kept", async () => {
    const { checks, set, checkEnds } = setUp("sleep 30");
    set("streaming");
    checks.batched(["f1"]);
    set("idle");
    checks.batched(["f1"]);
    expect(checks.running("f1")).toBe(true);
    let ends = checkEnds();
    set("streaming");
    checks.batched(["f1"]);
    await ends;
    expect(checks.running("f1")).toBe(false);
    expect(checks.result("f1")).toBeUndefined();
    set("idle");
    checks.batched(["f1"]);
    ends = checkEnds();
    checks.forget("f1");
    await ends;
    expect(checks.running("f1")).toBe(false);
    expect(checks.result("f1")).toBeUndefined();
  });

  it("that hangs is stopped at bash_timeout and fails, saying so", async () => {
    const { checks, set, checkEnds } = setUp("echo started; sleep 60", 1);
    set("streaming");
    checks.batched(["f1"]);
    set("idle");
    const ends = checkEnds();
    checks.batched(["f1"]);
    await ends;
    expect(checks.result("f1")).toMatchObject({ ok: false, code: null });
    expect(checks.result("f1")!.output).toBe("started\n(the check ran past bash_timeout: stopped after 1s)");
    expect(checks.state("f1")).toBe("done");
  });

  it("with no check command a fork is done when it comes to rest", () => {
    const { checks, set } = setUp(null);
    set("streaming");
    checks.batched(["f1"]);
    set("idle");
    checks.batched(["f1"]);
    expect(checks.running("f1")).toBe(false);
    expect(checks.result("f1")).toBeUndefined();
    expect(checks.state("f1")).toBe("done");
  });
});

describe("checkResult", () => {
  it("notes how a check was stopped on a line of its own: alone, with no blank line before it, when it printed nothing", () => {
    const timedOut = { type: "timed-out", afterSec: 120 } as const;
    expect(checkResult({ output: "", end: timedOut }).output).toBe("(the check ran past bash_timeout: stopped after 120s)");
    expect(checkResult({ output: "a", end: timedOut }).output).toBe("a\n(the check ran past bash_timeout: stopped after 120s)");
    expect(checkResult({ output: "", end: { type: "aborted" } }).output).toBe("(aborted)");
  });
});

describe("outputTail", () => {
  it("keeps the last bytes, from a line start where it can", () => {
    const long = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n");
    const tail = outputTail(long);
    expect(tail.length).toBeLessThanOrEqual(CHECK_OUTPUT_TAIL + 1);
    expect(tail).toMatch(/^…\nline \d+\n/);
    expect(tail.endsWith("line 1999")).toBe(true);
    expect(outputTail("short")).toBe("short");
  });
});
