/**
 * The options' rules (node/core/options.ts) as the Lua table setup() checks against
 * (lua/tine/option_rules.lua, read by lua/tine/option_checks.lua): the same data, with the order
 * of each table's fields spelled out (`order`, `common_order`), since a Lua table keeps none.
 * `node scripts/option-rules.mjs` writes the file; rules-lua.test.ts fails when it is behind.
 */
import { OPTIONS } from "./options.ts";
import { type Fields, type Rule, record } from "./rules.ts";

export const LUA_RULES_PATH = "lua/tine/option_rules.lua";

/** A rule as Lua reads it: plain data, each table of fields with its order beside it. */
function forLua(rule: Rule): Record<string, unknown> {
  const fields = (f: Fields) => Object.fromEntries(Object.entries(f).map(([name, r]) => [name, forLua(r)]));
  switch (rule.is) {
    case "list":
      return { ...rule, of: forLua(rule.of) };
    case "map":
      return { ...rule, of: forLua(rule.of), ...(rule.key ? { key: forLua(rule.key) } : {}) };
    case "record": {
      // A table of names that all take one rule (the keymaps) is written once, as `each`.
      const rules = new Set(Object.values(rule.fields));
      const [each] = rules;
      const { fields: _, ...rest } = rule;
      if (rules.size === 1 && each && Object.keys(rule.fields).length > 2)
        return { ...rest, each: forLua(each), order: Object.keys(rule.fields) };
      return { ...rule, fields: fields(rule.fields), order: Object.keys(rule.fields) };
    }
    case "variants":
      return {
        ...rule,
        common: fields(rule.common),
        common_order: Object.keys(rule.common),
        pick: rule.pick.map((p) => ({
          ...(p.when ? { when: fields(p.when) } : {}),
          fields: fields(p.fields),
          order: Object.keys(p.fields),
        })),
      };
    case "either":
      return { ...rule, of: rule.of.map(forLua) };
    default:
      return { ...rule };
  }
}

const KEYWORDS = new Set(
  "and break do else elseif end false for function goto if in local nil not or repeat return then true until while".split(" "),
);

/** `value` as a Lua expression, on one line when it fits in `width` columns. */
function lua(value: unknown, indent: string, width: number): string {
  if (typeof value === "string") {
    const quoted = JSON.stringify(value);
    // JSON's escapes that Lua reads the same: \" \\ \n \t; a \u escape would not be.
    if (quoted.includes("\\u")) throw new Error(`no \\u escapes in Lua 5.1: ${quoted}`);
    return quoted;
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const inner = `${indent}  `;
  const items = Array.isArray(value)
    ? value.map((v) => lua(v, inner, width - 2))
    : Object.entries(value as object).map(([k, v]) => {
        const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && !KEYWORDS.has(k) ? k : `[${JSON.stringify(k)}]`;
        return `${name} = ${lua(v, inner, width - 2)}`;
      });
  if (items.length === 0) return "{}";
  const flat = `{ ${items.join(", ")} }`;
  if (flat.length + indent.length <= width && !flat.includes("\n")) return flat;
  if (Array.isArray(value) && value.every((v) => typeof v !== "object")) {
    // A list of names: as many on a line as fit.
    const lines = [""];
    for (const item of items) {
      const line = lines.length - 1;
      if (lines[line] && inner.length + lines[line].length + item.length + 2 > width) lines.push("");
      lines[lines.length - 1] += `${lines[lines.length - 1] ? " " : ""}${item},`;
    }
    return `{\n${lines.map((l) => `${inner}${l}\n`).join("")}${indent}}`;
  }
  return `{\n${items.map((i) => `${inner}${i},\n`).join("")}${indent}}`;
}

/** The whole of lua/tine/option_rules.lua. */
export function luaRulesFile(): string {
  return `-- Generated from node/core/options.ts by \`node scripts/option-rules.mjs\`: change the rules there, not here.
-- What every option setup() takes must be (lua/tine/option_checks.lua checks a value against it); the
-- host checks what it is sent at \`init\` against the same rules (node/host/config.ts).
return ${lua(forLua(record(OPTIONS)), "", 140)}
`;
}
