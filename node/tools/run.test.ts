/** Tool calls as the model makes them, in a local environment rooted in a temporary directory each: what each call returns and leaves behind. */
import { execFileSync } from "node:child_process";
import { existsSync, fstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from "./environment.ts";
import { localEnvironment } from "./local-environment.ts";
import { GET_FILE_MAX_BYTES, killAllToolProcesses, runTool } from "./run.ts";

let dir: string;
let outside: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tine-run-"));
  outside = mkdtempSync(join(tmpdir(), "tine-run-outside-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

type CallOptions = { readonly signal?: AbortSignal; readonly limits?: Partial<ToolLimits> };
const run = (name: string, input: unknown, { signal = new AbortController().signal, limits }: CallOptions = {}) =>
  runTool(name, input, localEnvironment(dir, { ...DEFAULT_TOOL_LIMITS, ...limits }), signal);

/** Polls a condition (a file the command writes, a process gone) with a deadline. */
async function until(pred: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Alive: it exists and is not a zombie (an orphan that exited, which a container's init may never reap). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return true;
  }
}

/** Starts a command that puts a `sleep` in the background and waits; resolves the sleep's pid once written. */
async function startWithBackgroundChild(more: CallOptions = {}) {
  const pidFile = join(dir, "child.pid");
  const outcome = run("bash_command", { command: `sleep 300 & echo $! > ${pidFile}; wait` }, more);
  await until(() => existsSync(pidFile) && /^\d+\n$/.test(readFileSync(pidFile, "utf8")), "the child's pid");
  return { outcome, pid: Number(readFileSync(pidFile, "utf8")) };
}

describe("bash_command", () => {
  it("runs without ANTHROPIC_API_KEY and without the variables denied", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { ANTHROPIC_API_KEY: "sk-secret-key", TINE_TEST_DENIED: "denied-value", TINE_TEST_KEPT: "kept-value" });
    try {
      const out = await run("bash_command", { command: "env" }, { limits: { envDeny: ["TINE_TEST_DENIED"] } });
      expect(out.isError).toBe(false);
      expect(out.text).toContain("TINE_TEST_KEPT=kept-value");
      expect(out.text).not.toContain("sk-secret-key");
      expect(out.text).not.toContain("denied-value");
    } finally {
      for (const key of ["ANTHROPIC_API_KEY", "TINE_TEST_DENIED", "TINE_TEST_KEPT"]) if (saved[key] === undefined) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it("keeps the head and the tail of a huge output, and says how much of the middle it dropped", async () => {
    let total = 0;
    for (let i = 1; i <= 400_000; i++) total += `${i}\n`.length;
    const out = await run("bash_command", { command: "seq 1 400000" });
    expect(out.isError).toBe(false);
    expect(out.text.startsWith("1\n2\n3\n")).toBe(true);
    expect(out.text.endsWith("399999\n400000\n")).toBe(true);
    const dropped = Number(/\[… (\d+) bytes of output dropped here …\]/.exec(out.text)?.[1]);
    expect(dropped).toBe(total - 24_000);
    expect(out.text.length).toBeLessThan(30_000);
  });

  it("is stopped at its time limit with what it started, and the model is told after how long", async () => {
    const out = await run("bash_command", { command: "sleep 300 & echo child $!; wait" }, { limits: { bashTimeoutSec: 0.5 } });
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/\[stopped after 0\.5 s: the command ran longer than the time limit/);
    const pid = Number(/child (\d+)/.exec(out.text)?.[1]);
    await until(() => !alive(pid), `pid ${pid} to be gone`);
  });

  it("a time limit longer than a timer holds (about 24.8 days) does not stop the command at once", async () => {
    expect(await run("bash_command", { command: "sleep 0.2; echo done" }, { limits: { bashTimeoutSec: 1e9 } })).toEqual({
      text: "done\n",
      isError: false,
    });
  });

  it("abort kills the whole process group: a background child does not outlive it", async () => {
    const controller = new AbortController();
    const { outcome, pid } = await startWithBackgroundChild({ signal: controller.signal });
    expect(alive(pid)).toBe(true);
    controller.abort();
    const out = await outcome;
    expect(out.isError).toBe(true);
    expect(out.text).toContain("[aborted");
    await until(() => !alive(pid), `pid ${pid} to be gone`);
  });

  it("killAllToolProcesses stops every running command with its children", async () => {
    const { outcome, pid } = await startWithBackgroundChild();
    killAllToolProcesses();
    const out = await outcome;
    expect(out.isError).toBe(true);
    await until(() => !alive(pid), `pid ${pid} to be gone`);
  });

  it("returns when the command exits, stopping what it left in the background", async () => {
    const out = await run("bash_command", { command: "sleep 300 & echo child $!" });
    expect(out.isError).toBe(false);
    expect(out.text).toContain("[processes the command left running in the background were stopped]");
    const pid = Number(/child (\d+)/.exec(out.text)?.[1]);
    await until(() => !alive(pid), `pid ${pid} to be gone`);
  });

  it("reports a failing command's output and exit code", async () => {
    const out = await run("bash_command", { command: "echo oops >&2; exit 3" });
    expect(out).toEqual({ text: "oops\n\n[exit code 3]", isError: true });
  });
});

describe("get_file", () => {
  it("reads a regular text file as it is", async () => {
    writeFileSync(join(dir, "a.txt"), "héllo ✓\r\nline 2\n");
    expect(await run("get_file", { path: "a.txt" })).toEqual({ text: "héllo ✓\r\nline 2\n", isError: false });
  });

  it("reads a file whose stat gives no size (/proc) to its end", async () => {
    const out = await run("get_file", { path: "/proc/self/status" });
    expect(out.isError).toBe(false);
    expect(out.text).toMatch(/^Name:.*\n[\s\S]*\nPid:\t\d+\n/);
  });

  it("refuses a FIFO (without blocking), a socket, a device and a directory", async () => {
    execFileSync("mkfifo", [join(dir, "fifo")]);
    const server = createServer();
    await new Promise<void>((r) => server.listen(join(dir, "sock"), r));
    try {
      const paths: [string, RegExp][] = [
        ["fifo", /is a FIFO \(pipe\): get_file only reads regular files/],
        ["sock", /is a socket: get_file only reads regular files/],
        ["/dev/null", /is a device: get_file only reads regular files/],
        [".", /is a directory: get_file only reads regular files/],
      ];
      // The host's stdin is its RPC channel: never read, whatever it is (a pipe, a terminal, /dev/null).
      if (!fstatSync(0).isFile()) paths.push(["/dev/stdin", /only reads regular files/]);
      for (const [path, why] of paths) {
        const out = await run("get_file", { path });
        expect(out.isError, path).toBe(true);
        expect(out.text, path).toMatch(why);
      }
    } finally {
      server.close();
    }
  });

  it("refuses a file above the size cap and gives its size", async () => {
    writeFileSync(join(dir, "big.txt"), "x".repeat(GET_FILE_MAX_BYTES + 1));
    const out = await run("get_file", { path: "big.txt" });
    expect(out.isError).toBe(true);
    expect(out.text).toContain(`(${GET_FILE_MAX_BYTES + 1} bytes), more than get_file reads (256.0 KiB)`);
  });

  it("says a binary file is binary instead of returning garbled text", async () => {
    writeFileSync(join(dir, "nul.bin"), Buffer.from([0x41, 0x00, 0x42]));
    writeFileSync(join(dir, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1
    for (const path of ["nul.bin", "latin1.txt"]) {
      const out = await run("get_file", { path });
      expect(out.isError, path).toBe(true);
      expect(out.text, path).toMatch(/is a binary file \(.*not UTF-8 text\)/);
    }
  });
});

describe("paths in results", () => {
  it("name a file in the folder relative to it, however the model spelled it, and one outside absolutely", async () => {
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "conf.txt"), "a = 1\n");
    writeFileSync(join(outside, "other.txt"), "b = 2\n");
    expect(await run("edit_file", { path: join(dir, "src", "conf.txt"), find: "1", replace: "2" })).toEqual({
      text: "Edited src/conf.txt",
      isError: false,
    });
    expect((await run("edit_file", { path: "src/../src/new.txt", find: "", replace: "x" })).text).toBe("Created src/new.txt");
    expect((await run("edit_file", { path: join(outside, "other.txt"), find: "2", replace: "3" })).text).toBe(
      `Edited ${join(outside, "other.txt")}`,
    );
  });

  it("name a missing or refused file relative to the folder too", async () => {
    mkdirSync(join(dir, "src"));
    const missing = await run("get_file", { path: join(dir, "src", "gone.txt") });
    expect(missing.text).toBe("ENOENT: no such file or directory, stat 'src/gone.txt'");
    expect((await run("get_file", { path: "src" })).text).toBe("src is a directory: get_file only reads regular files");
    expect((await run("edit_file", { path: "src/gone.txt", find: "a", replace: "b" })).text).not.toContain(dir);
  });
});

describe("edit_file", () => {
  it("keeps a CRLF file CRLF: a find written with \\n matches, the replacement gets \\r\\n", async () => {
    const path = join(dir, "dos.txt");
    writeFileSync(path, "\uFEFFone\r\ntwo\r\nthree\r\n");
    expect(await run("edit_file", { path: "dos.txt", find: "one\ntwo", replace: "uno\ndos\nmás" })).toEqual({
      text: "Edited dos.txt",
      isError: false,
    });
    expect(readFileSync(path, "utf8")).toBe("\uFEFFuno\r\ndos\r\nmás\r\nthree\r\n");
    expect((await run("edit_file", { path: "dos.txt", find: "three\r\n", replace: "tres\r\n" })).isError).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("\uFEFFuno\r\ndos\r\nmás\r\ntres\r\n");
  });

  it("leaves an LF file's line endings as they are", async () => {
    const path = join(dir, "unix.txt");
    writeFileSync(path, "a\nb\n");
    await run("edit_file", { path: "unix.txt", find: "a\nb", replace: "c\nd" });
    expect(readFileSync(path, "utf8")).toBe("c\nd\n");
  });

  it("refuses a binary file and leaves it untouched", async () => {
    const path = join(dir, "image.bin");
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x41, 0x42]);
    writeFileSync(path, bytes);
    const out = await run("edit_file", { path: "image.bin", find: "AB", replace: "CD" });
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/is a binary file/);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it("refuses a FIFO without blocking", async () => {
    execFileSync("mkfifo", [join(dir, "fifo")]);
    const out = await run("edit_file", { path: "fifo", find: "a", replace: "b" });
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/is a FIFO/);
  });

  it("does not write through a symbolic link that leads out of the working directory", async () => {
    const secret = join(outside, "secret.txt");
    writeFileSync(secret, "keep me\n");
    symlinkSync(secret, join(dir, "link-out"));
    symlinkSync(outside, join(dir, "dir-out"));
    symlinkSync(join(outside, "missing.txt"), join(dir, "dangling-out"));
    for (const [path, find] of [
      ["link-out", "keep"],
      ["dir-out/secret.txt", "keep"],
      ["dir-out/new.txt", ""],
      ["dangling-out", ""],
    ] as const) {
      const out = await run("edit_file", { path, find, replace: "changed" });
      expect(out.isError, path).toBe(true);
    }
    expect(readFileSync(secret, "utf8")).toBe("keep me\n");
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
    expect(existsSync(join(outside, "missing.txt"))).toBe(false);
  });

  it("still writes through a link that stays inside, and creates new files", async () => {
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "a.txt"), "old\n");
    symlinkSync(join(dir, "src"), join(dir, "link-in"));
    expect((await run("edit_file", { path: "link-in/a.txt", find: "old", replace: "new" })).isError).toBe(false);
    expect(readFileSync(join(dir, "src", "a.txt"), "utf8")).toBe("new\n");
    expect((await run("edit_file", { path: "created.txt", find: "", replace: "hi\n" })).isError).toBe(false);
    expect(readFileSync(join(dir, "created.txt"), "utf8")).toBe("hi\n");
  });
});
