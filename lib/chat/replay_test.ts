import { ExitCode, HarnessError } from "../errors.ts";
import assert from "node:assert/strict";
import { ProviderError } from "./errors.ts";
import { createOpenAIProvider } from "./provider.ts";
import type { ChatMessage } from "./messages.ts";
import type { ModelEvent, ModelRequest } from "./port.ts";
import {
  compareRequests,
  createRecordingProvider,
  createReplayProvider,
  readRecording,
  ReplayExhaustedError,
  ReplayMismatchError,
} from "./replay.ts";
import {
  collect,
  collectUntilError,
  completed,
  fakeSleep,
  fnTool,
  withFake,
} from "../../tests/_chat_helpers.ts";

const ANSWER =
  'data: {"id":"r2","choices":[{"index":0,"delta":{"content":"Done"},"finish_reason":"stop"}]}\n\n' +
  "data: [DONE]\n\n";

/** Runs a two-turn conversation (tool call, then answer) against `port`. */
async function twoTurns(
  port: Parameters<typeof collect>[0],
  toolOutput = "a.txt",
  toolCallId?: string,
): Promise<ModelEvent[][]> {
  const tools = [fnTool("file_write"), { type: "web_search" }];
  const messages: ChatMessage[] = [{ role: "user", content: "write two files" }];
  const first = await collect(port, { messages, tools });
  const assistant = completed(first).message;
  const results = assistant.tool_calls!.map((c): ChatMessage => ({
    role: "tool",
    tool_call_id: toolCallId ?? c.id,
    content: toolOutput,
  }));
  const second = await collect(port, { messages: [...messages, assistant, ...results], tools });
  return [first, second];
}

async function record(
  script: Parameters<typeof withFake>[0],
): Promise<{ file: string; live: ModelEvent[][] }> {
  const file = await Deno.makeTempFile({ suffix: ".jsonl" });
  let live: ModelEvent[][] = [];
  await withFake(script, async (fake) => {
    const { sleep } = fakeSleep();
    const port = createRecordingProvider(
      { baseUrl: fake.url, model: "m", apiKey: "sk-secret" },
      file,
      { sleep },
    );
    live = await twoTurns(port);
  });
  return { file, live };
}

Deno.test("createReplayProvider() replays a recording offline with identical events", async () => {
  const { file, live } = await record([
    { status: 429, headers: { "retry-after": "2" }, json: { error: { message: "slow down" } } },
    { sse: "ollama_colliding_index" },
    { sse: ANSWER },
  ]);
  const text = await Deno.readTextFile(file);
  assert.ok(!text.includes("sk-secret"), "the API key must not be recorded");
  const exchanges = readRecording(file);
  assert.deepEqual(exchanges.map((e) => e.response?.status), [429, 200, 200]);
  assert.deepEqual(exchanges[0].response?.headers, {
    "content-type": "application/json",
    "retry-after": "2",
  });
  const replayed = await twoTurns(createReplayProvider(file));
  assert.deepEqual(replayed, live);
  assert.deepEqual(live[0][0], { type: "retry", attempt: 1, delayMs: 2000, reason: "HTTP 429" });
  assert.equal(completed(live[0]).message.tool_calls?.length, 2);
  await Deno.remove(file);
});

Deno.test("createReplayProvider() ignores tool output text but not tool_call ids", async () => {
  const { file } = await record([{ sse: "ollama_colliding_index" }, { sse: ANSWER }]);
  await twoTurns(createReplayProvider(file), "different output, same shape");
  await assert.rejects(
    () => twoTurns(createReplayProvider(file), "x", "call_other"),
    (e: ReplayMismatchError) => {
      assert.ok(e instanceof ReplayMismatchError);
      assert.equal(e.exchange, 2);
      assert.equal(e.path, "messages[2].tool_call_id");
      assert.equal(e.live, "call_other");
      assert.equal(e.recorded, "call_abc123");
      assert.match(
        e.message,
        /diverged at exchange 2: messages\[2\]\.tool_call_id is "call_other" in this run but "call_abc123"/,
      );
      return true;
    },
  );
  await Deno.remove(file);
});

Deno.test("createReplayProvider() throws a clear error when the recording is exhausted", async () => {
  const { file } = await record([{ sse: "ollama_colliding_index" }, { sse: ANSWER }]);
  const port = createReplayProvider(file);
  await twoTurns(port);
  const { error } = await collectUntilError(port);
  assert.ok(error instanceof ReplayExhaustedError);
  assert.match(error.message, /has no exchange 3: the recording holds 2/);
  await Deno.remove(file);
});

Deno.test("createReplayProvider() replays a cut stream as stream-cut", async () => {
  const file = await Deno.makeTempFile({ suffix: ".jsonl" });
  const req: Partial<ModelRequest> = { tools: [fnTool("read_file")] };
  await withFake([{ sse: "openai_parallel_tool_calls", cutAfterBytes: 500 }], async (fake) => {
    const port = createRecordingProvider({ baseUrl: fake.url, model: "m" }, file);
    const { error } = await collectUntilError(port, req);
    assert.ok(error instanceof ProviderError && error.kind === "stream-cut");
  });
  const recorded = readRecording(file)[0];
  assert.equal(recorded.response?.cut?.name, "TypeError");
  assert.equal(new TextEncoder().encode(recorded.response?.body).length, 500);
  const { error } = await collectUntilError(createReplayProvider(file), req);
  assert.ok(error instanceof ProviderError && error.kind === "stream-cut", String(error));
  await Deno.remove(file);
});

Deno.test("compareRequests() compares the conversation's shape only", () => {
  const base = {
    model: "m",
    stream: true,
    temperature: 0.1,
    tools: [fnTool("ls"), { type: "web_search" }],
    messages: [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "a" },
    ],
  };
  const change = (f: (b: typeof base) => void) => {
    const copy = structuredClone(base);
    f(copy);
    return compareRequests(copy, base);
  };
  assert.equal(
    change((b) => {
      b.messages[0].content = "other";
      b.messages[2].content = "b";
      b.temperature = 1;
      b.messages[1].tool_calls![0].function.arguments = '{"x":1}';
    }),
    undefined,
  );
  assert.deepEqual(change((b) => b.model = "n"), { path: "model", live: "n", recorded: "m" });
  assert.deepEqual(change((b) => b.messages.pop()), {
    path: "messages.length",
    live: 2,
    recorded: 3,
  });
  assert.deepEqual(change((b) => b.messages[0].role = "system"), {
    path: "messages[0].role",
    live: "system",
    recorded: "user",
  });
  assert.deepEqual(change((b) => b.messages[1].tool_calls![0].function.name = "cat"), {
    path: "messages[1].tool_calls[0].function.name",
    live: "cat",
    recorded: "ls",
  });
  assert.deepEqual(change((b) => b.messages[1].tool_calls![0].id = "c2"), {
    path: "messages[1].tool_calls[0].id",
    live: "c2",
    recorded: "c1",
  });
  assert.deepEqual(change((b) => b.tools[1] = { type: "image_generation" }), {
    path: "tools[1].type",
    live: "image_generation",
    recorded: "web_search",
  });
  assert.deepEqual(change((b) => b.tools.pop()), { path: "tools.length", live: 1, recorded: 2 });
});

Deno.test("readRecording() names a bad line", async () => {
  const file = await Deno.makeTempFile({ suffix: ".jsonl" });
  await Deno.writeTextFile(file, '{"n":1}\nnot json\n');
  assert.throws(
    () => readRecording(file),
    (e: HarnessError) => /line 2 is not JSON/.test(e.message) && e.exitCode === ExitCode.Usage,
  );
  await Deno.remove(file);
});

Deno.test("readRecording() says a missing recording is a usage error", () => {
  assert.throws(
    () => readRecording("/nonexistent/session.jsonl"),
    (e: HarnessError) =>
      e.exitCode === ExitCode.Usage && /the file does not exist/.test(e.message) &&
      /--record/.test(e.hint ?? ""),
  );
});

Deno.test("createOpenAIProvider() records to recordTo", async () => {
  const file = await Deno.makeTempFile({ suffix: ".jsonl" });
  await Deno.writeTextFile(file, "stale content from an older run\n");
  await withFake([{ sse: ANSWER }], async (fake) => {
    await collect(createOpenAIProvider({ baseUrl: fake.url, model: "m", recordTo: file }));
  });
  const [exchange, ...rest] = readRecording(file);
  assert.equal(rest.length, 0);
  assert.equal(exchange.n, 1);
  assert.equal((exchange.request.body as { model: string }).model, "m");
  assert.equal(exchange.response?.body, ANSWER);
  await Deno.remove(file);
});
