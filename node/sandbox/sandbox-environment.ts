/**
 * The sandboxed environment: a thread's tools act in one git worktree, its commands under
 * bubblewrap (bwrap.ts) and its in-process file tools checked in the host against the same policy
 * (policy.ts), links resolved. Paths, reads and listings are the local environment's, delegated to;
 * what differs is what may be written and read, and where commands run. Its `confinement` tells
 * approvals (tools/approval.ts) which calls leave the policy; those run, once the user approved
 * them, in its `approved` environment.
 *
 * Why bwrap directly rather than @anthropic-ai/sandbox-runtime: bwrap.ts's header. Linux only;
 * `openSandbox` refuses, with the reason and the fix, where the sandbox cannot start.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { type CommandResult, DEFAULT_TOOL_LIMITS, type Environment, type ToolLimits } from "../tools/environment.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import { runBash } from "../tools/local-shell.ts";
import { bwrapArgs, type Network, sandboxAvailable } from "./bwrap.ts";
import { accessAt, type PolicySettings, type SandboxPolicy, sandboxPolicy } from "./policy.ts";

export type SandboxSettings = PolicySettings & { readonly limits?: ToolLimits };

/** A sandboxed environment, or why none can start here and what fixes it. */
export type SandboxOpening =
  | { readonly ok: true; readonly environment: Environment }
  | { readonly ok: false; readonly reason: string; readonly fix: string };

export function openSandbox(settings: SandboxSettings): SandboxOpening {
  const available = sandboxAvailable();
  if (!available.ok) return available;
  return { ok: true, environment: sandboxEnvironment(policyOnceMade(settings), settings.limits ?? DEFAULT_TOOL_LIMITS) };
}

/**
 * The policy, read again until the worktree exists: its git paths (what stays read-only) are read
 * from the worktree's `.git`, and a stored fork's worktree that is gone is made again only when
 * its thread first acts. Once made, it is kept.
 */
function policyOnceMade(settings: PolicySettings): () => SandboxPolicy {
  let made: SandboxPolicy | null = null;
  return () => {
    if (made) return made;
    const policy = sandboxPolicy(settings);
    if (existsSync(join(policy.root, ".git"))) made = policy;
    return policy;
  };
}

function sandboxEnvironment(policy: () => SandboxPolicy, limits: ToolLimits): Environment {
  const root = policy().root;
  const local = localEnvironment(root, limits);
  const commandIn =
    (network: Network) =>
    (command: string, signal: AbortSignal): Promise<CommandResult> =>
      runBash(command, root, limits, signal, (c) => ({ file: "bwrap", args: bwrapArgs(policy(), c, network) }));
  const writeOutside = (path: string) =>
    accessAt(policy(), local.realPath(path)) === "write"
      ? null
      : `${path} is outside what this sandboxed thread may write (its worktree, but for .git's hooks and config)`;
  const readOutside = (path: string) =>
    accessAt(policy(), local.realPath(path)) === "hidden"
      ? `${path} is hidden from this sandboxed thread (credentials or tine's data)`
      : null;
  const writeRefusal = (path: string) => local.writeRefusal(path) ?? writeOutside(path);
  const readRefusal = (path: string) => {
    const outside = readOutside(path);
    if (outside) throw new Error(outside);
  };
  // A call the user approved although it leaves the sandbox: its files as a local thread's, its
  // command still in the sandbox (its files confined) but with the host's network.
  const approved: Environment = { ...local, runCommand: commandIn("host") };
  return {
    root,
    // tine's own git (snapshots, worktrees, merge, `@diff`) and the project's file list run in the
    // host, as for a local thread: they run none of the repository's programs (tools/local-git.ts).
    git: local.git,
    listProjectFiles: local.listProjectFiles,
    resolve: local.resolve,
    contains: local.contains,
    realPath: local.realPath,
    async readFile(path, limit, at) {
      readRefusal(path);
      return local.readFile(path, limit, at);
    },
    writeRefusal,
    async writeFile(path, bytes, mode) {
      const refusal = writeRefusal(path);
      if (refusal) throw new Error(`${refusal}: nothing is written there`);
      await local.writeFile(path, bytes, mode);
    },
    async listDirectory(path) {
      readRefusal(path);
      return local.listDirectory(path);
    },
    runCommand: commandIn("none"),
    confinement: { writeOutside, readOutside, approved },
  };
}
