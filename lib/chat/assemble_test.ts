import assert from "node:assert/strict";
import { assembleResponse, chunkError, StreamAssembler } from "./assemble.ts";
import type { ChatCompletionChunk, ToolCallDelta } from "./messages.ts";
import type { ModelEvent } from "./port.ts";

const tc = (...fragments: ToolCallDelta[]): ChatCompletionChunk => ({
  id: "r1",
  choices: [{ index: 0, delta: { tool_calls: fragments } }],
});
const fin = (reason: string | null): ChatCompletionChunk => ({
  choices: [{ index: 0, delta: {}, finish_reason: reason }],
});

function run(chunks: ChatCompletionChunk[], opts = {}) {
  const a = new StreamAssembler(opts);
  const events: ModelEvent[] = chunks.flatMap((c) => a.push(c));
  events.push(...a.finish());
  const done = events.at(-1);
  if (done?.type !== "completed") throw new Error("no completed");
  return { events, done };
}

Deno.test("StreamAssembler ignores a name repeated in every fragment", () => {
  const f = (args: string) => ({
    index: 0,
    id: "c1",
    type: "function",
    function: { name: "ls", arguments: args },
  });
  const { done } = run([tc(f('{"a"')), tc(f(": 1}")), fin("tool_calls")]);
  assert.deepEqual(done.message.tool_calls?.[0].function, { name: "ls", arguments: '{"a": 1}' });
});

Deno.test("StreamAssembler adopts an id that arrives after the first fragment", () => {
  const { done } = run([
    tc({ index: 0, function: { name: "ls" } }),
    tc({ index: 0, id: "late", function: { arguments: "{}" } }),
    fin("tool_calls"),
  ]);
  assert.deepEqual(done.message.tool_calls?.map((c) => c.id), ["late"]);
});

Deno.test("StreamAssembler starts a new call when an id-less fragment names a new function", () => {
  const { done } = run([
    tc({ function: { name: "a", arguments: "{}" } }),
    tc({ function: { name: "b", arguments: '{"x":' } }),
    tc({ function: { arguments: "1}" } }),
    fin("tool_calls"),
  ]);
  assert.deepEqual(done.message.tool_calls?.map((c) => [c.function.name, c.function.arguments]), [
    ["a", "{}"],
    ["b", '{"x":1}'],
  ]);
  assert.notEqual(done.message.tool_calls?.[0].id, done.message.tool_calls?.[1].id);
});

Deno.test("StreamAssembler stringifies object arguments", () => {
  const { done } = run([
    tc({ index: 0, id: "c", function: { name: "ls", arguments: { dir: "." } } }),
  ]);
  assert.equal(done.message.tool_calls?.[0].function.arguments, '{"dir":"."}');
});

Deno.test("StreamAssembler reports non-object arguments and empty names, never repairs them", () => {
  const { done } = run([
    tc({ index: 0, id: "c1", function: { name: "ls", arguments: '"{\\"dir\\": 1}"' } }),
    tc({ index: 1, id: "c2", function: { name: "", arguments: "[1]" } }),
    fin("tool_calls"),
  ]);
  assert.deepEqual(done.callIssues.map((i) => [i.id, i.kind]), [
    ["c1", "malformed-json"],
    ["c2", "empty-name"],
    ["c2", "malformed-json"],
  ]);
  assert.match(done.callIssues[0].detail, /expected an object, got string/);
  assert.equal(done.message.tool_calls?.[1].function.arguments, "[1]");
});

Deno.test("StreamAssembler fills a missing finish_reason quietly", () => {
  const calls = run([tc({ index: 0, id: "c", function: { name: "ls", arguments: "{}" } })]);
  assert.equal(calls.done.finishReason, "tool_calls");
  assert.ok(calls.events.every((e) => e.type !== "warning"));
  const text = run([{ choices: [{ delta: { content: "hi" } }] }]);
  assert.equal(text.done.finishReason, null);
  assert.equal(text.done.message.content, "hi");
});

Deno.test("StreamAssembler keeps unknown delta fields and uses choice 0 only", () => {
  const { done } = run([
    {
      choices: [{ index: 1, delta: { content: "other choice" } }, {
        index: 0,
        delta: { content: "A", refusal: "I " },
      }],
    },
    { choices: [{ index: 0, delta: { refusal: "can't", provider_specific_fields: { x: 1 } } }] },
    fin("stop"),
  ]);
  assert.deepEqual(done.message, {
    role: "assistant",
    content: "A",
    refusal: "I can't",
    provider_specific_fields: { x: 1 },
  });
});

Deno.test("StreamAssembler announces each call once, with its final name", () => {
  const { events } = run([
    tc({ index: 0, id: "c1", function: { name: "read_" } }),
    tc({ index: 0, function: { name: "file" } }),
    tc({ index: 0, function: { arguments: "{}" } }),
    tc({ index: 1, id: "c2", function: { name: "ls", arguments: "{}" } }),
    fin("tool_calls"),
  ]);
  assert.deepEqual(events.filter((e) => e.type === "tool_call_started"), [
    { type: "tool_call_started", index: 0, id: "c1", name: "read_file" },
    { type: "tool_call_started", index: 1, id: "c2", name: "ls" },
  ]);
});

Deno.test("chunkError() finds OpenAI, string and vLLM error shapes", () => {
  assert.equal(chunkError({ error: { message: "boom", code: 500 } }), "boom");
  assert.equal(chunkError({ error: "plain" }), "plain");
  assert.equal(chunkError({ object: "error", message: "vllm says no" }), "vllm says no");
  assert.equal(chunkError({ choices: [] }), undefined);
  assert.equal(chunkError({ error: null, choices: [] }), undefined);
});

Deno.test("assembleResponse() keeps the message verbatim and rejects a body without one", () => {
  const message = { role: "assistant", content: "hi", refusal: null, audio: null };
  const events = assembleResponse({ choices: [{ message, finish_reason: "stop" }] });
  assert.deepEqual(events[0], { type: "text_delta", text: "hi" });
  const done = events.at(-1);
  assert.ok(done?.type === "completed");
  assert.deepEqual(done.message, message);
  assert.throws(() => assembleResponse({ object: "list" }), TypeError);
});
