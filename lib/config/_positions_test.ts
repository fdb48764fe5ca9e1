import assert from "node:assert/strict";
import { parseTree } from "../_jsonc.ts";
import type { ValidationError } from "../_generated/config_validator.js";
import { describeSchemaError, didYouMean, editDistance, locate } from "./_positions.ts";

function root(text: string) {
  const node = parseTree(text);
  assert.ok(node);
  return node;
}

function err(
  keyword: string,
  instancePath: string,
  params: Record<string, unknown>,
  message?: string,
): ValidationError {
  return { keyword, instancePath, schemaPath: "#", params, ...(message ? { message } : {}) };
}

Deno.test("locate() counts lines and columns from 1", () => {
  assert.deepEqual(locate("abc", 0), { line: 1, column: 1 });
  assert.deepEqual(locate("a\nbc", 3), { line: 2, column: 2 });
  assert.deepEqual(locate("a\r\nbc", 3), { line: 2, column: 1 });
  assert.deepEqual(locate("\n\n\nx", 3), { line: 4, column: 1 });
});

Deno.test("editDistance() is the Levenshtein distance", () => {
  assert.equal(editDistance("", ""), 0);
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("sandbx", "sandbox"), 1);
  assert.equal(editDistance("abc", ""), 3);
});

Deno.test("didYouMean() suggests a close candidate, ignoring case", () => {
  assert.equal(didYouMean("Sandbox", ["sandbox", "tools"]), "sandbox");
  assert.equal(didYouMean("overides", ["octomindDirs", "overrides"]), "overrides");
  assert.equal(didYouMean("typ", ["type", "enum"]), "type");
});

Deno.test("didYouMean() says nothing when no candidate is close", () => {
  assert.equal(didYouMean("zzzzzzzz", ["sandbox", "tools"]), undefined);
  assert.equal(didYouMean("x", []), undefined);
});

Deno.test("describeSchemaError() locates an unknown key at the key and suggests a fix", () => {
  const text = '{"tools": {"personl": true}}';
  const d = describeSchemaError(
    root(text),
    err("additionalProperties", "/tools", { additionalProperty: "personl" }),
  );
  assert.equal(d.message, 'unknown key "personl" in "tools": did you mean "personal"?');
  assert.equal(d.offset, text.indexOf('"personl"'));
});

Deno.test("describeSchemaError() lists known keys through $ref definitions", () => {
  const text = '{"tools": {"overrides": {"x": {"zzzzzzzzzz": 1}}}}';
  const d = describeSchemaError(
    root(text),
    err("additionalProperties", "/tools/overrides/x", { additionalProperty: "zzzzzzzzzz" }),
  );
  assert.equal(
    d.message,
    'unknown key "zzzzzzzzzz" in "tools.overrides.x": expected one of "approval", "readOnly", "timeoutMs", "permissions"',
  );
});

Deno.test("describeSchemaError() unescapes JSON pointer segments", () => {
  const text = '{"tools": {"overrides": {"a/b~c": {"approval": "x"}}}}';
  const d = describeSchemaError(
    root(text),
    err("enum", "/tools/overrides/a~1b~0c/approval", { allowedValues: ["never", "always"] }),
  );
  assert.equal(
    d.message,
    '"tools.overrides.a/b~c.approval" must be one of "never", "always" (got "x")',
  );
  assert.equal(d.offset, text.indexOf('"x"'));
});

Deno.test("describeSchemaError() describes type, required, pattern and other keywords", () => {
  const text =
    '{"run": {"maxTurns": "5"}, "nativeTools": [{}], "provider": {"baseUrl": "ftp://x"}}';
  const r = root(text);
  assert.equal(
    describeSchemaError(r, err("type", "/run/maxTurns", { type: "integer" })).message,
    '"run.maxTurns" must be an integer (got string)',
  );
  assert.equal(
    describeSchemaError(r, err("required", "/nativeTools/0", { missingProperty: "type" })).message,
    '"nativeTools.0" is missing the required key "type"',
  );
  assert.equal(
    describeSchemaError(r, err("pattern", "/provider/baseUrl", { pattern: "^https?://" })).message,
    '"provider.baseUrl" does not match ^https?:// (got "ftp://x")',
  );
  assert.equal(
    describeSchemaError(r, err("minimum", "/run/maxTurns", {}, "must be >= 1")).message,
    '"run.maxTurns" must be >= 1',
  );
  assert.equal(
    describeSchemaError(r, err("type", "", { type: "object" })).message,
    "the config must be an object (got object)",
  );
});

Deno.test("describeSchemaError() falls back when there is no error", () => {
  assert.deepEqual(describeSchemaError(root("{}"), undefined), {
    message: "invalid config",
    offset: 0,
  });
});
