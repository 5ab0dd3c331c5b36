/**
 * Whether a tool call's input has the fields its tool declares (its JSON Schema's `required`
 * properties, of the declared simple types), so a malformed call is answered to the model as
 * invalid at once instead of being shown to the user for approval. Only the top level is checked:
 * the tool itself checks the rest when it runs.
 */

type Schema = { readonly properties?: unknown; readonly required?: unknown; readonly additionalProperties?: unknown };

const typeOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);

/** Whether `value` is of JSON Schema type `type` (an integer is a number too). */
function fits(value: unknown, type: unknown): boolean {
  if (Array.isArray(type)) return type.some((t) => fits(value, t));
  if (typeof type !== "string") return true;
  const actual = typeOf(value);
  return actual === type || (type === "number" && actual === "integer");
}

/** Why `input` does not fit `schema` (for the model: what is missing or mistyped, what it has), or null. */
export function inputProblem(tool: string, schema: Schema, input: unknown): string | null {
  if (typeOf(input) !== "object")
    return `Invalid input for ${tool}: an object of fields is expected, not ${typeOf(input)}. Nothing was done.`;
  const fields = input as Record<string, unknown>;
  const properties = (typeOf(schema.properties) === "object" ? schema.properties : {}) as Record<string, { type?: unknown }>;
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const problems: string[] = [];
  const missing = required.filter((r) => !(r in fields));
  if (missing.length) problems.push(`missing ${missing.join(", ")}`);
  for (const [name, value] of Object.entries(fields)) {
    const declared = properties[name];
    if (declared && !fits(value, declared.type)) problems.push(`${name} must be ${String(declared.type)}, not ${typeOf(value)}`);
  }
  const unknown = Object.keys(fields).filter((k) => !(k in properties));
  if (unknown.length && (missing.length || schema.additionalProperties === false)) problems.push(`unknown ${unknown.join(", ")}`);
  if (!problems.length) return null;
  return `Invalid input for ${tool}: ${problems.join("; ")} (its fields: ${Object.keys(properties).join(", ") || "none"}). Nothing was done.`;
}
