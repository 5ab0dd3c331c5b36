/** A server's elicitation request as the form Neovim shows, and the user's answer checked against it. */
import { describe, expect, it } from "vitest";
import { checkAnswer, type ElicitForm, formOf, MAX_FIELDS, MAX_OPTIONS, MAX_REQUEST_CHARS } from "./elicit-form.ts";

const request = (properties: Record<string, unknown>, required: string[] = []) => ({
  message: "Tell me",
  requestedSchema: { type: "object", properties, required },
});

function form(params: unknown): ElicitForm {
  const read = formOf(params);
  if ("problem" in read) throw new Error(read.problem);
  return read.form;
}

const problem = (params: unknown) => {
  const read = formOf(params);
  return "problem" in read ? read.problem : null;
};

describe("formOf", () => {
  it("reads every kind of field, with its title, description and whether it is required", () => {
    const f = form(
      request(
        {
          name: { type: "string", title: "Your name", description: "As on\nyour badge", minLength: 2 },
          age: { type: "integer", minimum: 0, maximum: 150 },
          score: { type: "number" },
          ok: { type: "boolean", title: "Agree?" },
          color: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"] },
          size: {
            type: "string",
            oneOf: [
              { const: "s", title: "Small" },
              { const: "l", title: "Large" },
            ],
          },
          tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, maxItems: 2 },
          pets: { type: "array", items: { anyOf: [{ const: "cat", title: "Cat" }] } },
        },
        ["name"],
      ),
    );
    expect(f.message).toBe("Tell me");
    expect(f.fields.map((x) => [x.name, x.kind, x.title, x.required])).toEqual([
      ["name", "string", "Your name", true],
      ["age", "integer", "age", false],
      ["score", "number", "score", false],
      ["ok", "boolean", "Agree?", false],
      ["color", "choice", "color", false],
      ["size", "choice", "size", false],
      ["tags", "choices", "tags", false],
      ["pets", "choices", "pets", false],
    ]);
    expect(f.fields[0]).toMatchObject({ description: "As on your badge", minLength: 2 });
    expect(f.fields[1]).toMatchObject({ minimum: 0, maximum: 150 });
    expect(f.fields[4]!.options).toEqual([
      { value: "r", title: "Red" },
      { value: "g", title: "Green" },
    ]);
    expect(f.fields[5]!.options).toEqual([
      { value: "s", title: "Small" },
      { value: "l", title: "Large" },
    ]);
    expect(f.fields[6]).toMatchObject({ maxItems: 2, options: [{ value: "a" }, { value: "b" }, { value: "c" }] });
    expect(f.fields[7]!.options).toEqual([{ value: "cat", title: "Cat" }]);
  });

  it("a title too long for its line is cut within 200 characters, the cut marked", () => {
    const [field] = form(request({ a: { type: "string", title: "t".repeat(300) } })).fields;
    expect(field?.title).toBe(`${"t".repeat(199)}…`);
  });

  it("fills in the defaults of string, integer, number, boolean, enum and multi-select fields (SEP-1034); one that does not fit is left out", () => {
    const f = form(
      request({
        name: { type: "string", default: "John Doe" },
        age: { type: "integer", default: 30 },
        score: { type: "number", default: 95.5 },
        ok: { type: "boolean", default: true },
        status: { type: "string", enum: ["active", "inactive"], default: "active" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["b"] },
        badEnum: { type: "string", enum: ["x"], default: "y" },
        badInt: { type: "integer", default: 1.5 },
        badRange: { type: "number", maximum: 3, default: 4 },
        badString: { type: "string", maxLength: 2, default: "long" },
        badBool: { type: "boolean", default: "yes" },
      }),
    );
    expect(Object.fromEntries(f.fields.map((x) => [x.name, x.default]))).toEqual({
      name: "John Doe",
      age: 30,
      score: 95.5,
      ok: true,
      status: "active",
      tags: ["b"],
      badEnum: undefined,
      badInt: undefined,
      badRange: undefined,
      badString: undefined,
      badBool: undefined,
    });
  });

  it("refuses a form too big or malformed, saying why", () => {
    const many = Object.fromEntries(Array.from({ length: MAX_FIELDS + 1 }, (_, i) => [`f${i}`, { type: "string" }]));
    expect(problem(request(many))).toBe(`it asks for ${MAX_FIELDS + 1} fields, over the ${MAX_FIELDS} a form may have`);
    expect(problem(request({ a: { type: "string", description: "x".repeat(MAX_REQUEST_CHARS) } }))).toMatch(
      /characters long, over the 32000/,
    );
    const options = Array.from({ length: MAX_OPTIONS + 1 }, (_, i) => `o${i}`);
    expect(problem(request({ a: { type: "string", enum: options } }))).toBe(
      `field "a": it offers ${MAX_OPTIONS + 1} choices, over the ${MAX_OPTIONS} a field may`,
    );
    expect(problem(request({ a: { type: "object", properties: {} } }))).toMatch(/^field "a": its type "object" is not one a form asks/);
    expect(problem(request({ a: { type: "array", items: { type: "number" } } }))).toBe(
      'field "a": it is a list of something other than choices',
    );
    expect(problem(request({ a: { type: "string", enum: [1, 2] } }))).toBe('field "a": its enum is not a list of strings');
    expect(problem(request({ a: "string" }))).toBe('field "a": it is not a schema');
    expect(problem({ message: "m", requestedSchema: { type: "array" } })).toBe(
      "its requestedSchema is not an object schema with properties",
    );
    expect(problem({ requestedSchema: { type: "object", properties: {} } })).toBe("its request has no message");
    expect(problem({ message: "m", requestedSchema: { type: "object", properties: {}, required: "a" } })).toMatch(/required is not a list/);
    expect(problem({ mode: "url", message: "m", url: "https://x", elicitationId: "1" })).toMatch(/URL mode/);
    expect(problem(null)).toBe("its request has no parameters");
  });

  it("a form with no fields asks only to accept or decline", () => {
    expect(form({ message: "Go on?", requestedSchema: { type: "object", properties: {} } }).fields).toEqual([]);
  });
});

describe("checkAnswer", () => {
  const f = form(
    request(
      {
        name: { type: "string", minLength: 2 },
        mail: { type: "string", format: "email" },
        day: { type: "string", format: "date" },
        age: { type: "integer", minimum: 0 },
        score: { type: "number", maximum: 10 },
        ok: { type: "boolean" },
        color: { type: "string", enum: ["r", "g"] },
        tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, maxItems: 2 },
      },
      ["name", "age"],
    ),
  );

  it("turns what was typed into the schema's types; an optional field left empty is left out", () => {
    expect(checkAnswer(f, { name: "Ann", age: "42", score: " 9.5 ", ok: false, color: "g", tags: ["a", "c"], mail: "" })).toEqual({
      content: { name: "Ann", age: 42, score: 9.5, ok: false, color: "g", tags: ["a", "c"] },
    });
  });

  it("says what does not fit, field by field, by its title", () => {
    const answer = { name: "Ann", age: "42" };
    expect(checkAnswer(f, { age: "1" })).toEqual({ problem: "name is required" });
    expect(checkAnswer(f, { ...answer, name: "A" })).toEqual({ problem: "name: at least 2 characters" });
    expect(checkAnswer(f, { ...answer, age: "4.5" })).toEqual({ problem: "age: not a whole number" });
    expect(checkAnswer(f, { ...answer, age: "-1" })).toEqual({ problem: "age: at least 0" });
    expect(checkAnswer(f, { ...answer, age: "twelve" })).toEqual({ problem: "age: not a number" });
    expect(checkAnswer(f, { ...answer, score: "11" })).toEqual({ problem: "score: at most 10" });
    expect(checkAnswer(f, { ...answer, mail: "nobody" })).toEqual({ problem: "mail: not an email address" });
    expect(checkAnswer(f, { ...answer, day: "2026-13-45" })).toEqual({ problem: "day: not a date (YYYY-MM-DD)" });
    expect(checkAnswer(f, { ...answer, ok: "yes" })).toEqual({ problem: "ok: not yes or no" });
    expect(checkAnswer(f, { ...answer, color: "blue" })).toEqual({ problem: "color: not one of its choices" });
    expect(checkAnswer(f, { ...answer, tags: ["a", "b", "c"] })).toEqual({ problem: "tags: at most 2 choices" });
    expect(checkAnswer(f, { ...answer, tags: ["z"] })).toEqual({ problem: "tags: not among its choices" });
    expect(checkAnswer(f, { ...answer, tags: ["a", "a"] })).toEqual({ problem: "tags: a choice given twice" });
  });

  it("takes only the form's fields", () => {
    expect(checkAnswer(f, { name: "Ann", age: 3, extra: "sneaked in" })).toEqual({ content: { name: "Ann", age: 3 } });
  });
});
