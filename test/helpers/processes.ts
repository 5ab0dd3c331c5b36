/**
 * What a test session leaves running, ended or waited for before its folder goes: the programs in
 * its Neovim's terminals (the Claude Code CLI outlives Neovim and goes on writing in the project),
 * and every host its Neovim started (a host writes what a quit cut as it exits, after Neovim, and
 * stops its gits first).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";

/** The process ids of the programs running in a Neovim's terminals (Lua). */
export const TERMINAL_PIDS = `
  local pids = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local pid = vim.b[b].terminal_job_pid
    if vim.bo[b].buftype == "terminal" and pid then table.insert(pids, pid) end
  end
  return pids`;

/**
 * Whether process `pid` is running. A zombie is not: it has exited, and only waits for its parent
 * to reap it (a host whose Neovim was killed waits for init, which may take a second or more).
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync("/proc/self/stat")) return true; // no /proc: a zombie counts as running
  try {
    // The state follows the command's name, which may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
  } catch {
    return false; // gone meanwhile
  }
}

/** Waits until process `pid` (a host) has exited. Returns how long that took (ms); fails after `timeoutMs`. */
export async function hostExited(pid: number, timeoutMs = 5000): Promise<number> {
  const start = Date.now();
  while (alive(pid)) {
    if (Date.now() - start > timeoutMs) throw new Error(`the host (pid ${pid}) still runs ${timeoutMs} ms after it was to exit`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - start;
}

/**
 * Where the pids of the hosts one session's Neovim starts are noted (`session`: its own, as two
 * sessions may share a project): a file that outlives Neovim.
 */
export const hostsFile = (cwd: string, session: string) => join(cwd, ".state", `tine-test-hosts.${session}`);

/**
 * A `--cmd` for a session's Neovim: notes the pid of each host it starts in `file`, so the session
 * waits for every one of them, also after its Neovim was killed or quit.
 */
export const recordHosts = (file: string) =>
  `lua local start = vim.fn.jobstart; vim.fn.jobstart = function(cmd, opts) local id = start(cmd, opts); if id > 0 and type(cmd) == "table" and tostring(cmd[2]):match("/dist/host%.cjs$") then vim.fn.mkdir(vim.fn.fnamemodify([[${file}]], ":h"), "p"); local f = assert(io.open([[${file}]], "a")); f:write(vim.fn.jobpid(id), "\\n"); f:close() end; return id end`;

/**
 * Ends the programs in a session's terminals (`terminals`), then waits for every host noted in
 * `file` (recordHosts). Null once all are gone; else the error that says which host still runs.
 */
export async function sessionEnded(file: string, terminals: readonly number[]): Promise<Error | null> {
  await endProcessGroups(terminals);
  const hosts = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : [];
  const stuck = await Promise.all(hosts.map((pid) => hostExited(pid))).then(
    () => null,
    (error: Error) => error,
  );
  rmSync(file, { force: true });
  return stuck;
}

/** Ends each process group (a terminal's program leads its own) and waits until the leaders are gone. */
async function endProcessGroups(pids: readonly number[]): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(-pid, sig);
      } catch {
        // already gone
      }
    }
  };
  signal("SIGTERM");
  // Polled: these are not our children, so their exit cannot be awaited.
  const start = Date.now();
  while (pids.some(alive) && Date.now() - start < 10_000) {
    if (Date.now() - start > 5000) signal("SIGKILL");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The command lines of the processes working in folder `dir` now (their working folder is in it;
 * zombies have stopped). Read from /proc: Linux only.
 */
export function workingIn(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || !alive(Number(entry))) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim());
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** The pids of this machine's running processes whose command line starts with `command` (zombies aside). */
export function pidsRunning(command: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const line = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
      if (line.startsWith(command) && alive(Number(name))) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * Waits until `ready()` holds, polled: for what sends the test no event (a process starting or
 * ending in a sandbox). Fails after `timeoutMs`, saying what it waited for.
 */
export async function until(what: string, ready: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!ready()) {
    if (Date.now() - start > timeoutMs) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
