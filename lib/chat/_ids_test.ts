import assert from "node:assert/strict";
import { hash9, MISTRAL_ID, syntheticCallId, toMistralId } from "./_ids.ts";

Deno.test("hash9() is stable, 9 base-62 characters, and spreads", () => {
  assert.equal(hash9("abc"), hash9("abc"));
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) {
    const h = hash9(`call_${i}`);
    assert.match(h, /^[0-9a-zA-Z]{9}$/);
    seen.add(h);
  }
  assert.equal(seen.size, 10_000);
});

Deno.test("toMistralId() keeps valid ids and rewrites others stably", () => {
  assert.equal(toMistralId("Ab3dE6gH9"), "Ab3dE6gH9");
  const id = toMistralId("call_abc-def");
  assert.match(id, MISTRAL_ID);
  assert.equal(toMistralId("call_abc-def"), id);
  assert.notEqual(toMistralId("call_abc-deg"), id);
  assert.equal(toMistralId(id), id);
});

Deno.test("syntheticCallId() differs by response, seed and position", () => {
  const a = syntheticCallId("r1", "3", 0);
  assert.match(a, /^call_[0-9a-zA-Z]{9}$/);
  assert.equal(syntheticCallId("r1", "3", 0), a);
  assert.notEqual(syntheticCallId("r1", "3", 1), a);
  assert.notEqual(syntheticCallId("r1", "5", 0), a);
  assert.notEqual(syntheticCallId("r2", "3", 0), a);
});
