/**
 * Fuzzy matching of project paths as a picker does it: the typed characters must appear in order
 * (smart case: any capital makes the match case-sensitive), and the best matches come first, the
 * ones whose characters start path segments and words, run together, and fall in the file's own
 * name. Scores follow fzf's scheme (its v1 alignment, its bonuses); a list is prepared once per
 * listing, so each keystroke only scans it.
 */

/** A list of paths made ready for matching: lower-cased once, not on each keystroke. */
export type PreparedPaths = {
  readonly paths: readonly string[];
  readonly lower: readonly string[];
  /** Where each path's last segment (its file name) starts. */
  readonly nameAt: readonly number[];
  /** The order an empty query lists them in (shallow paths first, then by name): made when first needed. */
  byDepth?: readonly number[];
};

export function preparePaths(paths: readonly string[]): PreparedPaths {
  return { paths, lower: paths.map((p) => p.toLowerCase()), nameAt: paths.map((p) => p.lastIndexOf("/") + 1) };
}

// fzf's weights: a matched character, the gap before one, and what a character's place is worth.
const SCORE_MATCH = 16;
const GAP_START = -3;
const GAP_EXTENSION = -1;
/** After `/`: the start of a path segment (fzf's boundary-delimiter bonus). */
const BONUS_SEGMENT = 9;
/** After `_`, `-`, `.`, a space: the start of a word. */
const BONUS_WORD = 8;
const BONUS_CAMEL = 7;
const BONUS_CONSECUTIVE = -(GAP_START + GAP_EXTENSION);
/** The first typed character's bonus counts this many times (fzf's). */
const FIRST_CHAR_MULTIPLIER = 2;
/** Per character matched inside the file name: `app` finds `node/app.ts` before `app/x/y.ts`. */
const BONUS_FILE_NAME = 2;

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;

function bonusAt(path: string, i: number): number {
  if (i === 0) return BONUS_SEGMENT;
  const before = path.charCodeAt(i - 1);
  if (before === 47 /* / */) return BONUS_SEGMENT;
  if (before === 95 /* _ */ || before === 45 /* - */ || before === 46 /* . */ || before === 32) return BONUS_WORD;
  const here = path.charCodeAt(i);
  if ((isLower(before) && isUpper(here)) || (!isDigit(before) && isDigit(here))) return BONUS_CAMEL;
  return 0;
}

/** The score of the characters of `path` at `at` (ascending), fzf's way. */
function scoreAt(path: string, at: readonly number[], nameAt: number): number {
  let score = 0;
  let chunkBonus = 0;
  for (let k = 0; k < at.length; k++) {
    const i = at[k]!;
    let bonus = bonusAt(path, i);
    if (k > 0 && i === at[k - 1]! + 1) {
      // A run keeps the bonus of where it began: `comp` in `complete` scores as a word start.
      chunkBonus = Math.max(chunkBonus, bonus, BONUS_CONSECUTIVE);
      bonus = chunkBonus;
    } else {
      if (k > 0) score += GAP_START + GAP_EXTENSION * (i - at[k - 1]! - 2);
      chunkBonus = bonus;
    }
    score += SCORE_MATCH + (k === 0 ? bonus * FIRST_CHAR_MULTIPLIER : bonus);
    if (i >= nameAt) score += BONUS_FILE_NAME;
  }
  return score;
}

/**
 * The best score of `query` in `text` (`original`: the path as written, for its capitals), or
 * null when the characters are not all there in order. Two alignments are scored: fzf's (the
 * first end, then the tightest start before it) and the rightmost one, which leans to the file name.
 */
function matchScore(query: string, text: string, original: string, nameAt: number, at: number[]): number | null {
  let end = -1;
  for (let k = 0; k < query.length; k++) {
    end = text.indexOf(query[k]!, end + 1);
    if (end < 0) return null;
  }
  const first = scoreAlignedBefore(query, text, original, nameAt, at, end);
  // Already all in the file name: the rightmost alignment would find nothing better there.
  if (at[0]! >= nameAt || end === text.length - 1) return first;
  return Math.max(first, scoreAlignedBefore(query, text, original, nameAt, at, text.length - 1));
}

/** The score of the tightest alignment of `query` in `text` that ends at or before `from`. */
function scoreAlignedBefore(query: string, text: string, original: string, nameAt: number, at: number[], from: number): number {
  let i = from;
  for (let k = query.length - 1; k >= 0; k--) {
    i = text.lastIndexOf(query[k]!, i);
    at[k] = i;
    i--;
  }
  return scoreAt(original, at, nameAt);
}

type Ranked = { score: number; path: string };

/** Ranks on score, then the shorter path, then by name. */
function better(score: number, path: string, than: Ranked): boolean {
  if (score !== than.score) return score > than.score;
  if (path.length !== than.path.length) return path.length < than.path.length;
  return path < than.path;
}

/** The `limit` paths that match `query` best, best first; an empty query lists shallow paths first. */
export function matchPaths(query: string, list: PreparedPaths, limit: number): string[] {
  return query === "" ? firstByDepth(list, limit) : rank(query, list, limit, null).paths;
}

let warm = false;

/**
 * Matching as a user types, a key at a time: a query that extends the last one can only match
 * paths that one matched, so only those are scanned again.
 */
export class PathMatcher {
  private last: { query: string; matched: Int32Array } | null = null;

  constructor(readonly list: PreparedPaths) {}

  /**
   * Runs the matching a few times over the list, so that V8 has compiled it before the user's
   * first keys (it compiles code once it runs hot: cold, the first keys cost several times more).
   * In slices, giving way between them: a key typed meanwhile waits for one slice at most. Once
   * per host: compiled code serves every list.
   */
  async warmUp(): Promise<void> {
    if (warm) return;
    warm = true;
    const SLICE = 500;
    const within = new Int32Array(SLICE);
    // A first pass over one slice per query, at once: enough calls for V8 to compile the matcher
    // before the first key, which comes tens of milliseconds after the list (the rest is sliced).
    const first = Math.min(SLICE, this.list.paths.length);
    for (let i = 0; i < first; i++) within[i] = i;
    for (let round = 0; round < 4; round++) for (const query of ["e", "s/", "a.t"]) rank(query, this.list, 50, within.subarray(0, first));
    await new Promise((resolve) => setImmediate(resolve));
    for (const query of ["e", "s/", "a.t"]) {
      for (let from = 0; from < this.list.paths.length; from += SLICE) {
        const to = Math.min(from + SLICE, this.list.paths.length);
        for (let i = from; i < to; i++) within[i - from] = i;
        rank(query, this.list, 50, within.subarray(0, to - from));
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  match(query: string, limit: number): string[] {
    if (query === "") {
      this.last = null;
      return firstByDepth(this.list, limit);
    }
    // Adding characters (a capital included: an exact-case match is a case-blind one) only narrows.
    const within = this.last && query.startsWith(this.last.query) ? this.last.matched : null;
    const { paths, matched } = rank(query, this.list, limit, within);
    this.last = { query, matched };
    return paths;
  }
}

/** The best `limit` matches of `query` among `within` (indexes into the list; null: all of it), and every index that matched. */
function rank(query: string, list: PreparedPaths, limit: number, within: Int32Array | null): { paths: string[]; matched: Int32Array } {
  const caseSensitive = query !== query.toLowerCase();
  const texts = caseSensitive ? list.paths : list.lower;
  const at: number[] = Array.from({ length: query.length }, () => 0);
  const count = within ? within.length : texts.length;
  const matched = new Int32Array(count);
  let found = 0;
  // The best so far, kept sorted (best first): a few dozen, so insertion beats sorting every match.
  const top: Ranked[] = [];
  for (let k = 0; k < count; k++) {
    const n = within ? within[k]! : k;
    const path = list.paths[n]!;
    const score = matchScore(query, texts[n]!, path, list.nameAt[n]!, at);
    if (score === null) continue;
    matched[found++] = n;
    if (top.length === limit && !better(score, path, top[limit - 1]!)) continue;
    let i = top.length === limit ? limit - 1 : top.length;
    while (i > 0 && better(score, path, top[i - 1]!)) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = { score, path };
  }
  return { paths: top.map((t) => t.path), matched: matched.subarray(0, found) };
}

function slashes(path: string): number {
  let n = 0;
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) n++;
  return n;
}

function firstByDepth(list: PreparedPaths, limit: number): string[] {
  if (!list.byDepth) {
    const depth = list.paths.map(slashes);
    list.byDepth = list.paths.map((_, i) => i).sort((a, b) => depth[a]! - depth[b]! || (list.paths[a]! < list.paths[b]! ? -1 : 1));
  }
  return list.byDepth.slice(0, limit).map((i) => list.paths[i]!);
}
