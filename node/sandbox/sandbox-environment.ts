/**
 * The sandboxed environment: a thread's tools act in one git worktree, its commands under
 * bubblewrap (bwrap.ts) and its in-process file tools checked in the host against the same policy
 * (policy.ts), links resolved. Paths, reads and listings are the local environment's, delegated to;
 * what differs is what may be written and read, and where commands run.
 *
 * Why bwrap directly rather than @anthropic-ai/sandbox-runtime: bwrap.ts's header. Linux only;
 * `openSandbox` refuses, with the reason and the fix, where the sandbox cannot start.
 */

import { DEFAULT_TOOL_LIMITS, type Environment, type ToolLimits } from "../tools/environment.ts";
import { localEnvironment } from "../tools/local-environment.ts";
import { runBash } from "../tools/local-shell.ts";
import { bwrapArgs, sandboxAvailable } from "./bwrap.ts";
import { accessAt, type PolicySettings, type SandboxPolicy, sandboxPolicy } from "./policy.ts";

export type SandboxSettings = PolicySettings & { readonly limits?: ToolLimits };

/** A sandboxed environment, or why none can start here and what fixes it. */
export type SandboxOpening =
  | { readonly ok: true; readonly environment: Environment; readonly policy: SandboxPolicy }
  | { readonly ok: false; readonly reason: string; readonly fix: string };

export function openSandbox(settings: SandboxSettings): SandboxOpening {
  const available = sandboxAvailable();
  if (!available.ok) return available;
  const policy = sandboxPolicy(settings);
  return { ok: true, environment: sandboxEnvironment(policy, settings.limits ?? DEFAULT_TOOL_LIMITS), policy };
}

function sandboxEnvironment(policy: SandboxPolicy, limits: ToolLimits): Environment {
  const local = localEnvironment(policy.root, limits);
  const writeRefusal = (path: string) => {
    const here = local.writeRefusal(path);
    if (here) return here;
    return accessAt(policy, local.realPath(path)) === "write"
      ? null
      : `${path} is outside what this sandboxed thread may write (its worktree, but for .git's hooks and config)`;
  };
  const readRefusal = (path: string) => {
    if (accessAt(policy, local.realPath(path)) === "hidden")
      throw new Error(`${path} is hidden from this sandboxed thread (credentials or tine's data)`);
  };
  return {
    root: policy.root,
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
    runCommand: (command, signal) => runBash(command, policy.root, limits, signal, (c) => ({ file: "bwrap", args: bwrapArgs(policy, c) })),
  };
}
