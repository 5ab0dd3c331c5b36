/**
 * The policy as bubblewrap's command line, and whether bubblewrap can start here. bwrap is
 * called directly, once per command (README.md, Sandbox):
 * it starts in a few milliseconds, where @anthropic-ai/sandbox-runtime's CLI took 0.33 s a
 * command here and its package wants Node ≥ 22; what that library adds (proxies that let chosen
 * hosts through) a thread with no network does not need.
 */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import type { SandboxPolicy } from "./policy.ts";

/** Whether a sandbox can start on this machine, or why not and what fixes it (for :checkhealth and refusals). */
export type SandboxAvailability = { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly fix: string };

let known: SandboxAvailability | null = null;

/** Tries the smallest sandbox once (the answer is kept: it changes only with the machine's setup). */
export function sandboxAvailable(): SandboxAvailability {
  known ??= probeSandbox("bwrap");
  return known;
}

/** Starts `true` in a sandbox with every namespace and mount kind a command gets, with the bwrap at `bwrap`. */
export function probeSandbox(bwrap: string): SandboxAvailability {
  if (process.platform !== "linux")
    return { ok: false, reason: `the sandbox runs on Linux only (this is ${process.platform})`, fix: "run unattended forks on Linux" };
  const r = spawnSync(bwrap, [...SYSTEM_MOUNTS, ...ISOLATION, ...NO_NETWORK, "true"], { encoding: "utf8", timeout: 5000 });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT")
    return {
      ok: false,
      reason: "bubblewrap (bwrap) is not installed",
      fix: "install the bubblewrap package (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)",
    };
  if (r.error)
    return { ok: false, reason: `bwrap could not run: ${r.error.message}`, fix: "check that bwrap runs: bwrap --ro-bind / / true" };
  if (r.status === 0) return { ok: true };
  const said = r.stderr.trim().split("\n").at(-1) ?? `exit ${r.status}`;
  return {
    ok: false,
    reason: `bwrap cannot create its namespaces: ${said}`,
    fix:
      "allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 (Debian), or on Ubuntu 24.04 " +
      "sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap",
  };
}

/** The system read-only, with its own /dev, /proc, and a private /tmp and /run. */
const SYSTEM_MOUNTS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run"] as const;

/**
 * No capabilities: run as root (CI, containers), bwrap would keep them all, and mount could make /
 * writable again. Own IPC and PID namespaces; --as-pid-1: the command is the
 * namespace's init, so when it exits the kernel ends everything left in it before bwrap returns
 * (nothing is "left behind" to report); --die-with-parent: the host's death ends it too.
 */
const ISOLATION = ["--cap-drop", "ALL", "--unshare-pid", "--as-pid-1", "--unshare-ipc", "--die-with-parent"] as const;
/** No network: its own empty namespace, whose loopback reaches nothing outside the sandbox. */
const NO_NETWORK = ["--unshare-net"] as const;

/** Whether a command has the network: "none" unless the user approved it for that command. */
export type Network = "none" | "host";

/**
 * bwrap's arguments for running `command` with bash under `policy`. Mounts apply in order: the
 * whole system read-only, a private /tmp and /run (both hold the host's sockets, ssh-agent's among
 * them, and a unix socket is reachable through a read-only mount), then the policy's rules, a
 * folder's before those inside it (a hidden folder is an empty tmpfs). Paths that do not exist are
 * left out: bwrap would create them on the host to mount on.
 */
export function bwrapArgs(policy: SandboxPolicy, command: string, network: Network = "none"): string[] {
  const args: string[] = [...SYSTEM_MOUNTS];
  const emptied: string[] = [];
  for (const { path, access } of policy.rules) {
    const k = kind(path);
    if (!k) continue;
    switch (access) {
      case "write":
        args.push("--bind", path, path);
        break;
      case "read-only":
        args.push("--ro-bind", path, path);
        break;
      case "hidden":
        if (k === "file") args.push("--ro-bind", "/dev/null", path);
        else {
          args.push("--tmpfs", path);
          emptied.push(path);
        }
        break;
      default:
        access satisfies never;
    }
  }
  // Made read-only last: a deeper rule's mount point may first have to be made in them.
  for (const path of emptied) args.push("--remount-ro", path);
  args.push(...ISOLATION, ...(network === "none" ? NO_NETWORK : []), "--setenv", "TMPDIR", "/tmp");
  args.push("--chdir", policy.root, "--", "bash", "-c", command);
  return args;
}

function kind(path: string): "dir" | "file" | null {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}
