import assert from "node:assert/strict";
import { benchSse, benchStreamAssembly } from "./bench_sse.ts";

Deno.test("benchSse() exceeds 50 MB/s", async () => {
  const result = await benchSse(8);
  assert.equal(result.name, "sse-parse");
  assert.ok(result.mbPerSec > 50, `${result.mbPerSec} MB/s`);
});

Deno.test("benchStreamAssembly() measures the full path", async () => {
  const result = await benchStreamAssembly(2);
  assert.ok(result.mbPerSec > 0);
});
