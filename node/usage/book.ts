/**
 * The usage of live threads, as the winbar, the thread list and `require('tine').usage(id)` read
 * it: derived from each thread's history (figures.ts) and kept per thread, extended as entries
 * are appended rather than counted again. A thread's figures are its own requests (a fork's start
 * after its fork point); the list adds each thread's subtree. Also arms a clock per thread for
 * the moment its cache expires, so the winbar's warning shows then without a send.
 */
import type { Chat } from "../chat/chat.ts";
import type { ThreadId } from "../chat/msgs.ts";
import type { Thread } from "../chat/thread.ts";
import type { History } from "../providers/history.ts";
import type { Entry } from "../providers/native.ts";
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
} from "./figures.ts";
import { DEFAULT_CONTEXT_WINDOW, ratesFor } from "./prices.ts";
import { dollars, tokens, type WinbarPart, type WinbarView, winbarParts } from "./winbar.ts";

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

type Kept = { history: History; ownFrom: number; last: Entry | undefined; figures: ThreadFigures };

export class UsageBook {
  private readonly kept = new Map<ThreadId, Kept>();
  /** Figures of stored threads (not loaded), by the time their file last changed. */
  private readonly storedKept = new Map<ThreadId, { updated: number; figures: ThreadFigures }>();
  private readonly clocks = new Map<ThreadId, { at: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly chat: Chat,
    private readonly prices: PriceTable,
    private readonly lifetimeMs: number,
    /** A thread's cache just expired: its winbar says so. */
    private readonly expired: (id: ThreadId) => void,
    /** A stored thread's history, read from its file without loading it; null without a store. */
    private readonly storedHistory: (id: ThreadId) => History | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where a thread's own entries start: after its fork point for a fork, at 0 for any other. */
  private ownFrom(id: ThreadId): number {
    const lineage = this.chat.lineage.get(id);
    return lineage?.relation === "fork" ? lineage.atMessage + 1 : 0;
  }

  figures(thread: Thread): ThreadFigures {
    const history = thread.runner.history;
    const ownFrom = this.ownFrom(thread.id);
    const kept = this.kept.get(thread.id);
    if (kept?.history === history && kept.ownFrom === ownFrom) return kept.figures;
    // Appended to since: only the new entries are counted.
    const grew = kept && kept.ownFrom === ownFrom && kept.history.length <= history.length && kept.history.length > 0;
    const figures =
      grew && history.at(kept.history.length - 1) === kept.last
        ? extendFigures(kept.figures, history, kept.history.length, ownFrom, this.prices)
        : history.length
          ? threadFigures(history, ownFrom, this.prices)
          : NO_THREAD_FIGURES;
    this.kept.set(thread.id, { history, ownFrom, last: history.last(), figures });
    return figures;
  }

  /** Why the thread's next send would not read the cache, or null; arms the clock for its expiry. */
  miss(thread: Thread): CacheMiss | null {
    const last = this.figures(thread).last?.request ?? null;
    if (!thread.atRest || !last) return null;
    const why = cacheMiss(last, thread.runner.nextRequest(), this.now(), this.lifetimeMs);
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

  view(thread: Thread): WinbarView {
    const f = this.figures(thread);
    const own = sumByModel(f.own);
    const last = f.last?.figures;
    const model = thread.runner.nextRequest()?.model ?? f.last?.request?.model ?? null;
    const prompt = last ? last.input + last.cache_read + last.cache_write : 0;
    return {
      model: thread.runner.modelName,
      contextTokens: last ? totalTokens(last) : 0,
      contextWindow: ratesFor(this.prices, model)?.context_window ?? null,
      totalTokens: totalTokens(own),
      cacheShare: last && prompt > 0 ? last.cache_read / prompt : null,
      cost: f.cost,
      requests: own.requests,
      miss: this.miss(thread),
    };
  }

  winbar(thread: Thread): WinbarPart[] {
    return thread.runner.nextRequest() === null ? [] : winbarParts(this.view(thread));
  }

  /** A stored thread's figures, read again only when its file changed. */
  private storedFigures(id: ThreadId): ThreadFigures {
    const updated = this.chat.stored.get(id)?.updated ?? 0;
    const kept = this.storedKept.get(id);
    if (kept?.updated === updated) return kept.figures;
    const history = this.storedHistory(id);
    const figures = history ? threadFigures(history, this.ownFrom(id), this.prices) : NO_THREAD_FIGURES;
    this.storedKept.set(id, { updated, figures });
    return figures;
  }

  /**
   * The thread and its forks: their own requests summed (null cost when one is unpriced). With
   * `stored`, forks not loaded are read from their files (for `usage(id)`; the list, drawn often,
   * counts loaded ones only).
   */
  subtree(id: ThreadId, stored = false): { figures: ByModel; cost: number | null } {
    const thread = this.chat.threads.get(id);
    const f = thread ? this.figures(thread) : stored ? this.storedFigures(id) : NO_THREAD_FIGURES;
    let figures: ByModel = f.own;
    let cost: number | null = f.cost;
    for (const child of this.chat.childrenOf(id)) {
      const below = this.subtree(child, stored);
      figures = mergeByModel(figures, below.figures);
      cost = cost !== null && below.cost !== null ? cost + below.cost : null;
    }
    return { figures, cost };
  }

  info(thread: Thread): UsageInfo {
    const v = this.view(thread);
    const own = sumByModel(this.figures(thread).own);
    const sub = this.subtree(thread.id, true);
    return {
      ...plain(own),
      cost_usd: v.cost,
      context_tokens: v.contextTokens,
      context_window: v.contextWindow,
      cache_hit: v.cacheShare,
      cache_miss: v.miss,
      subtree: { ...plain(sumByModel(sub.figures)), cost_usd: sub.cost },
    };
  }

  /** What a thread's list line adds: its tokens and cost, its subtree's when it has forks, a fork's cold start. */
  listDetails(thread: Thread): string[] {
    const f = this.figures(thread);
    const own = sumByModel(f.own);
    const out: string[] = [];
    if (own.requests) out.push(`${tokens(totalTokens(own))} tok${f.cost === null ? "" : ` ${dollars(f.cost)}`}`);
    if (this.chat.childrenOf(thread.id).length) {
      const sub = this.subtree(thread.id);
      const total = sumByModel(sub.figures);
      if (total.requests > own.requests) out.push(`Σ ${tokens(totalTokens(total))} tok${sub.cost === null ? "" : ` ${dollars(sub.cost)}`}`);
    }
    if (this.chat.lineage.get(thread.id)?.relation === "fork" && f.firstOwn && f.firstOwn.cache_read === 0)
      out.push("⚠ first request read no cache");
    return out;
  }

  forget(id: ThreadId): void {
    this.kept.delete(id);
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
