/**
 * An MCP server's `elicitation/create` (form mode) as the form Neovim shows, and the user's answer
 * checked against it before it goes back. Nothing of the request is trusted: its schema is read
 * field by field (the spec's flat subset: strings, numbers, integers, booleans, single- and
 * multi-select enums, SEP-1330), bounded in size, and anything else is refused with a reason the
 * user reads. Defaults (SEP-1034) that fit their field fill it in; one that does not is left out.
 * Pure: elicitations.ts holds the requests, lua/tine/elicit.lua asks the user.
 */

import { oneLine } from "../core/one-line.ts";
import { isObject } from "../core/shapes.ts";

/** The most fields a form may have, the longest its request may be (as JSON), the most choices a field may offer. */
export const MAX_FIELDS = 20;
export const MAX_REQUEST_CHARS = 32_000;
export const MAX_OPTIONS = 100;
/** How much of a message, a title and a description is shown (the rest is cut, marked with …). */
const MAX_MESSAGE_CHARS = 2000;
const MAX_TITLE_CHARS = 200;
const MAX_DESCRIPTION_CHARS = 500;
const MAX_NAME_CHARS = 64;

export type FieldKind = "string" | "number" | "integer" | "boolean" | "choice" | "choices";

export type StringFormat = "email" | "uri" | "date" | "date-time";

export type ChoiceOption = { readonly value: string; readonly title: string };

/** A value as the server gets it back. */
export type FieldValue = string | number | boolean | string[];

/** One field of the form, as Lua shows it (its `name` is the property's). */
export type FormField = {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly required: boolean;
  readonly kind: FieldKind;
  readonly default?: FieldValue;
  /** A choice's or choices' options, in the server's order. */
  readonly options?: readonly ChoiceOption[];
  readonly format?: StringFormat;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
};

export type ElicitForm = { readonly message: string; readonly fields: readonly FormField[] };

type Json = Record<string, unknown>;
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
const numberOr = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const stringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
const FORMATS: readonly StringFormat[] = ["email", "uri", "date", "date-time"];

/** The form a request asks for, or why it cannot be shown. */
export function formOf(params: unknown): { form: ElicitForm } | { problem: string } {
  let chars: number;
  try {
    chars = JSON.stringify(params)?.length ?? 0;
  } catch {
    return { problem: "its request cannot be read" };
  }
  if (chars > MAX_REQUEST_CHARS) return { problem: `its request is ${chars} characters long, over the ${MAX_REQUEST_CHARS} a form may be` };
  if (!isObject(params)) return { problem: "its request has no parameters" };
  if (params.mode === "url") return { problem: "it asks to open a web page (URL mode), which tine does not do" };
  if (params.mode !== undefined && params.mode !== "form")
    return { problem: `its mode ${JSON.stringify(params.mode)} is not one tine knows` };
  if (typeof params.message !== "string") return { problem: "its request has no message" };
  const schema = params.requestedSchema;
  if (!isObject(schema) || schema.type !== "object" || !isObject(schema.properties))
    return { problem: "its requestedSchema is not an object schema with properties" };
  const names = Object.keys(schema.properties);
  if (names.length > MAX_FIELDS) return { problem: `it asks for ${names.length} fields, over the ${MAX_FIELDS} a form may have` };
  const required = schema.required === undefined ? [] : schema.required;
  if (!stringList(required)) return { problem: "its requestedSchema's required is not a list of names" };
  const fields: FormField[] = [];
  for (const name of names) {
    const read = fieldOf(name, schema.properties[name], required.includes(name));
    if ("problem" in read) return { problem: `field ${JSON.stringify(cut(name, MAX_NAME_CHARS))}: ${read.problem}` };
    fields.push(read.field);
  }
  return { form: { message: cut(params.message.trim(), MAX_MESSAGE_CHARS), fields } };
}

function fieldOf(name: string, prop: unknown, required: boolean): { field: FormField } | { problem: string } {
  if (name.length > MAX_NAME_CHARS) return { problem: `its name is over ${MAX_NAME_CHARS} characters` };
  if (!isObject(prop)) return { problem: "it is not a schema" };
  const title = typeof prop.title === "string" && prop.title.trim() ? oneLine(prop.title, MAX_TITLE_CHARS) : oneLine(name, MAX_TITLE_CHARS);
  const description = typeof prop.description === "string" ? oneLine(prop.description, MAX_DESCRIPTION_CHARS) : "";
  const base = { name, title, description, required };
  switch (prop.type) {
    case "boolean":
      return { field: { ...base, kind: "boolean", ...(typeof prop.default === "boolean" ? { default: prop.default } : {}) } };
    case "number":
    case "integer": {
      const kind = prop.type;
      const minimum = numberOr(prop.minimum);
      const maximum = numberOr(prop.maximum);
      const field: FormField = {
        ...base,
        kind,
        ...(minimum !== undefined ? { minimum } : {}),
        ...(maximum !== undefined ? { maximum } : {}),
      };
      const fits = numberProblem(field, prop.default) === null;
      return { field: fits && typeof prop.default === "number" ? { ...field, default: prop.default } : field };
    }
    case "string": {
      const options = optionsOf(prop);
      if (options !== null) {
        if ("problem" in options) return options;
        const fits = typeof prop.default === "string" && options.list.some((o) => o.value === prop.default);
        return { field: { ...base, kind: "choice", options: options.list, ...(fits ? { default: prop.default as string } : {}) } };
      }
      const format = FORMATS.find((f) => f === prop.format);
      const minLength = numberOr(prop.minLength);
      const maxLength = numberOr(prop.maxLength);
      const field: FormField = {
        ...base,
        kind: "string",
        ...(format ? { format } : {}),
        ...(minLength !== undefined ? { minLength } : {}),
        ...(maxLength !== undefined ? { maxLength } : {}),
      };
      return {
        field:
          typeof prop.default === "string" && stringProblem(field, prop.default) === null ? { ...field, default: prop.default } : field,
      };
    }
    case "array": {
      const options = isObject(prop.items) ? optionsOf(prop.items) : null;
      if (options === null) return { problem: "it is a list of something other than choices" };
      if ("problem" in options) return options;
      const minItems = numberOr(prop.minItems);
      const maxItems = numberOr(prop.maxItems);
      const field: FormField = {
        ...base,
        kind: "choices",
        options: options.list,
        ...(minItems !== undefined ? { minItems } : {}),
        ...(maxItems !== undefined ? { maxItems } : {}),
      };
      return {
        field: stringList(prop.default) && choicesProblem(field, prop.default) === null ? { ...field, default: prop.default } : field,
      };
    }
    default:
      return {
        problem: `its type ${cut(JSON.stringify(prop.type) ?? "(none)", 40)} is not one a form asks (string, number, integer, boolean, or a list of choices)`,
      };
  }
}

/** The choices a string schema offers (`enum` with optional `enumNames`, `oneOf`/`anyOf` of const and title), or null: it offers none. */
function optionsOf(schema: Json): { list: ChoiceOption[] } | { problem: string } | null {
  const titled = schema.oneOf ?? schema.anyOf;
  let list: ChoiceOption[];
  if (schema.enum !== undefined) {
    if (!stringList(schema.enum)) return { problem: "its enum is not a list of strings" };
    const names = stringList(schema.enumNames) && schema.enumNames.length === schema.enum.length ? schema.enumNames : null;
    list = schema.enum.map((value, i) => ({ value, title: oneLine(names?.[i] ?? value, MAX_TITLE_CHARS) }));
  } else if (titled !== undefined) {
    if (!Array.isArray(titled) || !titled.every((o) => isObject(o) && typeof o.const === "string"))
      return { problem: "its choices are not a list of { const, title }" };
    list = titled.map((o) => ({
      value: o.const as string,
      title: oneLine(typeof o.title === "string" ? o.title : (o.const as string), MAX_TITLE_CHARS),
    }));
  } else return null;
  if (list.length === 0) return { problem: "it offers no choice" };
  if (list.length > MAX_OPTIONS) return { problem: `it offers ${list.length} choices, over the ${MAX_OPTIONS} a field may` };
  return { list };
}

/** What the user entered: text for a string or number field (as typed), a boolean, a choice's value, a list of values. */
export type Entered = Readonly<Record<string, unknown>>;

/** The content the server gets, or the first reason the answer does not fit the form (the user is asked again). */
export function checkAnswer(form: ElicitForm, entered: Entered): { content: Record<string, FieldValue> } | { problem: string } {
  const content: Record<string, FieldValue> = {};
  for (const field of form.fields) {
    const raw = entered[field.name];
    const empty =
      raw === undefined ||
      raw === null ||
      (typeof raw === "string" && raw.trim() === "") ||
      (Array.isArray(raw) && raw.length === 0 && field.kind !== "choices");
    if (empty) {
      if (field.required) return { problem: `${field.title} is required` };
      continue;
    }
    const read = enteredValue(field, raw);
    if ("problem" in read) return { problem: `${field.title}: ${read.problem}` };
    content[field.name] = read.value;
  }
  return { content };
}

function enteredValue(field: FormField, raw: unknown): { value: FieldValue } | { problem: string } {
  switch (field.kind) {
    case "string": {
      if (typeof raw !== "string") return { problem: "not text" };
      const problem = stringProblem(field, raw);
      return problem ? { problem } : { value: raw };
    }
    case "number":
    case "integer": {
      const value =
        typeof raw === "number"
          ? raw
          : typeof raw === "string" && /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(raw)
            ? Number(raw)
            : Number.NaN;
      const problem = numberProblem(field, value);
      return problem ? { problem } : { value };
    }
    case "boolean":
      return typeof raw === "boolean" ? { value: raw } : { problem: "not yes or no" };
    case "choice":
      return typeof raw === "string" && field.options!.some((o) => o.value === raw)
        ? { value: raw }
        : { problem: "not one of its choices" };
    case "choices": {
      if (!stringList(raw)) return { problem: "not a list of choices" };
      const problem = choicesProblem(field, raw);
      return problem ? { problem } : { value: raw };
    }
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function stringProblem(field: FormField, value: string): string | null {
  const length = [...value].length;
  if (field.minLength !== undefined && length < field.minLength) return `at least ${field.minLength} characters`;
  if (field.maxLength !== undefined && length > field.maxLength) return `at most ${field.maxLength} characters`;
  switch (field.format) {
    case undefined:
      return null;
    case "email":
      return EMAIL.test(value) ? null : "not an email address";
    case "uri":
      return /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value) ? null : "not a URI";
    case "date":
      return DATE.test(value) && !Number.isNaN(Date.parse(value)) ? null : "not a date (YYYY-MM-DD)";
    case "date-time":
      return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? null : "not a date and time (YYYY-MM-DDThh:mm:ssZ)";
  }
}

function numberProblem(field: FormField, value: unknown): string | null {
  if (typeof value !== "number" || !Number.isFinite(value)) return "not a number";
  if (field.kind === "integer" && !Number.isInteger(value)) return "not a whole number";
  if (field.minimum !== undefined && value < field.minimum) return `at least ${field.minimum}`;
  if (field.maximum !== undefined && value > field.maximum) return `at most ${field.maximum}`;
  return null;
}

function choicesProblem(field: FormField, values: readonly string[]): string | null {
  if (values.some((v) => !field.options!.some((o) => o.value === v))) return "not among its choices";
  if (new Set(values).size !== values.length) return "a choice given twice";
  if (field.minItems !== undefined && values.length < field.minItems) return `at least ${field.minItems} choices`;
  if (field.maxItems !== undefined && values.length > field.maxItems) return `at most ${field.maxItems} choices`;
  return null;
}
