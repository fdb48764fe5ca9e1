import assert from "node:assert/strict";
import validateConfig from "../lib/_generated/config_validator.js";
import validateDraft07 from "../lib/_generated/draft07_validator.js";
import { generatedValidators } from "./gen_validators.ts";

const root = new URL("../", import.meta.url);

Deno.test("generatedValidators() matches every file in lib/_generated (run `deno task gen`)", async () => {
  const generated = generatedValidators();
  for (const { path, code } of generated) {
    const onDisk = await Deno.readTextFile(new URL(path, root));
    assert.ok(
      onDisk === code,
      `${path} is out of date with its schema: run \`deno task gen\` and commit the result`,
    );
  }
  const listed = new Set(generated.map((g) => g.path));
  for await (const entry of Deno.readDir(new URL("lib/_generated/", root))) {
    assert.ok(
      listed.has(`lib/_generated/${entry.name}`),
      `lib/_generated/${entry.name} is not produced by scripts/gen_validators.ts: remove it`,
    );
  }
});

Deno.test("generatedValidators() emits code without require()", () => {
  for (const { path, code } of generatedValidators()) {
    assert.doesNotMatch(code, /\brequire\(/, path);
  }
});

Deno.test("generatedValidators() config validator enforces the schema", () => {
  assert.equal(validateConfig({ sandbox: "auto", tools: { personal: false } }), true);
  assert.equal(validateConfig({ sandbox: "lenient" }), false);
  assert.equal(validateConfig.errors?.[0].keyword, "enum");
  assert.equal(validateConfig({ tools: { overrides: { x: { approval: "never" } } } }), true);
  assert.equal(validateConfig({ unknown: 1 }), false);
  assert.equal(validateConfig.errors?.[0].keyword, "additionalProperties");
});

Deno.test("generatedValidators() draft-07 validator rejects an invalid schema", () => {
  assert.equal(validateDraft07({ type: "object", properties: { a: { type: "string" } } }), true);
  assert.equal(validateDraft07({ type: "strin" }), false);
  assert.equal(validateDraft07({ enum: [{ a: [1] }, { a: [1] }] }), false, "deep-equal duplicates");
  assert.equal(validateDraft07({ enum: [{ a: [1] }, { a: [2] }] }), true);
  assert.equal(validateDraft07({ required: "a" }), false);
});
