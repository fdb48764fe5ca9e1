import assert from "node:assert/strict";
import { canonicalCall, nativeToolNames } from "./_calls.ts";

Deno.test("canonicalCall() ignores key order and white space", () => {
  assert.equal(
    canonicalCall("read", '{"path":"a","opts":{"x":1,"y":[1,2]}}'),
    canonicalCall("read", '{\n  "opts": { "y": [1, 2], "x": 1 },\n  "path": "a"\n}'),
  );
});

Deno.test("canonicalCall() tells apart values, array order, and tool names", () => {
  const base = canonicalCall("read", '{"path":"a"}');
  assert.notEqual(base, canonicalCall("read", '{"path":"b"}'));
  assert.notEqual(base, canonicalCall("read", '{"path":"a","n":1}'));
  assert.notEqual(base, canonicalCall("stat", '{"path":"a"}'));
  assert.notEqual(canonicalCall("f", '{"a":[1,2]}'), canonicalCall("f", '{"a":[2,1]}'));
  assert.notEqual(canonicalCall("f", '{"a":"1"}'), canonicalCall("f", '{"a":1}'));
});

Deno.test("canonicalCall() treats empty arguments as an empty object", () => {
  assert.equal(canonicalCall("now", ""), canonicalCall("now", "{ }"));
});

Deno.test("canonicalCall() compares text that does not parse after trimming", () => {
  assert.equal(canonicalCall("read", '  {"path": "a'), canonicalCall("read", '{"path": "a\n'));
  assert.notEqual(canonicalCall("read", '{"path": "a'), canonicalCall("read", '{"path": "b'));
});

Deno.test("canonicalCall() does not confuse a name boundary with the arguments", () => {
  assert.notEqual(canonicalCall("ab", "1"), canonicalCall("a", "b1"));
});

Deno.test("nativeToolNames() names a tool by name, type, and the type after the colon", () => {
  assert.deepEqual(
    [...nativeToolNames([
      { type: "openrouter:web_search" },
      { type: "web_search_preview" },
      { type: "code_interpreter", name: "python" },
    ])].sort(),
    ["code_interpreter", "openrouter:web_search", "python", "web_search", "web_search_preview"],
  );
});

Deno.test("nativeToolNames() ignores function tools and objects without names", () => {
  const names = nativeToolNames([{ type: "function", function: { name: "read" } }, {}, {
    type: 3,
  }]);
  assert.deepEqual([...names], []);
});
