import type { Checked } from "./checks.ts";
import { ok, wrong } from "./checks.ts";

/**
 * Rules as data: what a value from Lua must be (type, bounds, values, fields) and the words a
 * problem says it must be (`wanted`), written once as plain data so that two small checkers
 * read the same rules: `check` here, and lua/tine/option_checks.lua over the copy
 * node/core/rules-lua.ts writes (lua/tine/option_rules.lua). The options' rules are in
 * node/core/options.ts; the TypeScript type of a checked value follows from its rule (`Value`).
 *
 * A little over 300 lines: each kind of rule needs its type, its check and its `Value` side by
 * side, so that a new kind is added in one file and the compiler keeps the three in step.
 */

/** What every rule carries: `wanted` ends "must be …"; `nullable`: nil is a value; `optional`: a field that may be left out. */
type Common = { readonly wanted: string; readonly nullable?: true; readonly optional?: true };

export type Fields = { readonly [name: string]: Rule };

/** One shape of a `variants` table: its own fields, taken when one of `when`'s fields is given and passes (the one without `when` otherwise). */
export type Variant = { readonly when?: Fields; readonly fields: Fields };

/** A field a record or variants table refuses, or leaves out of the value. */
export type Extra = "refused" | "dropped";

/** A number's bounds. */
type Bounds = {
  readonly whole?: true;
  readonly finite?: true;
  readonly min?: number;
  readonly above?: number;
  readonly max?: number;
  /** Below the number another option holds (thinking's budget below max_tokens). */
  readonly below_option?: string;
};

export type Rule = Common &
  (
    | {
        readonly is: "string";
        readonly non_empty?: true;
        readonly max_length?: number;
        readonly chars?: string;
        /** It begins with one of these (plain text, not patterns: Lua and JS compare them alike). */
        readonly starts?: readonly string[];
      }
    | { readonly is: "boolean" }
    | ({ readonly is: "number" } & Bounds)
    | { readonly is: "one_of"; readonly values: readonly string[] }
    | { readonly is: "literal"; readonly value: boolean }
    | { readonly is: "list"; readonly of: Rule; readonly non_empty?: true }
    /** Names to values; `names`: how a problem names an entry, `servers.gh` or `prices["claude-x"]`. */
    | { readonly is: "map"; readonly of: Rule; readonly key?: Rule; readonly names: "dotted" | "quoted" }
    | { readonly is: "record"; readonly fields: Fields; readonly extra: Extra }
    | {
        readonly is: "variants";
        readonly common: Fields;
        readonly pick: readonly Variant[];
        /** Where the problem is when no variant is picked. */
        readonly unmatched?: { readonly field: string; readonly wanted: string };
        readonly extra: Extra;
      }
    /** The first rule the value passes; else the problem inside a table that fit one, or `wanted`. */
    | { readonly is: "either"; readonly of: readonly Rule[] }
  );

// ---- the rules' words, made once here ----

export const str = (wanted = "a string") => ({ is: "string", wanted }) as const;

export const nonEmptyStr = (wanted = "a non-empty string") => ({ is: "string", non_empty: true, wanted }) as const;

/** A string of at least one character, at most `max_length`, only of `chars` (a regex class body both Lua and JS read). */
export const word = (wanted: string, max_length: number, chars: string) =>
  ({ is: "string", non_empty: true, max_length, chars, wanted }) as const;

/** A path tine reads as the user wrote it: absolute, or under the home folder (`~/`); a relative one would depend on where Neovim started. */
export const path = (wanted = "an absolute path or one starting with ~/") => ({ is: "string", starts: ["/", "~/"], wanted }) as const;

export const bool = (wanted = "a boolean") => ({ is: "boolean", wanted }) as const;

/** `a number above 0`, `a whole number >= 1` unless `wanted` says it better. */
export const num = <const B extends Bounds>(bounds: B, wanted?: string) =>
  ({
    is: "number",
    ...bounds,
    wanted:
      wanted ??
      [
        bounds.whole ? "a whole number" : "a number",
        bounds.min === undefined ? "" : ` >= ${bounds.min}`,
        bounds.above === undefined ? "" : ` above ${bounds.above}`,
        bounds.max === undefined ? "" : `, at most ${bounds.max}`,
      ].join(""),
  }) as const;

export const oneOf = <const V extends readonly string[]>(...values: V) =>
  ({ is: "one_of", values, wanted: `one of ${values.map((v) => `"${v}"`).join(", ")}` }) as const;

export const literal = <const V extends boolean>(value: V) => ({ is: "literal", value, wanted: String(value) }) as const;

export const listOf = <const R extends Rule>(of: R, wanted: string) => ({ is: "list", of, wanted }) as const;

export const nonEmptyListOf = <const R extends Rule>(of: R, wanted: string) => ({ is: "list", of, non_empty: true, wanted }) as const;

export const mapOf = <const R extends Rule, const K extends Rule>(of: R, wanted: string, names: "dotted" | "quoted", key?: K) =>
  ({ is: "map", of, wanted, names, ...(key ? { key } : {}) }) as const;

export const record = <const F extends Fields>(fields: F, wanted = "a table", extra: Extra = "refused") =>
  ({ is: "record", fields, wanted, extra }) as const;

export const either = <const A extends readonly Rule[]>(wanted: string, ...of: A) => ({ is: "either", of, wanted }) as const;

/** nil is a value (a record's field must still be sent: as vim.NIL). */
export const nullable = <const R extends Rule>(rule: R) => ({ ...rule, nullable: true, wanted: `${rule.wanted} or nil` }) as const;

/** A field that may be left out (or nil). */
export const optional = <const R extends Rule>(rule: R) => ({ ...rule, optional: true }) as const;

/** A table of one of several shapes: `common`'s fields, then those of the shape `pick` finds. */
export const variants = <const C extends Fields, const P extends readonly Variant[]>(spec: {
  wanted: string;
  common: C;
  pick: P;
  extra: Extra;
}) => ({ is: "variants", ...spec }) as const;

/** A table whose `tag` field names its shape: each shape's fields, the tag's own value among them. */
export function tagged<const T extends string, const C extends Fields, const V extends { readonly [tag: string]: Fields }>(spec: {
  tag: T;
  wanted: string;
  unmatched: string;
  common: C;
  variants: V;
  extra: Extra;
}) {
  const pick = Object.entries(spec.variants).map(([value, fields]) => {
    const is = { [spec.tag]: oneOf(value) };
    return { when: is, fields: { ...is, ...fields } };
  });
  return {
    is: "variants",
    wanted: spec.wanted,
    common: spec.common,
    pick: pick as unknown as readonly TaggedVariant<T, V>[],
    unmatched: { field: spec.tag, wanted: spec.unmatched },
    extra: spec.extra,
  } as const;
}

type TaggedVariant<T extends string, V> = {
  [K in keyof V & string]: {
    readonly when: Fields;
    readonly fields: V[K] & { readonly [P in T]: { is: "one_of"; values: readonly [K]; wanted: string } };
  };
}[keyof V & string];

// ---- the type a rule lets through ----

/** The value a rule lets through, as the checker returns it. */
export type Value<R> = R extends { readonly nullable: true } ? Plain<R> | null : Plain<R>;

type Plain<R> = R extends { readonly is: "string" }
  ? string
  : R extends { readonly is: "boolean" }
    ? boolean
    : R extends { readonly is: "number" }
      ? number
      : R extends { readonly is: "one_of"; readonly values: readonly (infer V)[] }
        ? V
        : R extends { readonly is: "literal"; readonly value: infer V }
          ? V
          : R extends { readonly is: "list"; readonly of: infer I }
            ? Value<I>[]
            : R extends { readonly is: "map"; readonly of: infer I }
              ? Record<string, Value<I>>
              : R extends { readonly is: "record"; readonly fields: infer F }
                ? FieldValues<F>
                : R extends { readonly is: "variants"; readonly common: infer C; readonly pick: readonly (infer V)[] }
                  ? VariantValue<C, V>
                  : R extends { readonly is: "either"; readonly of: readonly (infer A)[] }
                    ? EitherValue<A>
                    : never;

type EitherValue<A> = A extends unknown ? Value<A> : never;
type VariantValue<C, V> = V extends { readonly fields: infer F } ? Flat<FieldValues<C> & FieldValues<F>> : never;
type Flat<T> = { [K in keyof T]: T[K] } & {};
type FieldValues<F> = Flat<
  { -readonly [K in keyof F as F[K] extends { readonly optional: true } ? never : K]: Value<F[K]> } & {
    -readonly [K in keyof F as F[K] extends { readonly optional: true } ? K : never]?: Value<F[K]>;
  }
>;

// ---- the checker ----

/** A table with string keys. Lua's `{}` arrives as an empty list (or, from `vim.empty_dict()`, an empty map). */
function isMap(value: unknown): value is Record<string, unknown> {
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && value !== null;
}

/**
 * `value` against `rule`; `name` is how a problem names it (`config.sidebar.width`), `root` the
 * whole table an option's rule may compare with (`below_option`).
 */
export function check<R extends Rule>(rule: R, value: unknown, name: string, root: unknown = value): Checked<Value<R>> {
  // The checker follows the rule, as Value follows it: what passes has the rule's type.
  return checkAny(rule, value, name, root) as Checked<Value<R>>;
}

function checkAny(rule: Rule, v: unknown, name: string, root: unknown): Checked<unknown> {
  if (v === null || v === undefined)
    return rule.nullable || rule.optional ? ok(rule.nullable ? null : undefined) : wrong(name, rule.wanted, v);
  const fail = () => wrong(name, rule.wanted, v);
  switch (rule.is) {
    case "string":
      if (typeof v !== "string" || (rule.non_empty && v === "")) return fail();
      if (rule.max_length !== undefined && v.length > rule.max_length) return fail();
      if (rule.starts !== undefined && !rule.starts.some((s) => v.startsWith(s))) return fail();
      return rule.chars === undefined || new RegExp(`^[${rule.chars}]*$`).test(v) ? ok(v) : fail();
    case "boolean":
      return typeof v === "boolean" ? ok(v) : fail();
    case "number":
      return typeof v === "number" && inBounds(rule, v, root) ? ok(v) : fail();
    case "one_of":
      return rule.values.includes(v as string) ? ok(v) : fail();
    case "literal":
      return v === rule.value ? ok(v) : fail();
    case "list": {
      const list = isMap(v) && !Array.isArray(v) && Object.keys(v).length === 0 ? [] : v;
      if (!Array.isArray(list) || (rule.non_empty && list.length === 0)) return fail();
      const out: unknown[] = [];
      for (const [i, item] of list.entries()) {
        const checked = checkAny(rule.of, item, `${name}[${i + 1}]`, root);
        if (!checked.ok) return checked;
        out.push(checked.value);
      }
      return ok(out);
    }
    case "map": {
      if (!isMap(v)) return fail();
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v)) {
        const at = rule.names === "dotted" ? `${name}.${key}` : `${name}["${key}"]`;
        const named = rule.key ? checkAny(rule.key, key, at, root) : ok(key);
        if (!named.ok) return named;
        const checked = checkAny(rule.of, item, at, root);
        if (!checked.ok) return checked;
        out[key] = checked.value;
      }
      return ok(out);
    }
    case "record":
      if (!isMap(v)) return fail();
      return fieldsOf(rule.fields, rule.extra, v, name, root);
    case "variants": {
      if (!isMap(v)) return fail();
      const common = fieldsOf(rule.common, rule.extra, v, name, root, [rule.common, ...rule.pick.map((p) => p.fields)]);
      if (!common.ok) return common;
      const given = (field: string, r: Rule) => v[field] !== undefined && v[field] !== null && checkAny(r, v[field], name, root).ok;
      const picked =
        rule.pick.find((p) => p.when && Object.entries(p.when).some(([field, r]) => given(field, r))) ?? rule.pick.find((p) => !p.when);
      if (!picked) {
        const at = rule.unmatched;
        return at ? wrong(`${name}.${at.field}`, at.wanted, v[at.field]) : fail();
      }
      const own = fieldsOf(picked.fields, "dropped", v, name, root);
      return own.ok ? ok({ ...(common.value as object), ...(own.value as object) }) : own;
    }
    case "either": {
      let inside: Checked<unknown> | undefined;
      for (const alternative of rule.of) {
        const checked = checkAny(alternative, v, name, root);
        if (checked.ok) return checked;
        if (!inside && (checked.problem.kind !== "wrong" || checked.problem.name !== name)) inside = checked;
      }
      return inside ?? fail();
    }
  }
}

function inBounds(rule: Extract<Rule, { is: "number" }>, v: number, root: unknown): boolean {
  if ((rule.whole && !Number.isInteger(v)) || (rule.finite && !Number.isFinite(v))) return false;
  if ((rule.min !== undefined && !(v >= rule.min)) || (rule.above !== undefined && !(v > rule.above))) return false;
  if (rule.max !== undefined && !(v <= rule.max)) return false;
  const limit = rule.below_option !== undefined && isMap(root) ? root[rule.below_option] : undefined;
  return typeof limit !== "number" || v < limit;
}

/**
 * The `fields` of table `v`, in order: each checked, one not sent (though nil would do) a
 * problem of its own, and (`extra` refused) a key none of `known` names is one too.
 */
function fieldsOf(
  fields: Fields,
  extra: Extra,
  v: Record<string, unknown>,
  name: string,
  root: unknown,
  known: readonly Fields[] = [fields],
): Checked<Record<string, unknown>> {
  if (extra === "refused") {
    const names = [...new Set(known.flatMap((f) => Object.keys(f)))];
    const unknown = Object.keys(v).find((key) => !names.includes(key));
    if (unknown !== undefined) return { ok: false, problem: { kind: "unknown-key", name, key: unknown, known: names } };
  }
  const out: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(fields)) {
    const checked = checkAny(rule, v[key], `${name}.${key}`, root);
    if (!checked.ok) return checked;
    // Not sent, though nil would do: the sender forgot it (msgpack's nil arrives as null).
    if (v[key] === undefined && !rule.optional) return { ok: false, problem: { kind: "missing", name: `${name}.${key}` } };
    if (checked.value !== undefined) out[key] = checked.value;
  }
  return ok(out);
}
