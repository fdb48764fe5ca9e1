// Every recorded quirk fixture (tests/fixtures/streams/*.sse), replayed by the fake server
// through the real provider.
import assert from "node:assert/strict";
import { ProviderError } from "./errors.ts";
import { createOpenAIProvider, type OpenAISettings } from "./provider.ts";
import type { ModelEvent } from "./port.ts";
import { collect, collectUntilError, completed, withFake } from "../../tests/_chat_helpers.ts";

async function replay(fixture: string, settings: Partial<OpenAISettings> = {}) {
  let events: ModelEvent[] = [];
  await withFake([{ sse: fixture, chunkDelayMs: 0 }], async (fake) => {
    events = await collect(createOpenAIProvider({ baseUrl: fake.url, model: "m", ...settings }));
  });
  return events;
}

const calls = (events: ModelEvent[]) =>
  completed(events).message.tool_calls?.map((c) => [c.id, c.function.name, c.function.arguments]);
const warnings = (events: ModelEvent[]) =>
  events.flatMap((e) => e.type === "warning" ? [e.code] : []);
const started = (events: ModelEvent[]) =>
  events.flatMap((e) => e.type === "tool_call_started" ? [[e.index, e.id, e.name]] : []);

Deno.test("stream() merges tool-call fragments by index (openai_parallel_tool_calls)", async () => {
  const events = await replay("openai_parallel_tool_calls");
  assert.deepEqual(calls(events), [
    ["call_A1", "read_file", '{"path": "a.txt"}'],
    ["call_B2", "list_dir", '{"dir": "."}'],
  ]);
  assert.deepEqual(started(events), [[0, "call_A1", "read_file"], [1, "call_B2", "list_dir"]]);
  const done = completed(events);
  assert.equal(done.finishReason, "tool_calls");
  assert.equal(done.message.content, null);
  assert.deepEqual(done.usage, { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
  assert.deepEqual(warnings(events), []);
});

Deno.test("stream() separates interleaved tool calls (sglang_interleaved_tool_calls)", async () => {
  assert.deepEqual(calls(await replay("sglang_interleaved_tool_calls")), [
    ["call_X", "add", '{"a": 3, "b": 12}'],
    ["call_Y", "multiply", '{"a": 11, "b": 49}'],
  ]);
});

Deno.test("stream() routes calls without index by id (ollama_missing_index)", async () => {
  assert.deepEqual(calls(await replay("ollama_missing_index")), [
    ["call_o1", "file_write", '{"filePath":"hello.py","content":"print(1)"}'],
    ["call_o2", "file_write", '{"filePath":"world.py","content":"print(2)"}'],
  ]);
});

Deno.test("stream() splits two ids on one index into two calls (ollama_colliding_index)", async () => {
  assert.deepEqual(calls(await replay("ollama_colliding_index")), [
    ["call_abc123", "file_write", '{"filePath":"hello.py"}'],
    ["call_def456", "file_write", '{"filePath":"world.py"}'],
  ]);
});

Deno.test("stream() decides a lying finish_reason by the calls (ollama_finish_stop_with_tool_calls)", async () => {
  const events = await replay("ollama_finish_stop_with_tool_calls");
  assert.equal(completed(events).finishReason, "tool_calls");
  assert.deepEqual(warnings(events), ["finish-reason-mismatch"]);
  // the whole call arrived in one chunk
  assert.deepEqual(calls(events), [["call_w1", "get_weather", '{"city":"Paris"}']]);
});

Deno.test("stream() turns tool_calls without calls into stop (generic_finish_tool_calls_without_calls)", async () => {
  const events = await replay("generic_finish_tool_calls_without_calls");
  const done = completed(events);
  assert.equal(done.finishReason, "stop");
  assert.equal(done.message.content, "I would call a tool, but I will not.");
  assert.equal(done.message.tool_calls, undefined);
  assert.deepEqual(warnings(events), ["finish-reason-mismatch"]);
});

Deno.test("stream() synthesizes stable ids for calls without one (generic_missing_id)", async () => {
  const first = calls(await replay("generic_missing_id"))!;
  const second = calls(await replay("generic_missing_id"))!;
  assert.deepEqual(first, second);
  assert.match(first[0][0], /^call_[0-9a-zA-Z]{9}$/);
  assert.notEqual(first[0][0], first[1][0]);
  assert.deepEqual(first.map((c) => c[2]), ['{"q": "deno"}', '{"q": "node"}']);
});

Deno.test("stream() concatenates a split name (vllm_split_tool_name)", async () => {
  const events = await replay("vllm_split_tool_name");
  assert.deepEqual(calls(events), [["chatcmpl-tool-9f8e", "get_weather", '{"city": "Oslo"}']]);
  assert.deepEqual(started(events), [[0, "chatcmpl-tool-9f8e", "get_weather"]]);
});

Deno.test("stream() normalizes empty arguments to {} (vllm_empty_arguments)", async () => {
  const events = await replay("vllm_empty_arguments");
  assert.deepEqual(calls(events), [["chatcmpl-tool-1a2b", "list_tools", "{}"]]);
  assert.deepEqual(completed(events).callIssues, []);
});

Deno.test("stream() reports malformed arguments and keeps them (llamacpp_malformed_arguments)", async () => {
  const done = completed(await replay("llamacpp_malformed_arguments"));
  const id = "wq1XVQhM8aV3iS6UHz3bXkCHyJd7xnxa";
  assert.equal(
    done.message.tool_calls?.[0].function.arguments,
    '{"path": "a.txt", "content": "x",}',
  );
  assert.equal(done.callIssues.length, 1);
  assert.equal(done.callIssues[0].id, id);
  assert.equal(done.callIssues[0].kind, "malformed-json");
  assert.match(done.callIssues[0].detail, /^the arguments are not a JSON object: /);
});

Deno.test("stream() reports arguments cut by the length limit (openai_truncated_by_length)", async () => {
  const done = completed(await replay("openai_truncated_by_length"));
  assert.equal(done.finishReason, "length");
  assert.deepEqual(done.callIssues.map((i) => [i.id, i.kind]), [["call_T1", "truncated"]]);
  assert.match(done.callIssues[0].detail, /output token limit/);
});

Deno.test("stream() ignores comments and reads a usage-only chunk (openrouter_processing_comments)", async () => {
  const events = await replay("openrouter_processing_comments");
  assert.deepEqual(events.flatMap((e) => e.type === "text_delta" ? [e.text] : []), ["Hel", "lo"]);
  const done = completed(events);
  assert.equal(done.message.content, "Hello");
  assert.equal(done.usage?.cost, 0.00012);
  assert.deepEqual(done.raw.extraChoiceFields, { native_finish_reason: "stop" });
});

Deno.test("stream() handles CRLF, event lines and blank data lines (proxy_crlf_event_lines)", async () => {
  const done = completed(await replay("proxy_crlf_event_lines"));
  assert.equal(done.message.content, "line one\nline two");
  assert.equal(done.finishReason, "stop");
});

Deno.test("stream() throws stream-error on an error object in a 200 stream (openrouter_midstream_error)", async () => {
  await withFake([{ sse: "openrouter_midstream_error" }], async (fake) => {
    const port = createOpenAIProvider({ baseUrl: fake.url, model: "m" });
    const { events, error } = await collectUntilError(port);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.kind, "stream-error");
    assert.match(error.message, /inside an HTTP 200 response: Provider returned error: upstream/);
    assert.ok(error.message.includes(`"${fake.url}/chat/completions"`));
    assert.deepEqual(events, [{ type: "text_delta", text: "Partial ans" }]);
  });
});

Deno.test("stream() throws stream-error on vLLM's error object (vllm_error_object)", async () => {
  await assert.rejects(
    () => replay("vllm_error_object"),
    (e: ProviderError) => e.kind === "stream-error" && /maximum context length/.test(e.message),
  );
});

Deno.test("stream() streams and keeps reasoning_content (deepseek_reasoning_content)", async () => {
  const events = await replay("deepseek_reasoning_content");
  assert.deepEqual(
    events.flatMap((e) => e.type === "reasoning_delta" ? [e.text] : []),
    ["Let me think", " step by step."],
  );
  const done = completed(events);
  assert.deepEqual(done.message, {
    role: "assistant",
    content: "The answer is 4.",
    reasoning_content: "Let me think step by step.",
  });
});

Deno.test("stream() keeps reasoning and merges reasoning_details (openrouter_reasoning_details)", async () => {
  const events = await replay("openrouter_reasoning_details");
  assert.deepEqual(
    events.flatMap((e) => e.type === "reasoning_delta" ? [e.text] : []),
    ["Checking", " the docs."],
  );
  const { message } = completed(events);
  assert.equal(message.reasoning, "Checking the docs.");
  assert.deepEqual(message.reasoning_details, [{
    type: "reasoning.text",
    text: "Checking the docs.",
    format: "anthropic-claude-v1",
    index: 0,
    signature: "sig-123",
  }]);
});

for (
  const [fixture, marker] of [
    ["vllm_hermes_text_tool_call", "<tool_call>"],
    ["vllm_mistral_text_tool_calls", "[TOOL_CALLS]"],
    ["ollama_bare_json_tool_call", "bare JSON"],
    ["llamacpp_python_tag", "<|python_tag|>"],
  ]
) {
  Deno.test(`stream() warns about a tool call written as text (${fixture})`, async () => {
    const events = await replay(fixture);
    const warning = events.find((e) => e.type === "warning");
    assert.ok(warning?.type === "warning" && warning.code === "text-tool-call");
    assert.ok(warning.message.includes(marker), warning.message);
    assert.match(warning.message, /--tool-call-parser|--jinja/);
    assert.equal(completed(events).message.tool_calls, undefined);
  });
}

Deno.test("stream() keeps annotations (openrouter_web_annotations, openai_url_citation)", async () => {
  for (const fixture of ["openrouter_web_annotations", "openai_url_citation"]) {
    const done = completed(await replay(fixture));
    const annotations = done.message.annotations as { type: string }[];
    assert.equal(annotations.length, 1, fixture);
    assert.equal(annotations[0].type, "url_citation");
    assert.deepEqual(done.raw.annotations, annotations);
  }
});

Deno.test("stream() reports top-level citations as raw annotations (perplexity_citations)", async () => {
  assert.deepEqual(completed(await replay("perplexity_citations")).raw.annotations, [
    "https://deno.com",
  ]);
});

Deno.test("stream() rewrites ids to Mistral's format (mistral_long_tool_call_ids)", async () => {
  const events = await replay("mistral_long_tool_call_ids", { toolCallIdFormat: "mistral9" });
  const ids = completed(events).message.tool_calls!.map((c) => c.id);
  assert.match(ids[0], /^[a-zA-Z0-9]{9}$/);
  assert.equal(ids[1], "Ab3dE6gH9");
  assert.deepEqual(started(events).map((s) => s[1]), ids);
  const again = completed(
    await replay("mistral_long_tool_call_ids", { toolCallIdFormat: "mistral9" }),
  );
  assert.equal(again.message.tool_calls![0].id, ids[0]);
});

Deno.test("stream() keeps unknown tool call fields (gemini_extra_content)", async () => {
  const done = completed(await replay("gemini_extra_content"));
  assert.deepEqual(done.message.tool_calls?.[0].extra_content, {
    google: { thought_signature: "c2lnbmF0dXJl" },
  });
});

Deno.test("stream() keeps content parts and streams thinking (mistral_content_parts)", async () => {
  const events = await replay("mistral_content_parts");
  assert.deepEqual(events.flatMap((e) => e.type === "reasoning_delta" ? [e.text] : []), [
    "Two plus",
    " two.",
  ]);
  assert.deepEqual(events.flatMap((e) => e.type === "text_delta" ? [e.text] : []), [
    "It is ",
    "4.",
  ]);
  assert.deepEqual(completed(events).message.content, [
    { type: "thinking", thinking: [{ type: "text", text: "Two plus two." }] },
    { type: "text", text: "It is 4." },
  ]);
});

Deno.test("every fixture in tests/fixtures/streams has a test here", async () => {
  const source = await Deno.readTextFile(new URL(import.meta.url));
  for (const entry of Deno.readDirSync(new URL("../../tests/fixtures/streams/", import.meta.url))) {
    const name = entry.name.replace(/\.sse$/, "");
    assert.ok(source.includes(`"${name}"`), `no test replays ${entry.name}`);
  }
});
