import assert from "node:assert/strict";
import type { LoopEvent } from "../chat/loop.ts";
import type { CallResult } from "../exec/call_types.ts";
import type { Io } from "./io.ts";
import { jsonEvent, Renderer, summarizeArguments, SUMMARY_VALUE_CHARS } from "./render.ts";
import { makeStyle } from "./style.ts";

/** An `Io` that captures both streams; nothing is a terminal. */
function captureIo() {
  const captured = { out: "", err: "" };
  const unused = () => {
    throw new Error("the renderer must not read input or the environment");
  };
  const io: Io = {
    out: (text) => void (captured.out += text),
    err: (text) => void (captured.err += text),
    getEnv: unused,
    envObject: unused,
    cwd: unused,
    isTerminal: { stdin: false, stdout: false, stderr: false },
    readStdin: unused,
    readLine: unused,
  };
  return { io, captured };
}

/** A clock that reads 0, then 1500 ms. */
function clock() {
  const readings = [0, 1500];
  return () => readings.shift() ?? 1500;
}

function result(overrides: Partial<CallResult> = {}): CallResult {
  return {
    ok: true,
    content: "hello",
    exitCode: 0,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 12,
    warnings: [],
    ...overrides,
  };
}

const RUN: LoopEvent[] = [
  { type: "turn_start", turn: 1, tools: 2 },
  { type: "text_delta", text: "Let me look" },
  { type: "tool_call", turn: 1, id: "c1", name: "read", arguments: '{"path":"a.txt"}' },
  { type: "tool_result", turn: 1, id: "c1", name: "read", result: result() },
  { type: "turn_end", turn: 1, usage: { total_tokens: 10 }, totalTokens: 10 },
  { type: "turn_start", turn: 2, tools: 2 },
  { type: "text_delta", text: "The file says hello" },
  {
    type: "done",
    reason: "stop",
    exitCode: 0,
    turns: 2,
    totalTokens: 30,
    finalText: "The file says hello",
  },
];

Deno.test("Renderer json mode prints one JSON object per line with tool_result flattened", () => {
  const { io, captured } = captureIo();
  const renderer = new Renderer(io, "json", { err: makeStyle(true) }, clock());
  renderer.info({ type: "run_start", model: "m" }, "starting");
  for (const e of RUN) renderer.event(e);
  assert.equal(captured.err, "");
  const lines = captured.out.split("\n");
  assert.equal(lines.pop(), "", "every line ends with a newline");
  const objects = lines.map((l) => JSON.parse(l));
  assert.deepEqual(objects.map((o) => o.type), ["run_start", ...RUN.map((e) => e.type)]);
  assert.deepEqual(objects[4], {
    type: "tool_result",
    turn: 1,
    id: "c1",
    name: "read",
    ok: true,
    content: "hello",
    exitCode: 0,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 12,
    warnings: [],
  });
  assert.deepEqual(objects.at(-1), RUN.at(-1));
});

Deno.test("jsonEvent() keeps events other than tool_result as they are", () => {
  const e: LoopEvent = { type: "warning", code: "text-tool-call", message: "m" };
  assert.deepEqual(jsonEvent(e), e);
});

Deno.test("Renderer plain mode prints the answer on stdout and progress on stderr", () => {
  const { io, captured } = captureIo();
  const renderer = new Renderer(io, "plain", { err: makeStyle(false) }, clock());
  for (const e of RUN) renderer.event(e);
  assert.equal(captured.out, "The file says hello\n");
  assert.equal(
    captured.err,
    [
      '▸ read path="a.txt"',
      "✓ read 12 ms",
      "stop · 2 turns · 30 tokens · 1.5s · exit 0",
      "",
    ].join("\n"),
  );
});

Deno.test("Renderer plain mode keeps stdout free of color and progress", () => {
  const { io, captured } = captureIo();
  const renderer = new Renderer(io, "plain", { err: makeStyle(true) }, clock());
  for (const e of RUN) renderer.event(e);
  assert.equal(captured.out, "The file says hello\n");
  assert.ok(captured.err.includes("\x1b["), "stderr is colored by its own style");
});

Deno.test("Renderer plain mode shows failures, denials, warnings, the error and its hint", () => {
  const { io, captured } = captureIo();
  const renderer = new Renderer(io, "plain", { err: makeStyle(false) }, clock());
  renderer.event({
    type: "tool_result",
    turn: 1,
    id: "c1",
    name: "shell",
    result: result({
      ok: false,
      durationMs: 0,
      failure: "denied",
      denied: { reason: 'Tool "shell" needs approval' },
      warnings: ["shell: Landlock is not available"],
    }),
  });
  renderer.event({
    type: "tool_result",
    turn: 1,
    id: "c2",
    name: "slow",
    result: result({ ok: false, timedOut: true, durationMs: 5000, failure: "tool-failed" }),
  });
  renderer.event({
    type: "done",
    reason: "denied",
    exitCode: 5,
    turns: 1,
    totalTokens: 0,
    finalText: "",
    error: { message: 'Tool "shell" needs approval', hint: "run with --approval yolo" },
  });
  assert.equal(captured.out, "");
  assert.equal(
    captured.err,
    [
      '✗ shell 0 ms denied: Tool "shell" needs approval',
      "warning: shell: Landlock is not available",
      "✗ slow 5000 ms timed out",
      'error: Tool "shell" needs approval',
      "hint: run with --approval yolo",
      "denied · 1 turn · 0 tokens · 1.5s · exit 5",
      "",
    ].join("\n"),
  );
});

Deno.test("Renderer plain mode shows provider annotations and content parts on stderr", () => {
  const { io, captured } = captureIo();
  const renderer = new Renderer(io, "plain", { err: makeStyle(false) }, clock());
  renderer.event({ type: "native_output", turn: 1, annotations: [{ url: "https://deno.com" }] });
  renderer.event({ type: "native_output", turn: 1, parts: [{ type: "image_url" }] });
  assert.equal(captured.out, "");
  assert.equal(
    captured.err,
    'provider annotations: [{"url":"https://deno.com"}]\n' +
      'provider content parts: [{"type":"image_url"}]\n',
  );
});

Deno.test("Renderer tty mode streams text on stdout and ends a started line", () => {
  const { io, captured } = captureIo();
  const renderer = new Renderer(io, "tty", { err: makeStyle(false) }, clock());
  for (const e of RUN) renderer.event(e);
  assert.equal(
    captured.out,
    "Let me look\nThe file says hello\n",
    "the answer is not printed twice",
  );
  assert.match(captured.err, /^▸ read path="a.txt"\n✓ read 12 ms\nstop · 2 turns/);
});

Deno.test("summarizeArguments() shows key=value pairs", () => {
  assert.equal(
    summarizeArguments('{"path":"a.txt","n":3,"deep":{"x":[1]}}'),
    'path="a.txt" n=3 deep={"x":[1]}',
  );
  assert.equal(summarizeArguments(""), "");
});

Deno.test("summarizeArguments() cuts long values", () => {
  const summary = summarizeArguments(JSON.stringify({ content: "x".repeat(500), n: 1 }));
  const [content, n] = summary.split(" ");
  assert.equal(content, `content="${"x".repeat(SUMMARY_VALUE_CHARS - 2)}…`);
  assert.equal(content.length, "content=".length + SUMMARY_VALUE_CHARS);
  assert.equal(n, "n=1");
});

Deno.test("summarizeArguments() shows text that is not an object, cut", () => {
  assert.equal(summarizeArguments('{"path":\n  "a'), '{"path": "a');
  assert.equal(summarizeArguments(`[${"1,".repeat(100)}1]`).length, SUMMARY_VALUE_CHARS);
  assert.equal(summarizeArguments("null"), "null");
});
