import assert from "node:assert/strict";
import type { ToolDefinition } from "../types.ts";
import { ArgumentValidator } from "./validate_args.ts";

function tool(parameters: unknown, name = "t"): ToolDefinition {
  return {
    name,
    description: "d",
    parameters: parameters as ToolDefinition["parameters"],
    source: { format: "manifest", path: "/p/tools.json" },
    runner: { kind: "argv", argv: ["/bin/true"], envPassthrough: [] },
    approval: "never",
    readOnly: true,
    timeoutMs: 1000,
  };
}

/** A deep proxy of `value` that counts every property read. */
function counted<T extends object>(value: T): { schema: T; reads: () => number } {
  let reads = 0;
  const wrap = (v: unknown): unknown =>
    v !== null && typeof v === "object"
      ? new Proxy(v as object, {
        get(target, key, receiver) {
          reads++;
          return wrap(Reflect.get(target, key, receiver));
        },
      })
      : v;
  return { schema: wrap(value) as T, reads: () => reads };
}

const SIMPLE = {
  type: "object",
  properties: { n: { type: "integer" }, s: { type: "string", minLength: 2 } },
  required: ["n"],
  additionalProperties: false,
};
/** Outside any small subset: goes to ajv. */
const COMPLEX = {
  type: "object",
  properties: {
    when: { type: "string", format: "date-time" },
    pick: { oneOf: [{ type: "string" }, { type: "integer" }] },
  },
  required: ["when"],
};

const CASES: [string, object][] = [["a simple schema", SIMPLE], ["a schema ajv checks", COMPLEX]];
for (const [label, raw] of CASES) {
  Deno.test(`ArgumentValidator.validate() compiles ${label} once`, async () => {
    const v = new ArgumentValidator();
    const { schema, reads } = counted(structuredClone(raw));
    const keyCost = (() => {
      const before = reads();
      JSON.stringify(schema);
      return reads() - before;
    })();
    const valid = label === "a simple schema" ? { n: 1 } : { when: "2024-01-01T00:00:00Z" };

    const before = reads();
    assert.equal(await v.validate(tool(schema), valid), undefined);
    const first = reads() - before;
    assert.ok(first > keyCost, `compiling reads the schema (${first} > ${keyCost})`);

    // Later calls with an equal schema (another object, another tool name, as after a
    // registry refresh) read it only to compute the cache key: nothing is compiled again.
    for (const name of ["t", "t", "other_tool_same_schema"]) {
      const copy = counted(structuredClone(raw));
      assert.equal(await v.validate(tool(copy.schema, name), valid), undefined);
      assert.notEqual(await v.validate(tool(copy.schema, name), {}), undefined);
      assert.ok(copy.reads() <= 2 * keyCost, `${name}: ${copy.reads()} <= ${2 * keyCost}`);
    }
  });
}

Deno.test("ArgumentValidator.validate() skips absent and non-object schemas", async () => {
  const v = new ArgumentValidator();
  for (const schema of [undefined, null, true, false, "object", 3, [], [{ type: "object" }]]) {
    for (const args of [{}, { any: "thing" }, [1], "text", null]) {
      assert.equal(
        await v.validate(tool(schema), args),
        undefined,
        `${JSON.stringify(schema)} with ${JSON.stringify(args)}`,
      );
    }
  }
  assert.equal(await v.validate(tool({}), { x: 1 }), undefined, "{} accepts any object");
});

Deno.test("ArgumentValidator.validate() reports a schema that does not compile", async () => {
  const v = new ArgumentValidator();
  const broken = tool({ type: "object", properties: { a: { type: "nonsense" } } });
  const problem = await v.validate(broken, { a: 1 });
  assert.equal(problem?.kind, "schema");
  assert.match(
    problem!.message,
    /^its parameters schema is not valid JSON Schema \(schema is invalid: .*properties\/a\/type.*\); run `harness tools validate`$/,
  );
  assert.deepEqual(await v.validate(broken, {}), problem, "the same answer, from the cache");
  const badPattern = await v.validate(
    tool({ type: "object", properties: { a: { type: "string", pattern: "([" } } }),
    { a: "x" },
  );
  assert.equal(badPattern?.kind, "schema");
});

Deno.test("ArgumentValidator.validate() names each offending property", async () => {
  const v = new ArgumentValidator();
  const schema = {
    type: "object",
    properties: {
      n: { type: "integer" },
      mode: { type: "string", enum: ["fast", "slow"] },
      list: { type: "array", items: { type: "string" } },
      nested: {
        type: "object",
        properties: { deep: { type: "boolean" } },
        required: ["deep"],
        additionalProperties: false,
      },
      "a/b~c": { type: "string" },
    },
    required: ["n"],
    additionalProperties: false,
  };
  const message = async (args: unknown) => {
    const p = await v.validate(tool(schema), args);
    assert.equal(p?.kind, "arguments", JSON.stringify(args));
    return p!.message;
  };
  assert.equal(await message({}), 'the arguments are missing the required property "n"');
  assert.equal(await message({ n: 1, zzz: 2 }), 'the arguments have the unknown property "zzz"');
  assert.equal(await message({ n: 1.5 }), '"n" must be integer');
  assert.equal(await message({ n: 1, mode: "medium" }), '"mode" must be one of "fast", "slow"');
  assert.equal(await message({ n: 1, list: ["a", 2] }), '"list.1" must be string');
  assert.equal(
    await message({ n: 1, nested: { extra: 1 } }),
    '"nested" is missing the required property "deep"; "nested" has the unknown property "extra"',
  );
  assert.equal(await message({ n: 1, "a/b~c": 3 }), '"a/b~c" must be string');
  // Every problem at once, not just the first.
  const all = await message({ n: "x", mode: 1, other: true });
  for (const part of ['"n" must be integer', '"mode"', 'unknown property "other"']) {
    assert.ok(all.includes(part), `${all} names ${part}`);
  }
  assert.equal(await v.validate(tool(schema), { n: 2, mode: "fast", list: [] }), undefined);
});

Deno.test("ArgumentValidator.validate() checks formats and combinators through ajv", async () => {
  const v = new ArgumentValidator();
  const p = await v.validate(tool(COMPLEX), { when: "yesterday", pick: true });
  assert.equal(p?.kind, "arguments");
  assert.match(p!.message, /"when" must match format "date-time"/);
  assert.match(p!.message, /"pick" must/);
  assert.equal(
    await v.validate(tool(COMPLEX), { when: "2024-01-01T10:00:00Z", pick: 3 }),
    undefined,
  );
});
