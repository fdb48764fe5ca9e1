import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { compileMini, deepEqual } from "./mini_schema.ts";

/** A deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = ["string", "number", "integer", "boolean", "array", "object", "null"];

function randomSchema(r: () => number, depth: number): Record<string, unknown> {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const s: Record<string, unknown> = {};
  const type = r() < 0.2
    ? [pick(TYPES), pick(TYPES)].filter((t, i, a) => a.indexOf(t) === i)
    : pick(TYPES);
  if (r() < 0.9) s.type = type;
  const t = Array.isArray(type) ? type[0] : type;
  if (t === "string") {
    if (r() < 0.4) s.minLength = Math.floor(r() * 3);
    if (r() < 0.4) s.maxLength = Math.floor(r() * 5);
    if (r() < 0.3) s.pattern = pick(["^a", "b$", "^[a-z]+$", "\\d", "é"]);
    if (r() < 0.2) s.enum = ["a", "bb", "é", 1];
  }
  if (t === "number" || t === "integer") {
    if (r() < 0.4) s.minimum = Math.floor(r() * 10) - 5;
    if (r() < 0.4) s.maximum = Math.floor(r() * 10);
    if (r() < 0.2) s.exclusiveMinimum = Math.floor(r() * 4) - 2;
    if (r() < 0.2) s.exclusiveMaximum = Math.floor(r() * 8);
    if (r() < 0.2) s.multipleOf = pick([1, 2, 0.5, 3]);
  }
  if (t === "array") {
    if (r() < 0.5 && depth > 0) s.items = randomSchema(r, depth - 1);
    if (r() < 0.3) s.minItems = Math.floor(r() * 2);
    if (r() < 0.3) s.maxItems = Math.floor(r() * 3);
    if (r() < 0.3) s.uniqueItems = r() < 0.5;
  }
  if (t === "object" && depth > 0) {
    const props: Record<string, unknown> = {};
    for (const name of ["a", "b", "c"]) if (r() < 0.6) props[name] = randomSchema(r, depth - 1);
    s.properties = props;
    if (r() < 0.5) {
      s.required = Object.keys(props).filter(() => r() < 0.5).concat(r() < 0.1 ? ["z"] : []);
    }
    if (r() < 0.5) s.additionalProperties = r() < 0.7 ? false : randomSchema(r, depth - 1);
  }
  if (r() < 0.05) s.const = pick([1, "a", null, [1], { a: 1 }]);
  if (r() < 0.3) s.description = "d";
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * 9);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 20) - 6;
    case 3:
      return Math.floor(r() * 20) / 4 - 2;
    case 4:
      return ["", "a", "bb", "abc", "é", "1x", "😀😀", "zzzzzz"][Math.floor(r() * 8)];
    case 5:
    case 6:
      return depth > 0
        ? Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth - 1))
        : [];
    default: {
      if (depth === 0) return {};
      const o: Record<string, unknown> = {};
      for (const name of ["a", "b", "c", "d"]) if (r() < 0.5) o[name] = randomValue(r, depth - 1);
      return o;
    }
  }
}

Deno.test("compileMini() agrees with ajv on 5,000 random schemas and values", () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const r = rng(20261122);
  let compared = 0;
  for (let i = 0; i < 5000; i++) {
    const schema = randomSchema(r, 2);
    const mini = compileMini(schema);
    assert.ok(mini, `schema ${JSON.stringify(schema)} should be in the subset`);
    const validate = ajv.compile(schema);
    for (let j = 0; j < 4; j++) {
      const value = randomValue(r, 2);
      const expected = validate(value);
      assert.equal(
        mini(value).length === 0,
        expected,
        `schema ${JSON.stringify(schema)} value ${JSON.stringify(value)}`,
      );
      compared++;
    }
  }
  assert.equal(compared, 20000);
});

Deno.test("compileMini() leaves schemas outside the subset to ajv", () => {
  for (
    const schema of [
      { type: "string", format: "email" },
      { anyOf: [{ type: "string" }] },
      { $ref: "#/definitions/x" },
      { type: "strin" },
      { type: "string", pattern: "\\-" }, // valid without the u flag only: ajv reports it
      { type: "object", properties: { a: { oneOf: [] } } },
      { type: "array", items: [{ type: "string" }] },
    ]
  ) {
    assert.equal(compileMini(schema), undefined, JSON.stringify(schema));
  }
});

Deno.test("compileMini() errors name the property, like ajv's", () => {
  const validate = compileMini({
    type: "object",
    properties: { ns: { type: "string", pattern: "^[a-z]+$" } },
    required: ["ns"],
    additionalProperties: false,
  })!;
  assert.deepEqual(validate({ ns: "ok" }), []);
  assert.deepEqual(validate({}).map((e) => e.params), [{ missingProperty: "ns" }]);
  assert.deepEqual(validate({ ns: "OK", x: 1 }).map((e) => [e.instancePath, e.message]), [
    ["/ns", 'must match pattern "^[a-z]+$"'],
    ["", "must NOT have additional properties"],
  ]);
});

Deno.test("deepEqual() compares JSON values structurally", () => {
  assert.ok(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }));
  assert.ok(!deepEqual({ a: 1 }, { a: 1, b: undefined }));
  assert.ok(!deepEqual([1], { 0: 1 }));
});
