/**
 * What happens to a worktree fork's files when the fork ends: promoted, its work is merged into
 * its parent's tree (merge.ts; conflicts go to the quickfix list and the worktree stays until the
 * merge is accepted); reported, its report carries a summary of its changes (made before it ends,
 * `sumUp`, so that the parent gets one report) and its worktree stays; discarded,
 * its worktree is removed after saying how many changed files go with it (its last snapshot
 * keeps them). A fork that shares its parent's folder has nothing to bring back: nothing happens.
 *
 * A merge is accepted at once when it has no conflicts (nothing is left to look at); one with
 * conflicts is accepted by `:Tine merge done` (refused while a listed file still holds markers,
 * unless forced). Until then the worktree's marker notes it, so it is found after a restart too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Dispatch, ForkEnd, ThreadId } from "../chat/msgs.ts";
import type { FileChange } from "../snapshot/code.ts";
import { type MergeConflict, markersLeft, mergeChanges } from "./merge.ts";
import type { Workspace, Workspaces } from "./workspaces.ts";
import { setPendingMerge, worktreesIn } from "./worktree.ts";

/** What the host does for these ends: tell the user, fill the quickfix list, give the chat a fork's code summary. */
export type ForkCodeEdges = {
  tell(text: string, error: boolean): void;
  quickfix(title: string, items: readonly { filename: string; lnum: number; text: string }[]): void;
  readonly dispatch: Dispatch;
  /** A file the merge wrote (absolute): buffers holding it are reloaded. */
  written(path: string): void;
  /** The threads live now (a worktree another one still works in is not removed). */
  live(): Iterable<ThreadId>;
};

/** A fork as its end sees it: who, and where it hung. */
export type EndingFork = { readonly id: ThreadId; readonly title: string; readonly parentId: ThreadId; readonly parentTitle: string };

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** `3 files changed (+12 −4)` and a line per file, as a report's summary. */
export function changeSummary(files: readonly FileChange[], root: string): string {
  const added = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed ?? 0), 0);
  const head = `Its code, in its worktree ${root}: ${plural(files.length, "file")} changed (+${added} −${removed})`;
  const status = { added: "A", modified: "M", deleted: "D" } as const;
  const lines = files.map((f) => `  ${status[f.status]} ${f.path}  ${f.added === null ? "binary" : `+${f.added} −${f.removed}`}`);
  return [head, ...lines].join("\n");
}

export class ForkCode {
  /** Ends under way, by fork: a promote's caller waits for its merge. */
  private readonly ending = new Map<ThreadId, Promise<void>>();

  constructor(
    private readonly workspaces: Workspaces,
    private readonly edges: ForkCodeEdges,
  ) {}

  /** A fork ended: its files follow, off the dispatch loop. */
  ended(fork: EndingFork, how: ForkEnd): void {
    // Only a fork with a tree of its own has files to bring back.
    if (!this.workspaces.apart(fork.id)) return;
    const from = this.workspaces.of(fork.id);
    const into = this.workspaces.of(fork.parentId);
    const work = {
      promoted: () => this.merge(fork, from, into),
      // Its report carried the summary of its code (sumUp); its worktree stays.
      reported: () => Promise.resolve(),
      discarded: () => this.discard(fork, from),
    }[how];
    const done = work()
      .catch((e: Error) => this.edges.tell(`tine: ${fork.title}: ${e.message}`, true))
      .finally(() => this.ending.delete(fork.id));
    this.ending.set(fork.id, done);
  }

  /** Resolves once what fork `id`'s end does to its files is done (at once when nothing is). */
  settled(id: ThreadId): Promise<void> {
    return this.ending.get(id) ?? Promise.resolve();
  }

  private async merge(fork: EndingFork, from: Workspace, into: Workspace): Promise<void> {
    const stored = from.stored!;
    const theirs = await from.snapshots.take(fork.id);
    const ours = await into.snapshots.take(fork.parentId);
    if (!theirs || !ours) throw new Error("code snapshots are off: its files were not merged");
    const labels = { ours: fork.parentTitle, theirs: fork.title, theirsRoot: from.root };
    const result = await mergeChanges(into.snapshots, into.root, { base: stored.base, ours: ours.id, theirs: theirs.id }, labels);
    for (const path of result.applied) this.edges.written(join(into.root, path));
    const unrecorded = result.unrecorded.length ? `; not merged (over 2 MiB): ${result.unrecorded.join(", ")}` : "";
    if (!result.conflicts.length) {
      await this.remove(from);
      this.edges.tell(`tine: ${fork.title}: its code is merged: ${plural(result.applied.length, "file")} changed${unrecorded}`, false);
      return;
    }
    const files = [...new Set(result.conflicts.map((c) => c.path))];
    setPendingMerge(from.root, { into: into.root, files });
    this.edges.quickfix(`tine: merge of ${fork.title}`, this.quickfixItems(into.root, result.conflicts));
    this.edges.tell(
      `tine: ${fork.title}: its code is merged with ${plural(files.length, "conflict")} (the quickfix list): ${files.join(", ")}${unrecorded}. Its worktree ${from.root} stays until :Tine merge done`,
      false,
    );
  }

  private quickfixItems(root: string, conflicts: readonly MergeConflict[]) {
    return conflicts.map((c) => ({ filename: join(root, c.path), lnum: c.line, text: c.text }));
  }

  /**
   * A fork in a worktree of its own is about to report: what its code changed goes back to the
   * chat (`fork-code-summed`, "" when snapshots are off), which then sends its report with it.
   */
  sumUp(id: ThreadId): void {
    const from = this.workspaces.of(id);
    const summed = (summary: string) => this.edges.dispatch({ type: "chat-msg", msg: { type: "fork-code-summed", id, summary } });
    this.summary(id, from).then(summed, (e: Error) =>
      summed(`Its code, in its worktree ${from.root}, could not be summed up: ${e.message}`),
    );
  }

  private async summary(id: ThreadId, from: Workspace): Promise<string> {
    const last = await from.snapshots.take(id);
    if (!last) return "";
    return changeSummary(await from.snapshots.changes(from.stored!.base, last.id), from.root);
  }

  private async discard(fork: EndingFork, from: Workspace): Promise<void> {
    const last = await from.snapshots.take(fork.id);
    const files = last ? await from.snapshots.changes(from.stored!.base, last.id) : [];
    const others = this.workspaces.usersOf(from, this.edges.live());
    if (others.length) {
      this.edges.tell(`tine: ${fork.title}: its worktree ${from.root} stays: other threads work in it`, false);
      return;
    }
    this.edges.tell(
      `tine: ${fork.title}: its worktree is removed with ${plural(files.length, "changed file")} (its last snapshot keeps them: :Tine threads! restores the fork)`,
      false,
    );
    await this.remove(from);
  }

  private async remove(workspace: Workspace): Promise<void> {
    if (!this.workspaces.usersOf(workspace, this.edges.live()).length) await this.workspaces.remove(workspace.root);
  }

  /**
   * `:Tine merge done`: the conflicted merges of this project are accepted and their worktrees
   * removed; refused while a listed file still holds conflict markers, unless `force`. Returns
   * how many were accepted.
   */
  async mergeDone(force: boolean): Promise<number> {
    const pending = worktreesIn(this.workspaces.folder()).filter((w) => w.merge !== null);
    if (!pending.length) throw new Error("tine: no merge waits to be accepted");
    if (!force) {
      const unresolved = pending.flatMap(({ merge }) =>
        merge!.files.filter((f) => {
          try {
            return markersLeft(readFileSync(join(merge!.into, f), "utf8")) > 0;
          } catch {
            return false;
          }
        }),
      );
      if (unresolved.length)
        throw new Error(`tine: conflict markers are left in ${unresolved.join(", ")}: resolve them, or :Tine merge done! to accept as is`);
    }
    for (const p of pending) {
      setPendingMerge(p.path, null);
      await this.workspaces.remove(p.path);
    }
    return pending.length;
  }
}
