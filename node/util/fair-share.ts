/**
 * Stream work that gives way: every stream being read awaits `giveWay()` before it handles an
 * event, so that a request from Neovim (which waits, blocked, for the answer) is answered ahead
 * of a backlog of thirty streams instead of behind it. A turn of the event loop gets one budget
 * of stream work in all, however many streams have a backlog: past it, the streams wait in line
 * and the loop goes on to its input (Neovim's requests are read and answered there); the next
 * turn resumes them in line, one event each in turn (round robin), until its budget is spent.
 * So a request waits for at most one budget of stream work, not for one event of every stream
 * besides (which, with thirty streams, was most of a turn).
 */
const BUDGET_MS = 2;

export class StreamLane {
  /** Streams waiting for their next event, in line: each resolves one waiter's `giveWay()`. */
  private readonly waiting: (() => void)[] = [];
  /** When this turn's stream work began; undefined until the first of a turn. */
  private turnStarted: number | undefined;
  private turnEndScheduled = false;

  /** `later` runs a function in the next turn of the event loop, after its input (setImmediate). */
  constructor(
    private readonly budgetMs: number,
    private readonly now: () => number,
    private readonly later: (fn: () => void) => void = setImmediate,
  ) {}

  /** Undefined: go on at once (the turn has budget left and no stream waits); otherwise resolves when it is this stream's turn. */
  giveWay(): Promise<void> | undefined {
    this.markTurn();
    if (this.waiting.length === 0 && this.budgetLeft()) return undefined;
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
    // In line behind others while the budget lasts: the first in line goes next (this one's continuation waits).
    if (this.budgetLeft()) this.waiting.shift()!();
    return turn;
  }

  /** How many streams wait for their turn (tests). */
  get queued(): number {
    return this.waiting.length;
  }

  private budgetLeft(): boolean {
    return this.now() - this.turnStarted! < this.budgetMs;
  }

  /** The first stream work of a turn starts its budget, and the turn's end is set for after the loop's input. */
  private markTurn(): void {
    this.turnStarted ??= this.now();
    if (this.turnEndScheduled) return;
    this.turnEndScheduled = true;
    this.later(() => this.nextTurn());
  }

  /** A new turn: its budget is whole, and the first stream in line goes on (it hands on to the next). */
  private nextTurn(): void {
    this.turnEndScheduled = false;
    this.turnStarted = undefined;
    if (this.waiting.length === 0) return;
    this.markTurn();
    this.waiting.shift()!();
  }
}

/** The host's one lane; `performance` is read on first use (it loads perf_hooks, kept out of start-up). */
let lane: StreamLane | undefined;

export function giveWay(): Promise<void> | undefined {
  lane ??= new StreamLane(BUDGET_MS, () => performance.now());
  return lane.giveWay();
}
