import assert from "node:assert/strict";
import { backoffMs, buildBody, deepMerge, isRetryableStatus, retryAfterMs } from "./_request.ts";

Deno.test("retryAfterMs() reads milliseconds, seconds and HTTP dates, capped at 60 s", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  const h = (init: Record<string, string>) => retryAfterMs(new Headers(init), now);
  assert.equal(h({ "retry-after-ms": "250.4" }), 250);
  assert.equal(h({ "retry-after-ms": "100", "retry-after": "9" }), 100);
  assert.equal(h({ "retry-after": "2" }), 2000);
  assert.equal(h({ "retry-after": "0.5" }), 500);
  assert.equal(h({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }), 3000);
  assert.equal(h({ "retry-after": "Tue, 31 Dec 2024 00:00:00 GMT" }), 0);
  assert.equal(h({ "retry-after": "86400" }), 60_000);
  assert.equal(h({ "retry-after": "soon" }), undefined);
  assert.equal(h({}), undefined);
});

Deno.test("backoffMs() is full jitter over a capped exponential", () => {
  assert.equal(backoffMs(0, 500, 0), 0);
  assert.equal(backoffMs(0, 500, 0.999), 500);
  assert.equal(backoffMs(3, 500, 0.5), 2000);
  assert.equal(backoffMs(20, 500, 0.5), 15_000);
});

Deno.test("isRetryableStatus() covers 408, 409, 429 and 5xx", () => {
  assert.deepEqual(
    [400, 401, 404, 408, 409, 422, 429, 500, 503].map(isRetryableStatus),
    [false, false, false, true, true, false, true, true, true],
  );
});

Deno.test("deepMerge() merges objects, replaces arrays and deletes on null", () => {
  assert.deepEqual(
    deepMerge({ a: { b: 1, c: 2 }, d: [1], e: 1 }, { a: { c: 3 }, d: [2], e: null, f: "x" }),
    { a: { b: 1, c: 3 }, d: [2], f: "x" },
  );
});

Deno.test("buildBody() rewrites history ids for Mistral and leaves the input alone", () => {
  const messages = [
    {
      role: "assistant" as const,
      content: null,
      tool_calls: [{
        id: "call_1",
        type: "function" as const,
        function: { name: "a", arguments: "{}" },
      }],
    },
    { role: "tool" as const, tool_call_id: "call_1", content: "x" },
  ];
  const body = buildBody({
    model: "m",
    messages,
    tools: [],
    stream: false,
    streamOptions: true,
    mistralIds: true,
  });
  assert.match(body.messages[0].tool_calls![0].id, /^[a-zA-Z0-9]{9}$/);
  assert.equal(body.messages[1].tool_call_id, body.messages[0].tool_calls![0].id);
  assert.equal(messages[0].tool_calls?.[0].id, "call_1");
  assert.equal(body.stream_options, undefined);
});
