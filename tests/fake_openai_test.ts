import assert from "node:assert/strict";
import { loadStreamFixture, startFakeOpenAI } from "./fake_openai.ts";

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/chat/completions`, { method: "POST", body: JSON.stringify(body), headers });

Deno.test("startFakeOpenAI() serves steps in order and records requests", async () => {
  const fake = startFakeOpenAI([
    { json: { n: 1 } },
    { status: 429, headers: { "retry-after": "1" }, json: { error: { message: "slow" } } },
    (_req, body) => Response.json({ echo: body }),
  ]);
  assert.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  assert.deepEqual(await (await post(fake.url, { a: 1 }, { "x-test": "yes" })).json(), { n: 1 });
  const second = await post(fake.url, {});
  assert.equal(second.status, 429);
  assert.equal(second.headers.get("retry-after"), "1");
  await second.body?.cancel();
  assert.deepEqual(await (await post(fake.url, { b: 2 })).json(), { echo: { b: 2 } });
  await fake.close();
  assert.equal(fake.requests.length, 3);
  assert.deepEqual(fake.requests[0].body, { a: 1 });
  assert.equal(fake.requests[0].headers["x-test"], "yes");
});

Deno.test("startFakeOpenAI() answers an extra request with 418 and close() throws", async () => {
  const fake = startFakeOpenAI([]);
  const res = await post(fake.url, {});
  assert.equal(res.status, 418);
  assert.match((await res.json()).error.message, /unexpected request/);
  await assert.rejects(() => fake.close(), /1 unexpected request\(s\): request 1 arrived/);
});

Deno.test("startFakeOpenAI() refuses other paths", async () => {
  const fake = startFakeOpenAI([{ json: {} }]);
  const res = await fetch(`${fake.url}/models`);
  assert.equal(res.status, 418);
  await res.body?.cancel();
  await assert.rejects(() => fake.close(), /GET \/v1\/models/);
});

Deno.test("startFakeOpenAI() replays a fixture by name, byte for byte", async () => {
  const fake = startFakeOpenAI([{ sse: "proxy_crlf_event_lines", chunkDelayMs: 1 }]);
  const res = await post(fake.url, {});
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(await res.text(), loadStreamFixture("proxy_crlf_event_lines.sse"));
  await fake.close();
});

Deno.test("startFakeOpenAI() cuts the connection after cutAfterBytes", async () => {
  const fake = startFakeOpenAI([{ sse: "openai_parallel_tool_calls", cutAfterBytes: 300 }]);
  const res = await post(fake.url, {});
  const reader = res.body!.getReader();
  let received = 0;
  const error = await (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) return undefined;
        received += r.value.byteLength;
      }
    } catch (e) {
      return e;
    }
  })();
  assert.equal(received, 300);
  assert.ok(error instanceof TypeError, `expected a TypeError, got ${error}`);
  await fake.close();
});

Deno.test("startFakeOpenAI() releases a hung step when the server closes", async () => {
  const fake = startFakeOpenAI([{ hang: true }]);
  const pending = post(fake.url, {}).catch((e) => e);
  while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 1));
  await fake.close();
  const outcome = await pending;
  assert.ok(outcome instanceof Response || outcome instanceof Error);
  if (outcome instanceof Response) await outcome.body?.cancel();
});
