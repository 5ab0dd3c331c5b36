/**
 * The part of the chat fork exits (fork-exits.ts) may read and change: its threads and tree, and
 * the few changes they make to them. The chat implements it; fork exits get nothing else of it.
 */
import type { AgentMsg } from "../core/agent.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ChatClock, ChatEvents, ChatLimits, CreatedHow } from "./events.ts";
import type { ForkLives } from "./forks.ts";
import type { NewThread } from "./mint.ts";
import type { Dispatch, ForkClone } from "./msgs.ts";
import type { Runner, Runners } from "./runner.ts";
import type { Thread, TitledBy } from "./thread.ts";
import type { ForkTree } from "./tree.ts";

export interface ChatTree {
  readonly threads: ReadonlyMap<ThreadId, Thread>;
  readonly lineage: ForkTree;
  readonly forks: ForkLives;
  readonly runners: Runners;
  readonly events: ChatEvents;
  readonly clock: ChatClock;
  readonly limits: ChatLimits;
  readonly dispatch: Dispatch;
  activeId: ThreadId | null;
  isStored(id: ThreadId): boolean;
  titleOf(id: ThreadId): string | undefined;
  /** A new thread's id and number (number claimed: unique across the Neovims sharing the project); mint.ts. */
  mint(): NewThread;
  /** A minted identity no thread was made with: its number is given again (mint.ts). */
  unmint(made: NewThread): void;
  /** What a thread's runner dispatches through. */
  agentDispatch(id: ThreadId): (msg: AgentMsg) => void;
  /** A thread with the chat's services, not yet in the chat. */
  makeThread(id: ThreadId, num: number, title: string, runner: Runner, titledBy?: TitledBy): Thread;
  /** Puts `thread` in the chat and tells the UI and the store. */
  add(thread: Thread, how: CreatedHow, makeActive: boolean): void;
  /** Takes a fork now, in place (when and where the fork flow decided: node/fork/). */
  forkNow(fork: ForkClone): void;
  /** Whether fork `id` works in a worktree of its own, apart from its parent's folder (its end brings its code back). */
  worksApart(id: ThreadId): boolean;
  /** Takes a thread out of the chat (the tree keeps its lineage). */
  remove(id: ThreadId): void;
  /** The tree or the active thread changed: the list redraws. */
  changed(): void;
  /** Thread `id`'s place in the tree changed: the list redraws, and the displays that show it (see `Changes.moved`). */
  moved(id: ThreadId): void;
}
