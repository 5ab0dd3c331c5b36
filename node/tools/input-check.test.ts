import { describe, expect, it } from "vitest";
import { inputProblem } from "./input-check.ts";
import { TOOL_SPECS } from "./specs.ts";

const editFile = TOOL_SPECS.find((t) => t.name === "edit_file")!.input_schema;

describe("a tool call's input against its tool's fields", () => {
  it("edit_file with the wrong field names is invalid, naming what is missing and what it had", () => {
    expect(inputProblem("edit_file", editFile, { path: "a.ts", old_str: "x", new_str: "y" })).toBe(
      "Invalid input for edit_file: missing find, replace; unknown old_str, new_str (its fields: path, find, replace). Nothing was done.",
    );
  });

  it("a mistyped field or a non-object input is invalid; a whole one is not", () => {
    expect(inputProblem("edit_file", editFile, { path: "a.ts", find: 1, replace: "y" })).toMatch(/find must be string, not integer/);
    expect(inputProblem("edit_file", editFile, "a.ts")).toMatch(/an object of fields is expected, not string/);
    expect(inputProblem("edit_file", editFile, { path: "a.ts", find: "", replace: "y" })).toBeNull();
    expect(inputProblem("t", { properties: { n: { type: "number" } }, required: ["n"] }, { n: 3 })).toBeNull();
  });
});
