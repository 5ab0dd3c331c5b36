/**
 * The usage of live threads, as the winbar, the thread list and `require('tine').usage(id)` read
 * it: derived from each thread's history (figures.ts) and kept per thread, extended as entries
 * are appended rather than counted again. A thread's figures are its own requests (a fork's start
 * after its fork point) and its side requests (side.ts); the list adds each thread's subtree. A
 * stored thread's come from the store's scan (stored.ts), without loading it. Also arms a clock
 * per thread for the moment its cache expires, so the winbar's warning shows then without a send.
 */
import type { History } from "../core/history.ts";
import type { ThreadId } from "../core/ids.ts";
import type { ModelChoice } from "../core/model-choice.ts";
import type { Entry, RequestKey } from "../core/native.ts";
import type { SideRequest } from "../core/side-request.ts";
import { startTimer } from "../util/timer.ts";
import { type CacheMiss, cacheMiss } from "./cache.ts";
import {
  type ByModel,
  extendFigures,
  type Figures,
  mergeByModel,
  NO_THREAD_FIGURES,
  type PriceTable,
  sumByModel,
  type ThreadFigures,
  threadFigures,
  totalTokens,
  withSide,
} from "./figures.ts";
import { DEFAULT_CONTEXT_WINDOW, ratesFor } from "./prices.ts";
import { type ReportedUsage, reportedDollars } from "./reported.ts";
import { type StoredUsage, storedFigures } from "./stored.ts";
import { costText, dollars, tokens, type WinbarPart, type WinbarView, winbarParts } from "./winbar.ts";

/** `require('tine').usage(id)`, and each entry of `threads()`: the thread's own requests. */
export type UsageInfo = {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  web_searches: number;
  requests: number;
  /** Null when a request used a model the price table lacks. */
  cost_usd: number | null;
  /** The last request's tokens (prompt and reply): how full the context is. */
  context_tokens: number;
  /** The model's context window; null for a model the price table lacks. */
  context_window: number | null;
  /** Share of the last request's input read from the cache; null before any request. */
  cache_hit: number | null;
  /** Why the next send would not read the cache ("model", "tools", "expired"), or null. */
  cache_miss: CacheMiss | null;
  /** The thread and its forks (live ones), summed. */
  subtree: {
    input: number;
    output: number;
    cache_read: number;
    cache_write: number;
    web_searches: number;
    requests: number;
    cost_usd: number | null;
  };
};

/**
 * A live thread as the book reads it (chat/thread.ts's `Thread` is one). usage/ lies below the
 * chat (the chat counts its side requests with usage/side.ts), so the book names what it reads
 * instead of importing the chat; `tsc` checks the chat's objects fit where the host builds it.
 */
export type CountedThread = {
  readonly id: ThreadId;
  readonly side: readonly SideRequest[];
  readonly atRest: boolean;
  readonly runner: {
    readonly history: History;
    /** What tine drives of its conversation (chat/runner.ts's `Conversation`), or null: its requests are its program's. */
    readonly conversation: { readonly modelName: string | null; nextRequest(): RequestKey | null } | null;
    /** Its own model and thinking (`:Tine model`), absent: setup's. */
    readonly spec: { readonly model?: ModelChoice };
    /** What its program says of its usage (chat/runner.ts), or absent: tine counts it all. */
    reportedUsage?(): ReportedUsage;
  };
};

/** The chat's threads as the book reads them (chat/chat.ts's `Chat`): live and stored ones, where each forked, its children. */
export type CountedThreads = {
  readonly threads: ReadonlyMap<ThreadId, CountedThread>;
  readonly stored: ReadonlyMap<ThreadId, { readonly usage?: StoredUsage }>;
  readonly lineage: { get(id: ThreadId): { readonly relation: string; readonly atMessage: number } | undefined };
  childrenOf(id: ThreadId): readonly ThreadId[];
};

type Kept = {
  history: History;
  ownFrom: number;
  last: Entry | undefined;
  /** The history's figures, and with the side requests `side` added. */
  ofHistory: ThreadFigures;
  side: readonly SideRequest[];
  figures: ThreadFigures;
};

export class UsageBook {
  private readonly kept = new Map<ThreadId, Kept>();
  /** Figures of stored threads (not loaded), by the summary the scan gave. */
  private readonly storedKept = new Map<ThreadId, { from: unknown; figures: ThreadFigures }>();
  private readonly clocks = new Map<ThreadId, { at: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly chat: CountedThreads,
    private readonly prices: PriceTable,
    private readonly lifetimeMs: number,
    /** A thread's cache just expired: its winbar says so. */
    private readonly expired: (id: ThreadId) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where a thread's own entries start: after its fork point for a fork, at 0 for any other. */
  private ownFrom(id: ThreadId): number {
    const lineage = this.chat.lineage.get(id);
    return lineage?.relation === "fork" ? lineage.atMessage + 1 : 0;
  }

  /** The thread's figures; its cost the one its program reports when it reports one (an ACP agent's). */
  figures(thread: CountedThread): ThreadFigures {
    const f = this.historyFigures(thread);
    const reported = thread.runner.reportedUsage?.();
    return reported ? { ...f, cost: reportedDollars(reported) } : f;
  }

  private historyFigures(thread: CountedThread): ThreadFigures {
    const history = thread.runner.history;
    const ownFrom = this.ownFrom(thread.id);
    const kept = this.kept.get(thread.id);
    if (kept?.history === history && kept.ownFrom === ownFrom) {
      if (kept.side === thread.side) return kept.figures;
      const figures = withSide(kept.ofHistory, thread.side, this.prices);
      this.kept.set(thread.id, { ...kept, side: thread.side, figures });
      return figures;
    }
    // Appended to since: only the new entries are counted.
    const grew = kept && kept.ownFrom === ownFrom && kept.history.length <= history.length && kept.history.length > 0;
    const ofHistory =
      grew && history.at(kept.history.length - 1) === kept.last
        ? extendFigures(kept.ofHistory, history, kept.history.length, ownFrom, this.prices)
        : history.length
          ? threadFigures(history, ownFrom, this.prices)
          : NO_THREAD_FIGURES;
    const figures = withSide(ofHistory, thread.side, this.prices);
    this.kept.set(thread.id, { history, ownFrom, last: history.last(), ofHistory, side: thread.side, figures });
    return figures;
  }

  /** Why the thread's next send would not read the cache, or null; arms the clock for its expiry. */
  miss(thread: CountedThread): CacheMiss | null {
    const last = this.figures(thread).last?.request ?? null;
    if (!thread.atRest || !last) return null;
    const why = cacheMiss(last, nextRequest(thread), this.now(), this.lifetimeMs);
    if (why === null) this.armClock(thread.id, last.at + this.lifetimeMs);
    return why;
  }

  private armClock(id: ThreadId, at: number): void {
    if (this.clocks.get(id)?.at === at) return;
    const before = this.clocks.get(id);
    if (before) clearTimeout(before.timer);
    const timer = startTimer(() => {
      this.clocks.delete(id);
      if (this.chat.threads.has(id)) this.expired(id);
    }, at - this.now());
    timer.unref?.();
    this.clocks.set(id, { at, timer });
  }

  /** The context window of `model` (the price table's; a model not in it: the least any current model has), for compaction's mark. */
  contextWindow(model: string): number {
    return ratesFor(this.prices, model)?.context_window ?? DEFAULT_CONTEXT_WINDOW;
  }

  view(thread: CountedThread): WinbarView {
    const f = this.figures(thread);
    const own = sumByModel(f.own);
    const last = f.last?.figures;
    const model = nextRequest(thread)?.model ?? f.last?.request?.model ?? null;
    const prompt = last ? last.input + last.cache_read + last.cache_write : 0;
    // A program that counts its own context and cost (an ACP agent) is taken at its word.
    const reported = thread.runner.reportedUsage?.();
    const cost = reported?.cost;
    return {
      model: thread.runner.conversation?.modelName ?? null,
      effort: thread.runner.spec.model?.effort ?? "setup",
      contextTokens: reported?.context?.used ?? (last ? totalTokens(last) : 0),
      contextWindow: reported?.context?.size ?? ratesFor(this.prices, model)?.context_window ?? null,
      totalTokens: totalTokens(own),
      cacheShare: last && prompt > 0 ? last.cache_read / prompt : null,
      cost: reported ? (cost?.amount ?? null) : f.cost,
      ...(cost && cost.unit !== "USD" ? { costUnit: cost.unit } : {}),
      requests: own.requests,
      miss: this.miss(thread),
    };
  }

  winbar(thread: CountedThread): WinbarPart[] {
    return nextRequest(thread) === null && !thread.runner.reportedUsage ? [] : winbarParts(this.view(thread));
  }

  /** A stored thread's figures, from the summary the store's scan keeps (none known: none). */
  private storedFigures(id: ThreadId): ThreadFigures {
    const usage = this.chat.stored.get(id)?.usage;
    if (!usage) return NO_THREAD_FIGURES;
    const kept = this.storedKept.get(id);
    if (kept?.from === usage) return kept.figures;
    const figures = storedFigures(usage, this.prices);
    this.storedKept.set(id, { from: usage, figures });
    return figures;
  }

  /** A thread's figures, live or stored. */
  private figuresOf(id: ThreadId): ThreadFigures {
    const thread = this.chat.threads.get(id);
    return thread ? this.figures(thread) : this.storedFigures(id);
  }

  /** The thread and its forks, live and stored: their own requests summed (null cost when one is unpriced). */
  subtree(id: ThreadId): { figures: ByModel; cost: number | null } {
    const f = this.figuresOf(id);
    let figures: ByModel = f.own;
    let cost: number | null = f.cost;
    for (const child of this.chat.childrenOf(id)) {
      const below = this.subtree(child);
      figures = mergeByModel(figures, below.figures);
      cost = cost !== null && below.cost !== null ? cost + below.cost : null;
    }
    return { figures, cost };
  }

  info(thread: CountedThread): UsageInfo {
    const v = this.view(thread);
    return this.infoOf(thread.id, this.figures(thread), v.contextWindow, v.miss, v);
  }

  /**
   * A stored thread's `usage`, as `threads()` gives it without loading the thread: the same
   * figures, and of the cache only whether it expired (its next request is not known before it
   * is opened). Null for a thread whose program keeps its own usage (Claude Code).
   */
  storedInfo(id: ThreadId, counts: boolean): UsageInfo | null {
    if (!counts) return null;
    const f = this.storedFigures(id);
    const last = f.last;
    const window = ratesFor(this.prices, last?.request?.model ?? null)?.context_window ?? null;
    const miss = last?.request && this.now() - last.request.at >= this.lifetimeMs ? "expired" : null;
    return this.infoOf(id, f, window, miss, null);
  }

  private infoOf(id: ThreadId, f: ThreadFigures, window: number | null, miss: CacheMiss | null, v: WinbarView | null): UsageInfo {
    const own = sumByModel(f.own);
    const sub = this.subtree(id);
    const last = f.last?.figures;
    const prompt = last ? last.input + last.cache_read + last.cache_write : 0;
    return {
      ...plain(own),
      cost_usd: f.cost,
      context_tokens: v?.contextTokens ?? (last ? totalTokens(last) : 0),
      context_window: window,
      cache_hit: v?.cacheShare ?? (last && prompt > 0 ? last.cache_read / prompt : null),
      cache_miss: miss,
      subtree: { ...plain(sumByModel(sub.figures)), cost_usd: sub.cost },
    };
  }

  /** What a thread's list line adds (live or stored): its tokens and cost, its subtree's when it has forks, a fork's cold start. */
  listDetails(id: ThreadId): string[] {
    if (!this.chat.threads.has(id) && !this.chat.stored.has(id)) return [];
    const f = this.figuresOf(id);
    const own = sumByModel(f.own);
    const out: string[] = [];
    const cost = this.chat.threads.get(id)?.runner.reportedUsage?.().cost;
    const shown = cost ? costText(cost.amount, cost.unit) : f.cost === null ? null : dollars(f.cost);
    if (own.requests) out.push(`${tokens(totalTokens(own))} tok${shown === null ? "" : ` ${shown}`}`);
    if (this.chat.childrenOf(id).length) {
      const sub = this.subtree(id);
      const total = sumByModel(sub.figures);
      if (total.requests > own.requests) out.push(`Σ ${tokens(totalTokens(total))} tok${sub.cost === null ? "" : ` ${dollars(sub.cost)}`}`);
    }
    if (this.chat.lineage.get(id)?.relation === "fork" && f.firstOwn && f.firstOwn.cache_read === 0)
      out.push("⚠ first request read no cache");
    return out;
  }

  forget(id: ThreadId): void {
    this.kept.delete(id);
    this.storedKept.delete(id);
    const clock = this.clocks.get(id);
    if (clock) clearTimeout(clock.timer);
    this.clocks.delete(id);
  }
}

const plain = (f: Figures) => ({
  input: f.input,
  output: f.output,
  cache_read: f.cache_read,
  cache_write: f.cache_write,
  web_searches: f.web_searches,
  requests: f.requests,
});

/** What `thread`'s next request would be, or null when tine makes none. */
function nextRequest(thread: CountedThread): RequestKey | null {
  return thread.runner.conversation?.nextRequest() ?? null;
}
