/**
 * Whether anything changed in a folder since a moment: every folder under it (its own `.git`
 * aside) is watched, and the first change seen anywhere (a file written, made, removed, renamed,
 * its mode changed; a folder made or removed) ends the watch, answered "changed". A done fork's
 * snapshot is given again while its worktree stays quiet (code.ts's `takeWhileQuiet`), so
 * `:Tine compare` of 8 forks reads no file of theirs. The watch is a superset of what a snapshot
 * holds (ignored folders are watched too, links not followed): it may say "changed" for nothing, never the reverse.
 */
import { type FSWatcher, readdirSync, watch } from "node:fs";
import { join } from "node:path";

/** Past this many folders, a folder is not watched (each is an inotify watch of the user's limited number): its snapshot is taken each time. */
const MAX_FOLDERS = 1000;

export class QuietFolder {
  private readonly watchers: FSWatcher[] = [];
  private changedSince = false;

  private constructor(private readonly changed?: () => void) {}

  /**
   * A watch on `root` from now on; null when it cannot be watched (too many folders, one
   * unreadable): nothing is reused then. `changed` is called at its first change (what shows the
   * folder, a :Tine compare view, draws it again), never after `close`.
   */
  static watch(root: string, changed?: () => void): QuietFolder | null {
    const quiet = new QuietFolder(changed);
    // Each folder is watched before it is read: a folder made meanwhile is seen by one or the other.
    const folders = [root];
    try {
      for (let i = 0; i < folders.length; i++) {
        const folder = folders[i]!;
        const watcher = watch(folder, { persistent: false }, () => quiet.change());
        watcher.on("error", () => quiet.change());
        quiet.watchers.push(watcher);
        for (const e of readdirSync(folder, { withFileTypes: true }))
          if (e.isDirectory() && e.name !== ".git") folders.push(join(folder, e.name));
        if (folders.length > MAX_FOLDERS) throw new Error("too many folders");
      }
    } catch {
      quiet.close();
      return null;
    }
    return quiet;
  }

  /**
   * Whether nothing changed since the watch began. A change made just before this is asked (a
   * file saved, then :Tine compare) is waited for: the kernel queued its event before the ask
   * came, and the event loop's next look at what is ready (its poll, between this turn's
   * immediates and the next turn's) delivers it.
   */
  async quiet(): Promise<boolean> {
    for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
    return !this.changedSince;
  }

  /** Ends the watch. */
  close(): void {
    for (const w of this.watchers.splice(0)) w.close();
  }

  private change(): void {
    const first = !this.changedSince && this.watchers.length > 0;
    this.changedSince = true;
    this.close();
    if (first) this.changed?.();
  }
}
