import assert from "node:assert/strict";
import { ProviderError } from "./errors.ts";
import { createOpenAIProvider } from "./provider.ts";
import type { ChatMessage } from "./messages.ts";
import {
  collect,
  collectUntilError,
  completed,
  fakeSleep,
  fnTool,
  withFake,
} from "../../tests/_chat_helpers.ts";

const HELLO = 'data: {"id":"r1","choices":[{"index":0,"delta":{"content":"Hello"}}]}\n\n' +
  'data: {"id":"r1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
const err = (message: string) => ({ error: { message, type: "invalid_request_error" } });
type Body = Record<string, unknown>;

Deno.test("createOpenAIProvider() sends the documented request", async () => {
  await withFake([{ sse: HELLO }], async (fake) => {
    const port = createOpenAIProvider({
      baseUrl: `${fake.url}//`,
      apiKey: "sk-test",
      model: "qwen3",
      temperature: 0.2,
      maxTokens: 512,
      topP: 0.9,
      parallelToolCalls: false,
      headers: { "X-Title": "harness" },
      extraBody: { top_k: 20, stream_options: { include_usage: false }, top_p: null },
    });
    assert.equal(port.info.baseUrl, fake.url);
    const native = { type: "web_search_preview", search_context_size: "low" };
    const done = completed(await collect(port, { tools: [fnTool("read_file"), native] }));
    assert.equal(done.message.content, "Hello");
    const { body, headers } = fake.requests[0];
    assert.deepEqual(body, {
      model: "qwen3",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      tools: [fnTool("read_file"), native],
      stream_options: { include_usage: false },
      temperature: 0.2,
      max_tokens: 512,
      parallel_tool_calls: false,
      top_k: 20,
    });
    assert.equal(headers.authorization, "Bearer sk-test");
    assert.equal(headers.accept, "text/event-stream");
    assert.equal(headers["content-type"], "application/json");
    assert.equal(headers["x-title"], "harness");
  });
});

Deno.test("stream() omits tools, parallel_tool_calls and auth when unset", async () => {
  await withFake([{ sse: HELLO }], async (fake) => {
    const port = createOpenAIProvider({ baseUrl: fake.url, model: "m", parallelToolCalls: true });
    await collect(port);
    const body = fake.requests[0].body as Body;
    assert.deepEqual(Object.keys(body).sort(), ["messages", "model", "stream", "stream_options"]);
    assert.equal(fake.requests[0].headers.authorization, undefined);
  });
});

Deno.test("stream() waits as Retry-After says, then succeeds", async () => {
  const { delays, sleep } = fakeSleep();
  await withFake([
    { status: 429, headers: { "retry-after": "1" }, json: err("Rate limit reached") },
    { sse: HELLO },
  ], async (fake) => {
    const events = await collect(
      createOpenAIProvider({ baseUrl: fake.url, model: "m" }, { sleep }),
    );
    assert.deepEqual(events[0], { type: "retry", attempt: 1, delayMs: 1000, reason: "HTTP 429" });
    assert.equal(completed(events).message.content, "Hello");
  });
  assert.deepEqual(delays, [1000]);
});

Deno.test("stream() honours retry-after-ms and HTTP-date Retry-After, capped at 60 s", async () => {
  const { delays, sleep } = fakeSleep();
  const now = Date.parse("2025-01-01T00:00:00Z");
  await withFake([
    { status: 503, headers: { "retry-after-ms": "1500" }, json: err("busy") },
    { status: 503, headers: { "retry-after": "Wed, 01 Jan 2025 00:00:07 GMT" }, json: err("busy") },
    { status: 429, headers: { "retry-after": "3600" }, json: err("later") },
    { sse: HELLO },
  ], async (fake) => {
    const port = createOpenAIProvider({ baseUrl: fake.url, model: "m" }, { sleep, now: () => now });
    await collect(port);
  });
  assert.deepEqual(delays, [1500, 7000, 60000]);
});

Deno.test("stream() retries 5xx with jittered backoff, then throws the last error", async () => {
  const { delays, sleep } = fakeSleep();
  const boom = { status: 500, json: err("CUDA out of memory") };
  await withFake([boom, boom, boom], async (fake) => {
    const port = createOpenAIProvider(
      { baseUrl: fake.url, model: "m", maxRetries: 2, retryBaseMs: 500 },
      { sleep, random: () => 0.5 },
    );
    const { events, error } = await collectUntilError(port);
    assert.deepEqual(events.map((e) => e.type === "retry" && e.attempt), [1, 2]);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, "http");
    assert.equal(error.status, 500);
    assert.equal(error.exitCode, 3);
    assert.equal(
      error.message,
      `Request to "${fake.url}/chat/completions" failed with HTTP 500: CUDA out of memory`,
    );
    assert.match(error.hint ?? "", /server failed after retries/);
  });
  assert.deepEqual(delays, [250, 500]);
});

Deno.test("stream() does not retry a client error and names the fix", async () => {
  await withFake([{ status: 401, json: err("Incorrect API key provided") }], async (fake) => {
    const { error } = await collectUntilError(
      createOpenAIProvider({ baseUrl: fake.url, model: "m" }),
    );
    assert.ok(error instanceof ProviderError && error.kind === "http" && error.status === 401);
    assert.match(error.message, /HTTP 401: Incorrect API key provided/);
    assert.match(error.hint ?? "", /API key/);
  });
});

Deno.test("stream() maps known tools-unsupported answers to a hint and never retries them", async () => {
  const cases = [
    {
      status: 400,
      json: {
        object: "error",
        message:
          '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        type: "BadRequestError",
        code: 400,
      },
      hint: /--enable-auto-tool-choice --tool-call-parser <name>/,
    },
    {
      status: 500,
      json: {
        error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" },
      },
      hint: /--jinja/,
    },
    {
      status: 400,
      json: err("registry.ollama.ai/library/gemma:2b does not support tools"),
      hint: /Ollama model with tool support/,
    },
    {
      status: 400,
      json: err("Tool use is not supported for this model"),
      hint: /does not accept `tools`/,
    },
  ];
  for (const c of cases) {
    await withFake([{ status: c.status, json: c.json }], async (fake) => {
      const port = createOpenAIProvider({ baseUrl: fake.url, model: "m" });
      const { error } = await collectUntilError(port, { tools: [fnTool("ls")] });
      assert.ok(error instanceof ProviderError);
      assert.equal(error.kind, "tools-unsupported");
      assert.equal(error.status, c.status);
      assert.match(error.hint ?? "", c.hint);
    });
  }
});

Deno.test("stream() throws stream-cut when the connection breaks mid-stream, without retrying", async () => {
  await withFake([{ sse: "openai_parallel_tool_calls", cutAfterBytes: 400 }], async (fake) => {
    const { events, error } = await collectUntilError(
      createOpenAIProvider({ baseUrl: fake.url, model: "m" }),
    );
    assert.ok(error instanceof ProviderError, String(error));
    assert.equal(error.kind, "stream-cut");
    assert.ok(error.message.includes(fake.url));
    assert.ok(events.every((e) => e.type !== "retry" && e.type !== "completed"));
    assert.equal(fake.requests.length, 1);
  });
});

Deno.test("stream() throws stream-cut when the body ends without finish_reason or [DONE]", async () => {
  const partial = 'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n';
  await withFake([{ sse: partial }], async (fake) => {
    const { events, error } = await collectUntilError(
      createOpenAIProvider({ baseUrl: fake.url, model: "m" }),
    );
    assert.ok(error instanceof ProviderError && error.kind === "stream-cut");
    assert.deepEqual(events, [{ type: "text_delta", text: "Hel" }]);
  });
});

Deno.test("stream() times out on a hung server, retries, then throws timeout", async () => {
  const { sleep } = fakeSleep();
  await withFake([{ hang: true }, { hang: true }], async (fake) => {
    const port = createOpenAIProvider(
      { baseUrl: fake.url, model: "m", requestTimeoutMs: 50, maxRetries: 1 },
      { sleep },
    );
    const { events, error } = await collectUntilError(port);
    assert.deepEqual(events.map((e) => e.type === "retry" && e.reason), ["timeout"]);
    assert.ok(error instanceof ProviderError && error.kind === "timeout", String(error));
    assert.match(error.message, /timed out: no data for 50 ms/);
    assert.equal(fake.requests.length, 2);
  });
});

Deno.test("stream() times out when a started stream goes silent, without retrying", async () => {
  await withFake([{ sse: HELLO, chunkDelayMs: 400 }], async (fake) => {
    const port = createOpenAIProvider({ baseUrl: fake.url, model: "m", requestTimeoutMs: 60 });
    const { events, error } = await collectUntilError(port);
    assert.ok(error instanceof ProviderError && error.kind === "timeout", String(error));
    assert.deepEqual(events, [{ type: "text_delta", text: "Hello" }]);
    assert.equal(fake.requests.length, 1);
  });
});

Deno.test("stream() stops at once when aborted mid-stream", async () => {
  await withFake([{ sse: HELLO, chunkDelayMs: 5_000 }], async (fake) => {
    const ctl = new AbortController();
    const port = createOpenAIProvider({ baseUrl: fake.url, model: "m" });
    const seen: string[] = [];
    const started = performance.now();
    const error = await (async () => {
      try {
        const req = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };
        for await (const e of port.stream(req, { signal: ctl.signal })) {
          seen.push(e.type);
          ctl.abort();
        }
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(error instanceof ProviderError && error.kind === "aborted", String(error));
    assert.equal(error.exitCode, 130);
    assert.deepEqual(seen, ["text_delta"]);
    assert.ok(performance.now() - started < 2_000);
  });
});

Deno.test("stream() aborts during a retry wait", async () => {
  const ctl = new AbortController();
  const sleep = (_ms: number, signal: AbortSignal) => {
    ctl.abort();
    return Promise.reject(signal.reason);
  };
  await withFake([{ status: 503, json: err("busy") }], async (fake) => {
    const port = createOpenAIProvider({ baseUrl: fake.url, model: "m" }, { sleep });
    const { error } = await collectUntilError(port, {}, ctl.signal);
    assert.ok(error instanceof ProviderError && error.kind === "aborted");
  });
});

Deno.test("stream() retries network errors and reports the URL", async () => {
  const { delays, sleep } = fakeSleep();
  let calls = 0;
  const fetch = () => {
    calls++;
    return Promise.reject(new TypeError("error sending request: Connection refused"));
  };
  const port = createOpenAIProvider(
    { baseUrl: "http://127.0.0.1:9/v1", model: "m", maxRetries: 3 },
    { fetch, sleep, random: () => 1 },
  );
  const { error } = await collectUntilError(port);
  assert.ok(error instanceof ProviderError && error.kind === "network");
  assert.equal(
    error.message,
    'Cannot reach "http://127.0.0.1:9/v1/chat/completions": error sending request: Connection refused',
  );
  assert.equal(calls, 4);
  assert.deepEqual(delays, [500, 1000, 2000]);
});

Deno.test("stream() in non-streaming mode converts the JSON response into the same events", async () => {
  const message = {
    role: "assistant",
    content: "Reading it.",
    refusal: null,
    reasoning_content: "Need the file.",
    tool_calls: [{
      id: "call_1",
      type: "function",
      function: { name: "read_file", arguments: "" },
    }],
  };
  await withFake([{
    json: {
      id: "r9",
      choices: [{ index: 0, message, finish_reason: "tool_calls", logprobs: null }],
      usage: { total_tokens: 3 },
    },
  }], async (fake) => {
    const port = createOpenAIProvider({ baseUrl: fake.url, model: "m", stream: false });
    const events = await collect(port, { tools: [fnTool("read_file")] });
    assert.deepEqual(events.slice(0, 3), [
      { type: "text_delta", text: "Reading it." },
      { type: "reasoning_delta", text: "Need the file." },
      { type: "tool_call_started", index: 0, id: "call_1", name: "read_file" },
    ]);
    const done = completed(events);
    assert.deepEqual(done.message, {
      ...message,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "read_file", arguments: "{}" },
      }],
    });
    assert.deepEqual(done.usage, { total_tokens: 3 });
    const body = fake.requests[0].body as Body;
    assert.equal(body.stream, false);
    assert.equal(body.stream_options, undefined);
    assert.equal(fake.requests[0].headers.accept, "application/json");
  });
});

Deno.test("stream() accepts a JSON answer to a streaming request", async () => {
  const json = {
    choices: [{ message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
  };
  await withFake([{ json }], async (fake) => {
    const done = completed(await collect(createOpenAIProvider({ baseUrl: fake.url, model: "m" })));
    assert.equal(done.message.content, "ok");
  });
});

Deno.test("stream() reports a 200 body that is not a chat completion as bad-response", async () => {
  await withFake(
    [{ headers: { "content-type": "application/json" }, json: { models: [] } }],
    async (fake) => {
      const port = createOpenAIProvider({ baseUrl: fake.url, model: "m", stream: false });
      const { error } = await collectUntilError(port);
      assert.ok(error instanceof ProviderError && error.kind === "bad-response");
      assert.match(error.message, /no choices\[0\]\.message/);
    },
  );
});

Deno.test("stream() drops a rejected parallel_tool_calls once and remembers it", async () => {
  await withFake([
    { status: 400, json: err("Unrecognized request argument supplied: parallel_tool_calls") },
    { sse: HELLO },
    { sse: HELLO },
  ], async (fake) => {
    const port = createOpenAIProvider({ baseUrl: fake.url, model: "m", parallelToolCalls: true });
    const events = await collect(port, { tools: [fnTool("ls")] });
    assert.deepEqual(
      events[0].type === "warning" && events[0].code,
      "parallel-tool-calls-unsupported",
    );
    await collect(port, { tools: [fnTool("ls")] });
    const sent = fake.requests.map((r) => "parallel_tool_calls" in (r.body as Body));
    assert.deepEqual(sent, [true, false, false]);
  });
});

Deno.test("stream() drops a rejected stream_options and remembers it", async () => {
  await withFake([
    {
      status: 422,
      json: { detail: [{ loc: ["body", "stream_options"], msg: "extra fields not permitted" }] },
    },
    { sse: HELLO },
    { sse: HELLO },
  ], async (fake) => {
    const port = createOpenAIProvider({ baseUrl: fake.url, model: "m" });
    const events = await collect(port);
    assert.equal(events[0].type === "warning" && events[0].code, "stream-options-unsupported");
    await collect(port);
    assert.deepEqual(fake.requests.map((r) => "stream_options" in (r.body as Body)), [
      true,
      false,
      false,
    ]);
  });
});

Deno.test("stream() rewrites history ids for Mistral hosts", async () => {
  const bodies: Body[] = [];
  const fetch = (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    return Promise.resolve(
      new Response(HELLO, { headers: { "content-type": "text/event-stream" } }),
    );
  };
  const port = createOpenAIProvider({ baseUrl: "https://api.mistral.ai/v1", model: "m" }, {
    fetch,
  });
  const history: ChatMessage[] = [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_long_openai_id",
        type: "function",
        function: { name: "ls", arguments: "{}" },
      }],
    },
    { role: "tool", tool_call_id: "call_long_openai_id", content: "a.txt" },
  ];
  await collect(port, { messages: history });
  const sent = bodies[0].messages as ChatMessage[];
  const id = sent[1].tool_calls![0].id;
  assert.match(id, /^[a-zA-Z0-9]{9}$/);
  assert.equal(sent[2].tool_call_id, id);
  assert.equal(history[1].tool_calls![0].id, "call_long_openai_id");
});

Deno.test("stream() leaves ids alone on a Mistral host when toolCallIdFormat is none", async () => {
  const bodies: Body[] = [];
  const fetch = (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    return Promise.resolve(
      new Response(HELLO, { headers: { "content-type": "text/event-stream" } }),
    );
  };
  const port = createOpenAIProvider(
    { baseUrl: "https://api.mistral.ai/v1", model: "m", toolCallIdFormat: "none" },
    { fetch },
  );
  const history: ChatMessage[] = [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_long",
        type: "function",
        function: { name: "ls", arguments: "{}" },
      }],
    },
    { role: "tool", tool_call_id: "call_long", content: "a.txt" },
  ];
  await collect(port, { messages: history });
  assert.equal((bodies[0].messages as ChatMessage[])[2].tool_call_id, "call_long");
});
