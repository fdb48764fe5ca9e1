import assert from "node:assert/strict";
import { mergeDelta, mergeFields } from "./_merge.ts";

Deno.test("mergeDelta() concatenates strings but sets identity keys", () => {
  assert.equal(mergeDelta("Hel", "lo", "refusal"), "Hello");
  assert.equal(mergeDelta("reasoning.text", "reasoning.text", "type"), "reasoning.text");
  assert.equal(mergeDelta(undefined, "x", "a"), "x");
});

Deno.test("mergeDelta() merges array items that share an index and appends the rest", () => {
  const merged = mergeDelta(
    [{ type: "reasoning.text", text: "a", index: 0 }],
    [{ type: "reasoning.text", text: "b", index: 0 }, {
      type: "reasoning.encrypted",
      data: "z",
      index: 1,
    }],
    "reasoning_details",
  );
  assert.deepEqual(merged, [
    { type: "reasoning.text", text: "ab", index: 0 },
    { type: "reasoning.encrypted", data: "z", index: 1 },
  ]);
  assert.deepEqual(mergeDelta([{ url: "a" }], [{ url: "b" }], "annotations"), [{ url: "a" }, {
    url: "b",
  }]);
});

Deno.test("mergeDelta() merges objects deeply, ignores null unless asked, replaces scalars", () => {
  assert.deepEqual(mergeDelta({ a: { b: "x" } }, { a: { b: "y", c: 1 } }, "k"), {
    a: { b: "xy", c: 1 },
  });
  assert.equal(mergeDelta("kept", null, "k"), "kept");
  assert.equal(mergeDelta(undefined, null, "k"), undefined);
  assert.equal(mergeDelta(undefined, null, "k", true), null);
  assert.equal(mergeDelta(1, 2, "k"), 2);
});

Deno.test("mergeFields() skips known fields and does not alias the input", () => {
  const into: Record<string, unknown> = {};
  const delta = { content: "x", provider_specific_fields: { citations: ["a"] } };
  mergeFields(into, delta, new Set(["content"]));
  assert.deepEqual(into, { provider_specific_fields: { citations: ["a"] } });
  (into.provider_specific_fields as { citations: string[] }).citations.push("b");
  assert.deepEqual(delta.provider_specific_fields.citations, ["a"]);
});
