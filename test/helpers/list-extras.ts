/** The list's extras with nothing to say (no store, usage, worktrees or fan-outs): for unit tests of the list and the buffers. */
import type { ListExtras } from "../../node/view/thread-list.ts";

export const NO_LIST_EXTRAS: ListExtras = {
  updated: () => undefined,
  label: () => "",
  unreadable: () => [],
  notSaved: () => undefined,
  ownMessages: () => null,
  usage: () => [],
  winbar: () => [],
  worksIn: () => null,
  unattended: () => false,
  waitingFork: () => undefined,
  onDisk: () => false,
  merges: () => [],
  shownPath: (path) => path,
  fanOutMark: () => null,
  checking: () => false,
  fanOutNotes: () => [],
  waitNotes: () => [],
};
