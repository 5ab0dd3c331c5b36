/**
 * The fork side of the host, wired to what it asks of the other services: the one fork flow
 * (node/fork/flow.ts: when and where every fork is made) and fan-outs (node/fork/fanout.ts: N
 * forks at once, their checks and their comparison). Built once by Services.
 */
import type { Chat } from "../chat/chat.ts";
import type { Dispatch } from "../chat/msgs.ts";
import type { ThreadId } from "../core/ids.ts";
import { FanOuts } from "../fork/fanout.ts";
import { ForkFlow } from "../fork/flow.ts";
import type { NvimBridge } from "../nvim/bridge.ts";
import { unknownModel } from "../providers/models.ts";
import type { Persistence } from "../store/persistence.ts";
import type { UsageBook } from "../usage/book.ts";
import type { Buffers } from "../view/buffers.ts";
import type { CodeActions } from "../worktree/code-actions.ts";
import type { Workspaces } from "../worktree/workspaces.ts";
import type { HostConfig } from "./config.ts";
import type { LiveThreads } from "./live-threads.ts";

/** What the fork side asks of the services built before it. */
export type ForkServiceParts = {
  readonly chat: Chat;
  readonly dispatch: Dispatch;
  readonly workspaces: Workspaces;
  readonly code: CodeActions;
  readonly persistence: Persistence | null;
  readonly threads: LiveThreads;
  readonly buffers: Buffers;
  readonly usage: UsageBook;
  readonly nvim: NvimBridge;
};

/** `changed`: a thread's entry in threads() changed (a fan-out fork's check started or ended). */
export function forkServices(
  parts: ForkServiceParts,
  config: HostConfig,
  changed: (id: ThreadId) => void,
): { forks: ForkFlow; fanouts: FanOuts } {
  const { chat, dispatch, workspaces, nvim } = parts;
  const tell = (text: string, error: boolean) => (error ? nvim.notifyError(text) : nvim.notifyInfo(text));
  const forks = new ForkFlow({
    chat,
    dispatch,
    folders: workspaces,
    code: parts.code,
    forkWorktree: config.fork_worktree,
    forkUnattended: config.fork_unattended,
    // Only stored threads are asked for (so there is a store).
    storedSource: (id) => parts.persistence!.storedSource(id),
    storedRunnerUsed: (id, title, spec) => parts.threads.storedRunnerUsed(id, title, spec),
    live: (id) => parts.threads.live(id),
    show: (id) => parts.buffers.of(id),
    tell,
  });
  const fanouts = new FanOuts({
    chat,
    flow: forks,
    folders: workspaces,
    baseNow: async (sourceId, owner) => (await workspaces.of(sourceId).snapshots.take(owner))?.id ?? null,
    unknownModel: (name) => unknownModel(name, config),
    max: config.fanout_max,
    checkCommand: config.check_command,
    tell,
    usage: parts.usage,
    // Its entry in threads() and the list, and its display's note of its check (`⑂×3 2/3 check ✓`).
    changed: (id) => {
      changed(id);
      parts.buffers.notesChanged(id);
    },
    filesChanged: (id) => void nvim.call("fork_files_changed", [id]).catch((e) => nvim.log(`fork_files_changed failed: ${String(e)}`)),
    keepCheck: (id, result) => parts.persistence?.checked(chat, id, result),
  });
  return { forks, fanouts };
}
