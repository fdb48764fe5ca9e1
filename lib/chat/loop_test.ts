import assert from "node:assert/strict";
import type { CallRequest, CallResult } from "../exec/call_types.ts";
import { type LoopEvent, type LoopOptions, runChat, type TurnTools } from "./loop.ts";
import type { ChatMessage, ModelRequest } from "./port.ts";
import { ProviderError } from "./errors.ts";
import {
  call,
  callsReply,
  completed,
  reply,
  type ScriptedModel,
  scriptedModel,
} from "../../tests/_helpers/scripted_model.ts";

type Done = Extract<LoopEvent, { type: "done" }>;

const USER: ChatMessage[] = [
  { role: "system", content: "Be brief" },
  { role: "user", content: "Do the thing" },
];

function spec(name: string): unknown {
  return {
    type: "function",
    function: { name, description: `The ${name} tool`, parameters: { type: "object" } },
  };
}

/** A tool set that never changes; `readOnly` names may run in parallel. */
function toolset(names: string[], readOnly: string[] = [], native: unknown[] = []) {
  return (): Promise<TurnTools> =>
    Promise.resolve({
      payload: [...names.map(spec), ...native],
      names,
      readOnly: new Set(readOnly),
    });
}

function okResult(content: string): CallResult {
  return {
    ok: true,
    content,
    exitCode: 0,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 1,
    warnings: [],
  };
}

function deniedResult(reason: string, hint: string): CallResult {
  return {
    ok: false,
    content: `Denied: ${reason}. Do not retry this call; continue without it or ask the user.`,
    exitCode: null,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 0,
    failure: "denied",
    denied: { reason, hint },
    warnings: [],
  };
}

/** An `execute` that records its calls and answers `name(args)` unless told otherwise. */
function recorder(answer?: (c: CallRequest) => CallResult | Promise<CallResult>) {
  const calls: CallRequest[] = [];
  const execute = (c: CallRequest, _signal: AbortSignal): Promise<CallResult> => {
    calls.push(c);
    return Promise.resolve(answer ? answer(c) : okResult(`${c.name}(${c.rawArguments})`));
  };
  return { calls, execute };
}

function options(model: ScriptedModel, overrides: Partial<LoopOptions> = {}): LoopOptions {
  return {
    model,
    messages: USER,
    tools: toolset(["read", "write"], ["read"]),
    nativeTools: [],
    execute: recorder().execute,
    maxTurns: 10,
    parallelism: 4,
    onDenied: "stop",
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function run(opts: LoopOptions) {
  const events: LoopEvent[] = [];
  const gen = runChat(opts);
  let history: ChatMessage[];
  while (true) {
    const next = await gen.next();
    if (next.done) {
      history = next.value;
      break;
    }
    events.push(next.value);
  }
  const done = events.at(-1) as Done;
  assert.equal(done.type, "done", "the last event is done");
  assert.equal(events.filter((e) => e.type === "done").length, 1, "one done event");
  return { events, history, done };
}

function ofType<T extends LoopEvent["type"]>(events: LoopEvent[], type: T) {
  return events.filter((e): e is Extract<LoopEvent, { type: T }> => e.type === type);
}

function toolMessages(req: ModelRequest): ChatMessage[] {
  return req.messages.filter((m) => m.role === "tool");
}

Deno.test("runChat() ends with stop and exit 0 when the model answers without calls", async () => {
  using model = scriptedModel([{
    expect: (req) => {
      assert.deepEqual(req.messages, USER);
      assert.deepEqual(req.tools, [spec("read"), spec("write")]);
    },
    events: [{ type: "text_delta", text: "All " }, { type: "text_delta", text: "done" }, {
      ...reply("All done"),
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    }],
  }]);
  const { events, history, done } = await run(options(model));
  assert.deepEqual(events.map((e) => e.type), [
    "turn_start",
    "text_delta",
    "text_delta",
    "assistant_message",
    "turn_end",
    "done",
  ]);
  assert.deepEqual(done, {
    type: "done",
    reason: "stop",
    exitCode: 0,
    turns: 1,
    totalTokens: 12,
    finalText: "All done",
  });
  assert.deepEqual(history, [...USER, { role: "assistant", content: "All done" }]);
  assert.equal(USER.length, 2, "the caller's history is not changed");
});

Deno.test("runChat() runs the calls, appends the results and sends them on the next turn", async () => {
  const exec = recorder();
  const first = callsReply([call("c1", "read", { path: "a.txt" })], {
    usage: { prompt_tokens: 5, completion_tokens: 3 },
  });
  using model = scriptedModel([
    { events: [{ type: "tool_call_started", index: 0, id: "c1", name: "read" }, first] },
    {
      expect: (req) => {
        assert.deepEqual(req.messages, [
          ...USER,
          first.message,
          { role: "tool", tool_call_id: "c1", content: 'read({"path":"a.txt"})' },
        ]);
      },
      events: [reply("The file says hi", { usage: { total_tokens: 20 } })],
    },
  ]);
  const { events, history, done } = await run(options(model, { execute: exec.execute }));
  assert.deepEqual(exec.calls, [{ name: "read", rawArguments: '{"path":"a.txt"}', id: "c1" }]);
  assert.deepEqual(events.map((e) => e.type), [
    "turn_start",
    "tool_call_started",
    "assistant_message",
    "tool_call",
    "tool_result",
    "turn_end",
    "turn_start",
    "assistant_message",
    "turn_end",
    "done",
  ]);
  assert.deepEqual(ofType(events, "tool_call")[0], {
    type: "tool_call",
    turn: 1,
    id: "c1",
    name: "read",
    arguments: '{"path":"a.txt"}',
  });
  const result = ofType(events, "tool_result")[0];
  assert.equal(result.turn, 1);
  assert.equal(result.result.content, 'read({"path":"a.txt"})');
  assert.equal(done.reason, "stop");
  assert.equal(done.turns, 2);
  assert.equal(done.totalTokens, 28, "prompt + completion when total_tokens is missing");
  assert.equal(history.length, 5);
});

Deno.test("runChat() stops with max_turns and exit 4 while the model still wants tools", async () => {
  using model = scriptedModel([
    { events: [callsReply([call("c1", "read", { path: "1" })])] },
    { events: [callsReply([call("c2", "read", { path: "2" })])] },
  ]);
  const exec = recorder();
  const { done } = await run(options(model, { maxTurns: 2, execute: exec.execute }));
  assert.equal(done.reason, "max_turns");
  assert.equal(done.exitCode, 4);
  assert.equal(done.turns, 2);
  assert.match(done.error!.message, /after 2 turns/);
  assert.equal(exec.calls.length, 2, "the calls of the last turn still ran");
});

Deno.test("runChat() stops with token_budget and exit 4 once the budget is used", async () => {
  using model = scriptedModel([
    { events: [callsReply([call("c1", "read", { path: "1" })], { usage: { total_tokens: 60 } })] },
    { events: [callsReply([call("c2", "read", { path: "2" })], { usage: { total_tokens: 60 } })] },
  ]);
  const { events, done } = await run(options(model, { tokenBudget: 100 }));
  assert.equal(done.reason, "token_budget");
  assert.equal(done.exitCode, 4);
  assert.equal(done.totalTokens, 120);
  assert.match(done.error!.message, /120 tokens.*100/);
  assert.deepEqual(ofType(events, "turn_end").map((e) => e.totalTokens), [60, 120]);
});

Deno.test("runChat() stops with timeout and exit 4 when aborted with reason timeout", async () => {
  const controller = new AbortController();
  using model = scriptedModel([{ events: [callsReply([call("c1", "read", { path: "1" })])] }]);
  const exec = recorder((c) => {
    controller.abort("timeout");
    return okResult(c.name);
  });
  const { events, done } = await run(
    options(model, { execute: exec.execute, signal: controller.signal }),
  );
  assert.equal(done.reason, "timeout");
  assert.equal(done.exitCode, 4);
  assert.equal(ofType(events, "tool_result").length, 1, "the finished call is still reported");
});

Deno.test("runChat() stops with interrupted and exit 130 when aborted during a model call", async () => {
  const controller = new AbortController();
  using model = scriptedModel([{
    expect: () => void setTimeout(() => controller.abort("interrupted"), 0),
    events: [{ type: "text_delta", text: "thinking" }],
    hang: true,
  }]);
  const { done } = await run(options(model, { signal: controller.signal }));
  assert.equal(done.reason, "interrupted");
  assert.equal(done.exitCode, 130);
  assert.equal(done.error, undefined);
});

Deno.test("runChat() does not call the model when aborted before the first turn", async () => {
  const controller = new AbortController();
  controller.abort("timeout");
  using model = scriptedModel([]);
  const { events, done } = await run(options(model, { signal: controller.signal }));
  assert.deepEqual(events.map((e) => e.type), ["done"]);
  assert.equal(done.reason, "timeout");
  assert.equal(done.turns, 0);
});

Deno.test("runChat() stops with provider_error and exit 3 with the port's message", async () => {
  using model = scriptedModel([{
    error: new ProviderError("http", 'Request to "http://x/v1" failed: HTTP 500', {
      status: 500,
      hint: "check the server log",
    }),
  }]);
  const { done } = await run(options(model));
  assert.equal(done.reason, "provider_error");
  assert.equal(done.exitCode, 3);
  assert.deepEqual(done.error, {
    message: 'Request to "http://x/v1" failed: HTTP 500',
    hint: "check the server log",
  });
});

Deno.test("runChat() reports a stream that ends without a message as provider_error", async () => {
  using model = scriptedModel([{ events: [{ type: "text_delta", text: "half" }] }]);
  const { done } = await run(options(model));
  assert.equal(done.reason, "provider_error");
  assert.equal(done.exitCode, 3);
  assert.match(done.error!.message, /without a message/);
});

/** A promise with its resolver. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => resolve = r);
  return { promise, resolve };
}

Deno.test("runChat() runs read-only calls in parallel, bounded, and appends them in order", async () => {
  // a waits for b, c waits for d: with 2 workers the finish order is b, a, d, c.
  const finished = { a: deferred(), b: deferred(), c: deferred(), d: deferred() };
  const waitsFor: Record<string, keyof typeof finished | undefined> = { a: "b", c: "d" };
  const finishOrder: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const execute = async (c: CallRequest): Promise<CallResult> => {
    const key = JSON.parse(c.rawArguments!).path as keyof typeof finished;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const other = waitsFor[key];
    if (other) await finished[other].promise;
    else await Promise.resolve();
    inFlight--;
    finishOrder.push(key);
    finished[key].resolve();
    return okResult(`read ${key}`);
  };
  const calls = ["a", "b", "c", "d"].map((p) => call(`id_${p}`, "read", { path: p }));
  using model = scriptedModel([
    { events: [callsReply(calls)] },
    {
      expect: (req) => {
        assert.deepEqual(toolMessages(req), [
          { role: "tool", tool_call_id: "id_a", content: "read a" },
          { role: "tool", tool_call_id: "id_b", content: "read b" },
          { role: "tool", tool_call_id: "id_c", content: "read c" },
          { role: "tool", tool_call_id: "id_d", content: "read d" },
        ]);
      },
      events: [reply("ok")],
    },
  ]);
  const { events } = await run(options(model, { execute, parallelism: 2 }));
  assert.equal(maxInFlight, 2);
  assert.deepEqual(finishOrder, ["b", "a", "d", "c"]);
  assert.deepEqual(ofType(events, "tool_result").map((e) => e.id), [
    "id_a",
    "id_b",
    "id_c",
    "id_d",
  ]);
});

Deno.test("runChat() runs other calls one at a time, in order, between read-only groups", async () => {
  const log: string[] = [];
  let inFlight = 0;
  const execute = async (c: CallRequest): Promise<CallResult> => {
    const key = JSON.parse(c.rawArguments!).path as string;
    log.push(`start ${key}`);
    inFlight++;
    // Earlier calls take longer: if the writes overlapped, "end w4" would come first.
    const ticks: Record<string, number> = { r1: 6, r2: 1, w3: 6, w4: 1, r5: 1 };
    for (let i = 0; i < ticks[key]; i++) await Promise.resolve();
    inFlight--;
    log.push(`end ${key}`);
    return okResult(key);
  };
  using model = scriptedModel([
    {
      events: [callsReply([
        call("1", "read", { path: "r1" }),
        call("2", "read", { path: "r2" }),
        call("3", "write", { path: "w3" }),
        call("4", "write", { path: "w4" }),
        call("5", "read", { path: "r5" }),
      ])],
    },
    { events: [reply("ok")] },
  ]);
  await run(options(model, { execute }));
  assert.deepEqual(log, [
    "start r1",
    "start r2",
    "end r2",
    "end r1",
    "start w3",
    "end w3",
    "start w4",
    "end w4",
    "start r5",
    "end r5",
  ]);
  assert.equal(inFlight, 0);
});

Deno.test("runChat() answers an unknown tool with the available tools and runs nothing", async () => {
  const exec = recorder();
  using model = scriptedModel([
    { events: [callsReply([call("c1", "delete_everything", { all: true })])] },
    {
      expect: (req) => {
        const [tool] = toolMessages(req);
        assert.equal(tool.tool_call_id, "c1");
        assert.match(String(tool.content), /Unknown tool "delete_everything"/);
        assert.match(String(tool.content), /Available tools: read, write/);
      },
      events: [reply("sorry")],
    },
  ]);
  const { events, done } = await run(options(model, { execute: exec.execute }));
  assert.equal(exec.calls.length, 0);
  assert.equal(ofType(events, "tool_result")[0].result.failure, "unknown-tool");
  assert.equal(ofType(events, "tool_result")[0].result.ok, false);
  assert.equal(done.reason, "stop");
});

Deno.test("runChat() explains a provider-native tool called as a function and runs nothing", async () => {
  const native = { type: "openrouter:web_search" };
  const exec = recorder();
  using model = scriptedModel([
    {
      expect: (req) => assert.deepEqual(req.tools, [spec("read"), native]),
      events: [callsReply([call("c1", "web_search", { query: "deno" })])],
    },
    {
      expect: (req) => assert.match(String(toolMessages(req)[0].content), /provider-native tool/),
      events: [reply("ok")],
    },
  ]);
  const { events } = await run(options(model, {
    tools: toolset(["read"], ["read"], [native]),
    nativeTools: [native],
    execute: exec.execute,
  }));
  assert.equal(exec.calls.length, 0);
  const result = ofType(events, "tool_result")[0].result;
  assert.equal(result.failure, "native-tool");
  assert.match(result.content, /"web_search" is a provider-native tool/);
});

Deno.test("runChat() stops with repeat_guard and exit 1 at the third identical call", async () => {
  const exec = recorder();
  using model = scriptedModel([
    { events: [callsReply([call("c1", "read", '{"path":"a","n":1}')])] },
    { events: [callsReply([call("c2", "read", '{ "n": 1,\n  "path": "a" }')])] },
    { events: [callsReply([call("c3", "read", '{"n":1,"path":"a"}')])] },
  ]);
  const { events, history, done } = await run(options(model, { execute: exec.execute }));
  assert.deepEqual(exec.calls.map((c) => c.id), ["c1", "c2"], "the third call is not run");
  assert.equal(done.reason, "repeat_guard");
  assert.equal(done.exitCode, 1);
  assert.match(done.error!.message, /"read" 3 times/);
  const last = ofType(events, "tool_result").at(-1)!;
  assert.equal(last.id, "c3");
  assert.equal(last.result.failure, "refused");
  assert.equal(history.at(-1)!.tool_call_id, "c3", "the refusal is in the history");
});

Deno.test("runChat() stops with repeat_guard on three identical calls in one turn", async () => {
  const exec = recorder();
  const same = { path: "a" };
  using model = scriptedModel([{
    events: [
      callsReply([call("c1", "read", same), call("c2", "read", same), call("c3", "read", same)]),
    ],
  }]);
  const { done } = await run(options(model, { execute: exec.execute }));
  assert.equal(done.reason, "repeat_guard");
  assert.equal(exec.calls.length, 0, "no call of the stopped turn runs");
});

Deno.test("runChat() lets a call repeat when a different changing call ran in between", async () => {
  // The edit-and-rerun cycle: the same test command after each edit is not a loop.
  const exec = recorder();
  const test = { command: "deno test" };
  using model = scriptedModel([
    { events: [callsReply([call("t1", "write", test)])] },
    { events: [callsReply([call("e1", "write", { edit: 1 })])] },
    { events: [callsReply([call("t2", "write", test)])] },
    { events: [callsReply([call("e2", "write", { edit: 2 })])] },
    { events: [callsReply([call("t3", "write", test)])] },
    { events: [reply("fixed")] },
  ]);
  const { done } = await run(options(model, { execute: exec.execute }));
  assert.equal(done.reason, "stop");
  assert.equal(exec.calls.length, 5);
});

Deno.test("runChat() stops a changing call repeated with nothing else in between", async () => {
  const exec = recorder();
  const test = { command: "deno test" };
  using model = scriptedModel([
    { events: [callsReply([call("t1", "write", test)])] },
    { events: [callsReply([call("r1", "read", { path: "log" })])] },
    { events: [callsReply([call("t2", "write", test)])] },
    { events: [callsReply([call("t3", "write", test)])] },
  ]);
  const { done } = await run(options(model, { execute: exec.execute }));
  assert.equal(done.reason, "repeat_guard");
  assert.deepEqual(exec.calls.map((c) => c.id), ["t1", "r1", "t2"]);
});

Deno.test("runChat() counts read-only repeats across other read-only calls", async () => {
  const exec = recorder();
  using model = scriptedModel([
    { events: [callsReply([call("a1", "read", { path: "a" })])] },
    { events: [callsReply([call("b1", "read", { path: "b" })])] },
    { events: [callsReply([call("a2", "read", { path: "a" })])] },
    { events: [callsReply([call("b2", "read", { path: "b" })])] },
    { events: [callsReply([call("a3", "read", { path: "a" })])] },
  ]);
  const { done } = await run(options(model, { execute: exec.execute }));
  assert.equal(done.reason, "repeat_guard");
  assert.deepEqual(exec.calls.map((c) => c.id), ["a1", "b1", "a2", "b2"]);
});

Deno.test("runChat() answers call issues with errors and never runs those calls", async () => {
  const exec = recorder();
  using model = scriptedModel([
    {
      events: [callsReply([call("c1", "read", '{"path": "a'), call("c2", "read", { path: "b" })], {
        callIssues: [{
          id: "c1",
          kind: "malformed-json",
          detail: "The arguments are not valid JSON: unterminated string",
        }],
      })],
    },
    {
      expect: (req) => {
        const [bad, good] = toolMessages(req);
        assert.match(String(bad.content), /^The arguments are not valid JSON: unterminated/);
        assert.match(String(bad.content), /Send the call again with complete, valid JSON/);
        assert.equal(good.content, 'read({"path":"b"})');
      },
      events: [reply("ok")],
    },
  ]);
  const { events, done } = await run(options(model, { execute: exec.execute }));
  assert.deepEqual(exec.calls.map((c) => c.id), ["c2"]);
  assert.equal(ofType(events, "tool_result")[0].result.failure, "invalid-arguments");
  assert.equal(done.reason, "stop");
});

Deno.test("runChat() stops with bad_calls and exit 1 beyond maxBadCalls", async () => {
  const exec = recorder();
  const cut = (id: string) =>
    callsReply([call(id, "write", '{"text": "long')], {
      finishReason: "length",
      callIssues: [{ id, kind: "truncated", detail: "The arguments were cut off" }],
    });
  using model = scriptedModel([{ events: [cut("c1")] }, { events: [cut("c2")] }]);
  const { events, done } = await run(
    options(model, { execute: exec.execute, maxBadCalls: 1 }),
  );
  assert.equal(exec.calls.length, 0);
  assert.equal(done.reason, "bad_calls");
  assert.equal(done.exitCode, 1);
  assert.equal(ofType(events, "tool_result").length, 2, "both calls are answered");
});

Deno.test("runChat() stops with denied and exit 5 on a denial when onDenied is stop", async () => {
  const exec = recorder((c) =>
    c.name === "write"
      ? deniedResult('Tool "write" needs approval', "run with --approval yolo")
      : okResult("read")
  );
  using model = scriptedModel([{
    events: [callsReply([call("c1", "write", { path: "x" }), call("c2", "read", { path: "y" })])],
  }]);
  const { events, history, done } = await run(options(model, { execute: exec.execute }));
  assert.equal(done.reason, "denied");
  assert.equal(done.exitCode, 5);
  assert.deepEqual(done.error, {
    message: 'Tool "write" needs approval',
    hint: "run with --approval yolo",
  });
  assert.deepEqual(exec.calls.map((c) => c.id), ["c1"], "nothing runs after the denial");
  const results = ofType(events, "tool_result");
  assert.deepEqual(results.map((e) => e.id), ["c1", "c2"]);
  assert.match(results[1].result.content, /^Not run/);
  assert.equal(history.filter((m) => m.role === "tool").length, 2);
});

Deno.test("runChat() tells the model about a denial and goes on when onDenied is continue", async () => {
  const denial = deniedResult('Tool "write" needs approval', "run with --approval yolo");
  const exec = recorder(() => denial);
  using model = scriptedModel([
    { events: [callsReply([call("c1", "write", { path: "x" })])] },
    {
      expect: (req) =>
        assert.deepEqual(toolMessages(req), [{
          role: "tool",
          tool_call_id: "c1",
          content: denial.content,
        }]),
      events: [reply("I could not write the file")],
    },
  ]);
  const { done } = await run(
    options(model, { execute: exec.execute, onDenied: "continue" }),
  );
  assert.equal(done.reason, "stop");
  assert.equal(done.exitCode, 0);
  assert.equal(done.finalText, "I could not write the file");
});

Deno.test("runChat() refreshes the tools every turn and offers a tool added between turns", async () => {
  let loads = 0;
  const tools = (): Promise<TurnTools> => {
    loads++;
    const names = loads === 1 ? ["read"] : ["read", "fresh"];
    return Promise.resolve({ payload: names.map(spec), names, readOnly: new Set(["read"]) });
  };
  const exec = recorder();
  using model = scriptedModel([
    {
      expect: (req) => assert.deepEqual(req.tools, [spec("read")]),
      events: [callsReply([call("c1", "read", { path: "a" })])],
    },
    {
      expect: (req) => assert.deepEqual(req.tools, [spec("read"), spec("fresh")]),
      events: [callsReply([call("c2", "fresh")])],
    },
    { events: [reply("ok")] },
  ]);
  const { events } = await run(options(model, { tools, execute: exec.execute }));
  assert.equal(loads, 3, "once per turn");
  assert.deepEqual(ofType(events, "turn_start").map((e) => e.tools), [1, 2, 2]);
  assert.deepEqual(exec.calls.map((c) => c.name), ["read", "fresh"]);
});

Deno.test("runChat() sends the unknown fields of the assistant message back", async () => {
  const assistant: ChatMessage = {
    role: "assistant",
    content: null,
    reasoning_content: "I should read the file first",
    tool_calls: [{
      ...call("c1", "read", { path: "a" }),
      extra_content: { google: { thought_signature: "sig" } },
    }],
  };
  using model = scriptedModel([
    { events: [completed(assistant)] },
    { events: [reply("ok")] },
  ]);
  await run(options(model));
  assert.deepEqual(model.requests[1].messages[USER.length], assistant);
});

Deno.test("runChat() emits native_output for annotations and content parts only", async () => {
  const annotations = [{ type: "url_citation", url_citation: { url: "https://deno.com" } }];
  const parts = [{ type: "thinking", thinking: "hm" }, { type: "text", text: "Answer" }];
  using model = scriptedModel([
    { events: [callsReply([call("c1", "read", { path: "a" })])] },
    { events: [callsReply([call("c2", "read", { path: "b" })], { raw: { annotations } })] },
    { events: [completed({ role: "assistant", content: parts })] },
  ]);
  const { events, done } = await run(options(model));
  assert.deepEqual(ofType(events, "native_output"), [
    { type: "native_output", turn: 2, annotations },
    { type: "native_output", turn: 3, parts },
  ]);
  assert.equal(done.finalText, "Answer", "the text parts are the final answer");
});

Deno.test("scriptedModel() fails verify() on a call beyond the script", async () => {
  const model = scriptedModel([{ events: [callsReply([call("c1", "read", { path: "a" })])] }]);
  const { done } = await run(options(model));
  assert.equal(done.reason, "provider_error");
  assert.throws(() => model.verify(), /Unexpected model call 2/);
});

Deno.test("scriptedModel() fails verify() on a failed check and on an unused step", async () => {
  const checked = scriptedModel([{ expect: () => assert.fail("wrong tools"), events: [] }]);
  await run(options(checked));
  assert.throws(() => checked.verify(), /Model call 1: wrong tools/);
  const unused = scriptedModel([{ events: [reply("a")] }, { events: [reply("b")] }]);
  await run(options(unused));
  assert.throws(() => unused.verify(), /step 2 was never reached/);
});
