import assert from "node:assert/strict";
import type { Diagnostic, JsonValue, ToolDefinition } from "../types.ts";
import { lintSchema, SCHEMA_CODES } from "./lint_schema.ts";

const AT = { file: "/p/tools.json", line: 3, tool: "t" };

function tool(parameters: JsonValue | undefined): ToolDefinition {
  const t: ToolDefinition = {
    name: "t",
    source: { format: "manifest", path: "/p/tools.json", line: 3 },
    runner: { kind: "argv", argv: ["/bin/true"], envPassthrough: [] },
    approval: "never",
    readOnly: false,
    timeoutMs: 1000,
  };
  if (parameters !== undefined) t.parameters = parameters;
  return t;
}

function lint(parameters: JsonValue | undefined): Diagnostic[] {
  return lintSchema(tool(parameters), AT);
}

const codes = (ds: Diagnostic[]) => ds.map((d) => d.code);

Deno.test("lintSchema() accepts a valid object schema", () => {
  assert.deepEqual(
    lint({
      type: "object",
      properties: {
        path: { type: "string", description: "A path", minLength: 1 },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        opts: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      },
      required: ["path"],
      additionalProperties: false,
    }),
    [],
  );
});

Deno.test("lintSchema() says nothing when a manifest sends no schema", () => {
  assert.deepEqual(lint(undefined), []);
});

Deno.test("lintSchema() reports a schema that is not valid JSON Schema once per place", () => {
  const ds = lint({ type: "object", properties: { a: { type: "strin" } } });
  assert.deepEqual(codes(ds), ["schema/invalid"]);
  assert.equal(ds[0].severity, "error");
  assert.match(ds[0].message, /tool "t" is not valid JSON Schema: \/properties\/a\/type must be/);
  assert.match(ds[0].message, /\(array, boolean, integer, null, number, object, string\)/);
  assert.equal(ds[0].file, AT.file);
  assert.equal(ds[0].line, 3);
  assert.equal(ds[0].tool, "t");
  assert.deepEqual(codes(lint({ type: "object", required: "a" })), ["schema/invalid"]);
});

Deno.test("lintSchema() requires an object schema at the top", () => {
  for (const bad of [null, [], "x", 3]) {
    const ds = lint(bad);
    assert.deepEqual(codes(ds), ["schema/not-object"], JSON.stringify(bad));
    assert.match(ds[0].message, /not a JSON Schema object: write \{"type": "object"/);
  }
  const arr = lint({ type: "array" });
  assert.deepEqual(codes(arr), ["schema/not-object"]);
  assert.match(arr[0].message, /has type "array": function calling requires "type": "object"/);
  assert.deepEqual(codes(lint({ properties: {} })), ["schema/not-object"]);
});

Deno.test("lintSchema() warns about unknown keywords anywhere, with a suggestion", () => {
  const ds = lint({
    type: "object",
    properties: {
      a: { type: "string", minLenght: 3 },
      b: { type: "array", items: { type: "string", patern: "x" } },
      c: { anyOf: [{ type: "string", xyzzy: 1 }] },
    },
  });
  assert.deepEqual(codes(ds), Array(3).fill("schema/unknown-keyword"));
  assert.ok(ds.every((d) => d.severity === "warning"));
  assert.match(ds[0].message, /"minLenght" at \/properties\/a: did you mean "minLength"\?/);
  assert.match(ds[1].message, /"patern" at \/properties\/b\/items: did you mean "pattern"\?/);
  assert.match(
    ds[2].message,
    /"xyzzy" at \/properties\/c\/anyOf\/0: remove it or fix its spelling/,
  );
});

Deno.test("lintSchema() does not mistake property names for keywords", () => {
  assert.deepEqual(
    lint({
      type: "object",
      properties: { minLenght: { type: "string" }, foo: { type: "number" } },
    }),
    [],
  );
});

Deno.test("lintSchema() warns when required names an undefined property", () => {
  const ds = lint({
    type: "object",
    properties: {
      a: { type: "string" },
      o: { type: "object", properties: { x: { type: "string" } }, required: ["y"] },
    },
    required: ["a", "b"],
  });
  assert.deepEqual(codes(ds), ["schema/required-not-defined", "schema/required-not-defined"]);
  assert.match(ds[0].message, /requires "b" at \/ but does not define it in "properties"/);
  assert.match(ds[1].message, /requires "y" at \/properties\/o/);
});

Deno.test("lintSchema() codes are all in SCHEMA_CODES with their severity", () => {
  const all = [
    ...lint({
      type: "object",
      properties: { a: { type: "strin", minLenght: 1 } },
      required: ["z"],
    }),
    ...lint(null),
  ];
  const catalogue = new Map(SCHEMA_CODES.map((c) => [c.code, c.severity]));
  assert.equal(new Set(codes(all)).size, 4);
  for (const d of all) assert.equal(catalogue.get(d.code), d.severity, d.code);
});
