import { deepStrictEqual as assertEquals, equal, ok } from "node:assert/strict";
import type { Diagnostic, LoadResult } from "../../types.ts";
import { snakeCase } from "./_nanocoder_report.ts";
import { buildJsonSchema } from "./_nanocoder_schema.ts";
import { loadNanocoder } from "./nanocoder.ts";

const PATH = "/p/.nanocoder/tools/t.md";

/** Loads a file whose `parameters:` block is `params` (starting on line 5). */
function load(params: string): LoadResult {
  const text = `---\nname: t\ndescription: D\nparameters:\n${params}\n---\necho hi\n`;
  return loadNanocoder(PATH, text, { mode: null, projectDir: "/p" });
}

function only(result: LoadResult, code: string): Diagnostic {
  const found = result.diagnostics.filter((d) => d.code === code);
  equal(found.length, 1, `one ${code} in ${JSON.stringify(result.diagnostics, null, 1)}`);
  return found[0]!;
}

/** Asserts exactly one diagnostic: its code, full message and line. */
function one(params: string, code: string, message: string, line: number): LoadResult {
  const result = load(params);
  const d = only(result, code);
  equal(d.message, message);
  equal(d.line, line, message);
  equal(result.diagnostics.length, 1, JSON.stringify(result.diagnostics, null, 1));
  return result;
}

const MAPPING = `  ns:
    type: string
    required: true
    enum: [a, b]
  tags:
    type: array
    items: {type: string, extra: 1}
  n:
    type: integer
    min: 1
    max: 10
    default: 3`;

const LIST = `  - name: ns
    type: string
    required: true
    enum: [a, b]
  - name: tags
    type: array
    items: {type: string, extra: 1}
  - {name: n, type: integer, min: 1, max: 10, default: 3}`;

Deno.test("loadNanocoder() parameters: the mapping and list forms give the same schema", () => {
  const a = load(MAPPING);
  const b = load(LIST);
  assertEquals(a.diagnostics, []);
  assertEquals(b.diagnostics, []);
  const expected = {
    type: "object",
    properties: {
      ns: { type: "string", enum: ["a", "b"] },
      tags: { type: "array", items: { type: "string" } },
      n: { type: "integer", default: 3, minimum: 1, maximum: 10 },
    },
    required: ["ns"],
    additionalProperties: false,
  };
  assertEquals(a.tools[0]!.parameters, expected);
  equal(JSON.stringify(b.tools[0]!.parameters), JSON.stringify(expected));
});

Deno.test("loadNanocoder() parameters: a later list entry replaces an earlier one, with a warning", () => {
  const result = load(
    "  - {name: a, type: string, required: true}\n  - {name: b, type: number}\n" +
      "  - {name: a, type: boolean}",
  );
  assertEquals(result.tools[0]!.parameters, {
    type: "object",
    properties: { a: { type: "boolean" }, b: { type: "number" } },
    required: [],
    additionalProperties: false,
  });
  const d = only(result, "nanocoder/duplicate-parameter");
  assertEquals([d.severity, d.line], ["warning", 7]);
});

Deno.test("buildJsonSchema() emits keys in Nanocoder's order, only when set", () => {
  const schema = buildJsonSchema(
    new Map([["p", {
      items: { type: "string" as const },
      max: 9,
      min: 1,
      maxLength: 5,
      minLength: 2,
      pattern: "x",
      enum: ["x"],
      default: "x",
      description: "P",
      required: false,
      type: "string" as const,
    }]]),
  );
  const prop = (schema.properties as Record<string, object>).p!;
  assertEquals(Object.keys(prop), [
    "type",
    "description",
    "default",
    "enum",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "items",
  ]);
  assertEquals(Object.keys(schema), ["type", "properties", "required", "additionalProperties"]);
  assertEquals(schema.required, []);
});

Deno.test("loadNanocoder() parameters: null is {} and a scalar is an error", () => {
  assertEquals(load("").tools[0]!.parameters, {
    type: "object",
    properties: {},
    required: [],
    additionalProperties: false,
  });
  const text = "---\nname: t\ndescription: D\nparameters: namespace\n---\necho\n";
  const d = only(
    loadNanocoder(PATH, text, { mode: null, projectDir: "/" }),
    "nanocoder/invalid-parameters",
  );
  ok(
    d.message.startsWith(
      '"parameters" must be a mapping of name → definition (or a list of {name, type, ...} entries): got "namespace"',
    ),
  );
  equal(d.line, 4);
});

const RULES: [string, string, string, number][] = [
  [
    "  - 5",
    "nanocoder/invalid-parameters",
    'parameters[0] must be a mapping with at least a "name" and "type": got 5; write "- name: my_param" with "type: string" under it',
    5,
  ],
  [
    "  - {type: string}",
    "nanocoder/invalid-parameters",
    'parameters[0] is missing a "name" field: add "name: my_param" to this entry',
    5,
  ],
  [
    "  - {name: '', type: string}",
    "nanocoder/invalid-parameters",
    'parameters[0] is missing a "name" field: add "name: my_param" to this entry',
    5,
  ],
  [
    "  Name-Space: {type: string}",
    "nanocoder/invalid-parameter-name",
    'Invalid parameter name "Name-Space" — must match /^[a-z][a-z0-9_]*$/: rename it to "name_space"',
    5,
  ],
  [
    "  - type: string\n    name: 1st",
    "nanocoder/invalid-parameter-name",
    'Invalid parameter name "1st" — must match /^[a-z][a-z0-9_]*$/: use snake_case starting with a letter',
    6,
  ],
  [
    "  ns: string",
    "nanocoder/invalid-parameter",
    'Parameter "ns" must be a mapping with at least a "type" field: got "string"; write "ns: {type: string}"',
    5,
  ],
  [
    "  ns:\n    description: x",
    "nanocoder/invalid-parameter-type",
    'Parameter "ns" has invalid type "undefined" — expected one of: string, number, integer, boolean, array: add "type: string" (or another of these types)',
    6,
  ],
  [
    "  ns:\n    type: object",
    "nanocoder/invalid-parameter-type",
    'Parameter "ns" has invalid type "object" — expected one of: string, number, integer, boolean, array: "object" is not supported; declare each field as its own parameter, or take a JSON string',
    6,
  ],
  [
    "  ns: {type: String}",
    "nanocoder/invalid-parameter-type",
    'Parameter "ns" has invalid type "String" — expected one of: string, number, integer, boolean, array: write "string" in lower case',
    5,
  ],
  [
    "  ns: {type: int}",
    "nanocoder/invalid-parameter-type",
    'Parameter "ns" has invalid type "int" — expected one of: string, number, integer, boolean, array: write "integer"',
    5,
  ],
  [
    "  ns:\n    type: string\n    description: 5",
    "nanocoder/invalid-parameter-description",
    "parameters.ns.description must be a string: got 5; quote the text",
    7,
  ],
  [
    "  ns:\n    type: string\n    required: yes",
    "nanocoder/invalid-required",
    'Parameter "ns": required must be a boolean: got "yes"; write true or false (YAML 1.2 reads yes, no, on and off as text)',
    7,
  ],
  [
    "  ns: {type: string, required: 'true'}",
    "nanocoder/invalid-required",
    'Parameter "ns": required must be a boolean: got "true"; write true or false',
    5,
  ],
  [
    "  ns: {type: string, enum: a}",
    "nanocoder/invalid-enum",
    'Parameter "ns": enum must be an array: got "a"; write a list such as [a, b]',
    5,
  ],
  [
    "  ns: {type: string, pattern: 5}",
    "nanocoder/invalid-pattern",
    "parameters.ns.pattern must be a string: got 5; quote the pattern in single quotes",
    5,
  ],
  [
    `  ns: {type: string, pattern: '${"a".repeat(1025)}'}`,
    "nanocoder/invalid-pattern",
    'Parameter "ns": pattern is too long (max 1024 chars): it has 1025; shorten it',
    5,
  ],
  [
    "  ns:\n    type: string\n    pattern: '(['",
    "nanocoder/invalid-pattern",
    'Parameter "ns": pattern is not a valid regular expression: Invalid regular expression: /([/: Unterminated character class; fix it and quote it in single quotes',
    7,
  ],
  [
    "  ns: {type: string, minLength: 1.5}",
    "nanocoder/invalid-length",
    "parameters.ns.minLength must be an integer: got 1.5; write a whole number",
    5,
  ],
  [
    "  ns: {type: string, maxLength: '3'}",
    "nanocoder/invalid-length",
    'parameters.ns.maxLength must be a finite number: got "3"; write a whole number such as 1 without quotes',
    5,
  ],
  [
    "  ns: {type: number, min: .inf}",
    "nanocoder/invalid-min-max",
    "parameters.ns.min must be a finite number: got Infinity; write a number such as 0 without quotes",
    5,
  ],
  [
    "  ns: {type: number, max: '9'}",
    "nanocoder/invalid-min-max",
    'parameters.ns.max must be a finite number: got "9"; write a number such as 0 without quotes',
    5,
  ],
  [
    "  ns: {type: array, items: string}",
    "nanocoder/invalid-items",
    'Parameter "ns": items must be a mapping with a "type" field: write items: {type: string}',
    5,
  ],
  [
    "  ns:\n    type: array\n    items:\n      type: object",
    "nanocoder/invalid-items",
    'Parameter "ns": items.type is invalid: got "object"; use one of: string, number, integer, boolean, array',
    8,
  ],
];

Deno.test("loadNanocoder() parameters: each rule has Nanocoder's text, the fix and the line", () => {
  for (const [params, code, message, line] of RULES) {
    const result = one(params, code, message, line);
    equal(result.tools.length, 0, params);
    equal(result.diagnostics[0]!.severity, "error");
  }
});

Deno.test("loadNanocoder() parameters: a 1024-char pattern is accepted", () => {
  const result = load(`  ns: {type: string, pattern: '${"a".repeat(1024)}'}`);
  assertEquals(result.diagnostics, []);
});

Deno.test("loadNanocoder() parameters: reports every problem of every parameter", () => {
  const result = load(
    "  a: {type: object, required: 1}\n  B: {type: string}\n  c: {type: string, min: x}",
  );
  assertEquals(result.diagnostics.map((d) => [d.code, d.line]), [
    ["nanocoder/invalid-parameter-type", 5],
    ["nanocoder/invalid-required", 5],
    ["nanocoder/invalid-parameter-name", 6],
    ["nanocoder/invalid-min-max", 7],
  ]);
});

const WARNINGS: [string, string, string, number][] = [
  [
    "  n: {type: integer, pattern: '^1'}",
    "nanocoder/ineffective-constraint",
    'Parameter "n": pattern has no effect on a "integer" parameter: Nanocoder checks it only for strings; remove it or change the type',
    5,
  ],
  [
    "  s:\n    type: string\n    min: 1",
    "nanocoder/ineffective-constraint",
    'Parameter "s": min has no effect on a "string" parameter: Nanocoder checks it only for numbers; remove it or change the type',
    7,
  ],
  [
    "  s: {type: string, items: {type: string}}",
    "nanocoder/ineffective-constraint",
    'Parameter "s": items has no effect on a "string" parameter: Nanocoder checks it only for arrays; remove it or change the type',
    5,
  ],
  [
    "  n: {type: number, min: 5, max: 1}",
    "nanocoder/empty-range",
    'Parameter "n": min (5) is greater than max (1), so no value is valid: swap them',
    5,
  ],
  [
    "  n:\n    type: integer\n    enum: [1, '2']",
    "nanocoder/invalid-enum-value",
    'Parameter "n": enum value "2" is not of type "integer", so no argument can match it: write it as a integer',
    7,
  ],
  [
    "  n: {type: integer, default: '3'}",
    "nanocoder/invalid-default",
    'Parameter "n": default "3" is not of type "integer": the model is told this default and may copy it; make it a integer',
    5,
  ],
  [
    "  s: {type: string, enum: [a], default: b}",
    "nanocoder/invalid-default",
    'Parameter "s": default "b" is not one of the enum values: add it to enum or change it',
    5,
  ],
  [
    "  s: {type: string, pattern: '\\-'}",
    "nanocoder/pattern-not-unicode",
    'Parameter "s": pattern is not valid with the "u" flag that JSON Schema validators use: Invalid regular expression: /\\-/u: Invalid escape; remove escapes that are not needed, such as "\\-" outside brackets',
    5,
  ],
  [
    "  s:\n    type: string\n    minimum: 1",
    "nanocoder/unknown-parameter-key",
    'Parameter "s": unknown key "minimum" is ignored: did you mean "min"?',
    7,
  ],
  [
    "  s: {type: string, optional: true}",
    "nanocoder/unknown-parameter-key",
    'Parameter "s": unknown key "optional" is ignored: remove it, or use one of: type, description, required, default, enum, pattern, minLength, maxLength, min, max, items',
    5,
  ],
];

Deno.test("loadNanocoder() parameters: warns where Nanocoder accepts a likely mistake, and loads", () => {
  for (const [params, code, message, line] of WARNINGS) {
    const result = one(params, code, message, line);
    equal(result.diagnostics[0]!.severity, "warning");
    equal(result.tools.length, 1, params);
  }
  const schema = load("  n: {type: integer, pattern: '^1', minLength: 1}").tools[0]!.parameters;
  assertEquals((schema as { properties: object }).properties, {
    n: { type: "integer", pattern: "^1", minLength: 1 },
  });
});

Deno.test("snakeCase() turns file-like names into tool names", () => {
  equal(snakeCase("k8s-pods"), "k8s_pods");
  equal(snakeCase("Jira Ticket"), "jira_ticket");
  equal(snakeCase("_x"), "x");
  equal(snakeCase("2fa"), undefined);
  equal(snakeCase("---"), undefined);
});
