/**
 * The checks of values that come from Lua (a request's arguments, the options at `init`): each
 * says whether a value is what the host wants, and if not, says so in words a Lua user reads:
 * `opts.at_message must be an integer >= 0 (got 0.5)`.
 */
import { assertUnreachable } from "../util/assert-unreachable.ts";

/** What was wrong with a value; `name` says where (`opts.wait`, `config.keymaps.send`). */
export type Problem =
  | { kind: "wrong"; name: string; wanted: string; got: unknown }
  | { kind: "unknown-key"; name: string; key: string; known: readonly string[] }
  /** A record's field that was not sent at all (nil is sent as vim.NIL). */
  | { kind: "missing"; name: string };

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: Problem };

/** Checks one value from Lua; `name` is how a problem names it. */
export type Check<T> = (value: unknown, name: string) => Checked<T>;

/** The type a check lets through. */
export type CheckedType<C> = C extends Check<infer T> ? T : never;

export const ok = <T>(value: T): Checked<T> => ({ ok: true, value });

export const wrong = (name: string, wanted: string, got: unknown): Checked<never> => ({
  ok: false,
  problem: { kind: "wrong", name, wanted, got },
});

/** The problem in one line, without the `tine: ...:` its caller puts in front. */
export function say(p: Problem): string {
  switch (p.kind) {
    case "wrong":
      return `${p.name} must be ${p.wanted} (got ${describe(p.got)})`;
    case "unknown-key":
      return `${p.name} has no ${JSON.stringify(p.key)} (it takes ${p.known.join(", ")})`;
    case "missing":
      return `${p.name} is missing (the Lua side sends every field, nil as vim.NIL)`;
    default:
      return assertUnreachable(p);
  }
}

/** A value as Lua would show it: nil, 0.5, "text", true, a table. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value === "object" ? "a table" : typeof value;
}

/** A table with string keys. Lua's `{}` arrives as an empty list (or, from `vim.empty_dict()`, an empty map). */
function isMap(value: unknown): value is Record<string, unknown> {
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && value !== null;
}

/** A check that takes a value as it is when `test` holds. */
function simple<T>(wanted: string, test: (v: unknown) => v is T): Check<T> {
  return (v, name) => (test(v) ? ok(v) : wrong(name, wanted, v));
}

export const string = simple("a string", (v): v is string => typeof v === "string");

export const boolean = simple("a boolean", (v): v is boolean => typeof v === "boolean");

/** A message index, a 0-based line: a whole number, not below 0. */
export const index = simple("an integer >= 0", (v): v is number => Number.isInteger(v) && (v as number) >= 0);

/** A count of seconds, minutes, tokens: any number above 0. */
export const positive = simple("a number above 0", (v): v is number => typeof v === "number" && v > 0);

/** A buffer handle. */
export const bufnr = simple("a buffer number", (v): v is number => Number.isInteger(v) && (v as number) > 0);

/** A thread as `:Tine diff` names it: its id, or its display number (`tine #3 …`), as a string. */
export const threadRef: Check<string> = (v, name) => {
  if (typeof v === "string") return ok(v);
  if (Number.isInteger(v) && (v as number) > 0) return ok(String(v));
  return wrong(name, "a thread (its id or number)", v);
};

/** A code snapshot as the host named it: hex, nothing git could take for an option. */
/** A number, its range checked by whoever reads it (a fan-out's `n`: 1 to `fanout_max`, which only the host knows). */
export const number = simple("a number", (v): v is number => typeof v === "number" && Number.isFinite(v));

/** A shell command, or false for none (a fan-out's `check`). */
export const commandOrFalse = simple(
  "a shell command (a string) or false",
  (v): v is string | false => typeof v === "string" || v === false,
);

export const snapshotId = simple("a snapshot id", (v): v is string => typeof v === "string" && /^[0-9a-f]{40,64}$/.test(v));

/** Any table; its fields are checked by whoever reads them (as parseConfig does). */
export const table = simple("a table", isMap);

/** nil (or a missing argument) is allowed and reads as `undefined`. */
export function optional<T>(check: Check<T>): Check<T | undefined> {
  return (v, name) => {
    if (v === null || v === undefined) return ok(undefined);
    const checked = check(v, name);
    // The value itself was wrong (not a field inside it): the error says nil would do.
    if (!checked.ok && checked.problem.kind === "wrong" && checked.problem.name === name)
      return wrong(name, `${checked.problem.wanted} or nil`, v);
    return checked;
  };
}

/** nil (or a missing argument) is allowed and reads as `null`, as the host stores "unset". */
export function nullable<T>(check: Check<T>): Check<T | null> {
  const orUndefined = optional(check);
  return (v, name) => {
    const checked = orUndefined(v, name);
    return checked.ok ? ok(checked.value ?? null) : checked;
  };
}

export function oneOf<const T extends string>(...values: T[]): Check<T> {
  return simple(`one of ${values.map((x) => `"${x}"`).join(", ")}`, (v): v is T => values.includes(v as T));
}

/** A Lua list, every item checked (`name[1]` is the first); `nonEmpty`: at least one item. */
export function listOf<T>(check: Check<T>, wanted: string, nonEmpty = false): Check<T[]> {
  return (v, name) => {
    const list = isMap(v) && !Array.isArray(v) && Object.keys(v).length === 0 ? [] : v;
    if (!Array.isArray(list) || (nonEmpty && list.length === 0)) return wrong(name, wanted, v);
    const out: T[] = [];
    for (const [i, item] of list.entries()) {
      const checked = check(item, `${name}[${i + 1}]`);
      if (!checked.ok) return checked;
      out.push(checked.value);
    }
    return ok(out);
  };
}

/** A thread's id, or a list of them (`compare`: one thread standing for its fan-out, or the forks). */
export const idOrIds: Check<string | string[]> = (v, name) =>
  typeof v === "string" ? ok(v) : listOf(string, "a thread's id or a list of thread ids")(v, name);

type Shape = Record<string, Check<unknown>>;

/** An options table: any of the keys of `S`, each of its own type. */
export type Options<S extends Shape> = { [K in keyof S]?: CheckedType<S[K]> };

/** A table of options, each optional: only the keys in `shape` (another is an error naming it). */
export function options<S extends Shape>(shape: S): Check<Options<S>> {
  const known = Object.keys(shape);
  return (v, name) => {
    if (!isMap(v)) return wrong(name, `a table (of ${known.join(", ")})`, v);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(v)) {
      // Own keys only: `constructor` is no option.
      const check = Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (!check) return { ok: false, problem: { kind: "unknown-key", name, key, known } };
      const checked = check(value, `${name}.${key}`);
      if (!checked.ok) return checked;
      out[key] = checked.value;
    }
    // Built key by key, each value from that key's own check.
    return ok(out as Options<S>);
  };
}

/** A record's fields: every key of `S`, each of its own type. */
export type Fields<S extends Shape> = { [K in keyof S]: CheckedType<S[K]> };

/**
 * A record: every key of `shape` and no other. A field must be sent even where nil is allowed
 * (as vim.NIL): one the sender forgot is an error, not a quiet nil.
 */
export function record<S extends Shape>(shape: S): Check<Fields<S>> {
  const known = Object.keys(shape);
  return (v, name) => {
    if (!isMap(v)) return wrong(name, "a table", v);
    const unknown = Object.keys(v).find((key) => !Object.hasOwn(shape, key));
    if (unknown !== undefined) return { ok: false, problem: { kind: "unknown-key", name, key: unknown, known } };
    const out: Record<string, unknown> = {};
    for (const [key, check] of Object.entries(shape)) {
      const checked = check(v[key], `${name}.${key}`);
      if (!checked.ok) return checked;
      // Not sent, though nil would do: the sender forgot it (msgpack's nil arrives as null).
      if (v[key] === undefined) return { ok: false, problem: { kind: "missing", name: `${name}.${key}` } };
      out[key] = checked.value;
    }
    // Built key by key, each value from that key's own check.
    return ok(out as Fields<S>);
  };
}

// ---- a request's arguments ----

/** One argument of a request: the name errors call it by, and its check. */
export type Arg<T> = { readonly name: string; readonly check: Check<T> };

export const arg = <T>(name: string, check: Check<T>): Arg<T> => ({ name, check });

/** The values a list of arguments checks to, in order. */
export type ArgValues<A extends readonly Arg<unknown>[]> = { -readonly [K in keyof A]: A[K] extends Arg<infer T> ? T : never };

/**
 * The call's values, checked against `args`, or an error naming the request and the argument:
 * `tine: send: text must be a string (got nil)`. A missing trailing argument is nil.
 */
export function parseArguments<A extends readonly Arg<unknown>[]>(request: string, args: A, values: readonly unknown[]): ArgValues<A> {
  if (values.length > args.length) {
    const names = args.length ? ` (${args.map((a) => a.name).join(", ")})` : "";
    throw new Error(`tine: ${request} takes ${args.length} argument${args.length === 1 ? "" : "s"}${names}, got ${values.length}`);
  }
  const out = args.map((a, i) => {
    const checked = a.check(values[i], a.name);
    if (!checked.ok) throw new Error(`tine: ${request}: ${say(checked.problem)}`);
    return checked.value;
  });
  // One value per argument, in order, each from that argument's own check.
  return out as ArgValues<A>;
}
