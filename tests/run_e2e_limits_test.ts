/**
 * `harness run` end to end when things go wrong: retries, a cut stream, a hung server,
 * a stalled tool, approvals without a terminal, and Ctrl-C of a real process.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  assertValidRequests,
  parseJsonLines,
  runHarness,
  spawnHarness,
  stageProject,
  withFakeServer,
} from "./_helpers/cli.ts";
import { findProcesses } from "./_helpers/procs.ts";
import { sseResponse, sseText, sseToolCalls } from "./_helpers/sse.ts";
import { startFakeOpenAI } from "./fake_openai.ts";

type Json = Record<string, unknown>;
const lastEvent = (stdout: string) => parseJsonLines(stdout).at(-1)!;

Deno.test("runCli() run waits for Retry-After after HTTP 429, then succeeds", async () => {
  await using project = await stageProject("limits");
  const fake = await withFakeServer([
    {
      status: 429,
      headers: { "retry-after": "1" },
      json: { error: { message: "Rate limit reached", type: "requests" } },
    },
    () => sseResponse(sseText("r", "Made it.")),
  ], async (fake) => {
    const started = performance.now();
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "hello"],
      { cwd: project.root },
    );
    const elapsed = performance.now() - started;
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Made it.\n");
    assert.match(run.stderr, /retrying in 1000 ms \(attempt 1\): HTTP 429/);
    assert.ok(elapsed >= 950, `retried after ${elapsed} ms, before the 1 s Retry-After`);
  });
  assert.equal(fake.requests.length, 2);
  assert.deepEqual(fake.requests[1].body, fake.requests[0].body);
});

Deno.test("runCli() run exits 3 after HTTP 500 on every attempt (provider.maxRetries 2)", async () => {
  await using project = await stageProject("limits");
  // retry-after-ms keeps the test fast; the backoff itself is unit-tested in the provider.
  const fail = {
    status: 500,
    headers: { "retry-after-ms": "5" },
    json: { error: { message: "The server had an error" } },
  };
  const fake = await withFakeServer([fail, fail, fail], async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--json", "hello"],
      { cwd: project.root },
    );
    assert.equal(run.code, 3, run.stderr);
    const events = parseJsonLines(run.stdout);
    assert.deepEqual(events.filter((e) => e.type === "retry").map((e) => e.attempt), [1, 2]);
    const done = events.at(-1)!;
    assert.equal(done.reason, "provider_error");
    assert.match((done.error as Json).message as string, /HTTP 500.*The server had an error/s);
  });
  assert.equal(fake.requests.length, 3);
});

Deno.test("runCli() run exits 3 when the stream is cut in the middle, without a retry", async () => {
  await using project = await stageProject("limits");
  const body = sseText("r", "This answer is long enough to be cut somewhere in the middle of it.");
  const fake = await withFakeServer([{ sse: body, cutAfterBytes: 600 }], async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--json", "hello"],
      { cwd: project.root },
    );
    assert.equal(run.code, 3, run.stderr);
    const done = lastEvent(run.stdout);
    assert.equal(done.reason, "provider_error");
    assert.match((done.error as Json).message as string, /broke off|ended before/);
    assert.equal(done.finalText, "");
  });
  assert.equal(fake.requests.length, 1);
});

Deno.test("runCli() run exits 4 when --timeout fires while the server hangs", async () => {
  await using project = await stageProject("limits");
  await withFakeServer([{ hang: true }], async (fake) => {
    const started = performance.now();
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--json", "--timeout", "1s", "hello"],
      { cwd: project.root },
    );
    assert.equal(run.code, 4, run.stderr);
    const done = lastEvent(run.stdout);
    assert.deepEqual([done.reason, done.exitCode], ["timeout", 4]);
    assert.ok(performance.now() - started < 5000);
  });
});

Deno.test("runCli() run exits 4 when --timeout fires while a tool runs, and kills it", async () => {
  await using project = await stageProject("limits");
  await withFakeServer([
    () => sseResponse(sseToolCalls("r", [{ id: "call_s", name: "stall", args: {} }])),
  ], async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--json", "--timeout", "700ms", "go"],
      { cwd: project.root },
    );
    assert.equal(run.code, 4, run.stderr);
    assert.equal(lastEvent(run.stdout).reason, "timeout");
  });
  assert.equal(await project.read("stall.started"), "started\n");
  assert.equal(await project.read("stall.finished"), undefined);
  assert.deepEqual(findProcesses(project.dir), [], "the stalled tool still runs");
});

Deno.test("runCli() run denies a call that needs approval without a terminal (exit 5)", async () => {
  await using project = await stageProject("approval");
  const transcript = `${project.root}/t.jsonl`;
  await withFakeServer([
    () => sseResponse(sseToolCalls("r", [{ id: "call_m", name: "touch_marker", args: {} }])),
  ], async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--transcript", transcript, "touch"],
      { cwd: project.root },
    );
    assert.equal(run.code, 5, run.stderr);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /denied touch_marker: Tool "touch_marker" needs approval/);
    assert.match(run.stderr, /hint: run with --approval yolo/);
  });
  assert.equal(await project.read("marker.txt"), undefined, "the denied tool ran");
  const records = parseJsonLines(await Deno.readTextFile(transcript));
  const approval = records.find((r) => r.type === "approval")!;
  assert.deepEqual([approval.tool, approval.approved, approval.by], [
    "touch_marker",
    false,
    "mode",
  ]);
  const result = records.find((r) => r.type === "tool_result")!;
  assert.deepEqual([result.ok, result.failure], [false, "denied"]);
  assert.deepEqual([records.at(-1)!.reason, records.at(-1)!.exitCode], ["denied", 5]);
});

Deno.test("runCli() run --on-denied continue tells the model and goes on", async () => {
  await using project = await stageProject("approval");
  const fake = await withFakeServer([
    () => sseResponse(sseToolCalls("r", [{ id: "call_m", name: "touch_marker", args: {} }])),
    () => sseResponse(sseText("r2", "I could not touch the marker.")),
  ], async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--on-denied", "continue", "touch"],
      { cwd: project.root },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "I could not touch the marker.\n");
  });
  assert.equal(await project.read("marker.txt"), undefined);
  const tool = (fake.requests[1].body as { messages: Json[] }).messages[2];
  assert.equal(tool.tool_call_id, "call_m");
  assert.match(
    tool.content as string,
    /^Denied: Tool "touch_marker" needs approval \(approval: always\) and there is no terminal to ask on\. Do not retry/,
  );
});

Deno.test("harness run exits 130 on SIGINT and flushes the transcript (subprocess)", async () => {
  await using project = await stageProject("formats");
  const transcript = `${project.root}/t.jsonl`;
  const first = `data: ${
    JSON.stringify({
      id: "r",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{
        index: 0,
        delta: { role: "assistant", content: "Working" },
        finish_reason: null,
      }],
    })
  }\n\n`;
  // The first event, then silence for a minute: a server that hangs mid-stream.
  const fake = startFakeOpenAI([{ sse: first + sseText("r", "never sent"), chunkDelayMs: 60_000 }]);
  try {
    const proc = spawnHarness([
      "-C",
      project.dir,
      "run",
      "--base-url",
      fake.url,
      "--json",
      "--transcript",
      transcript,
      "take your time",
    ]);
    await proc.waitForStdout((out) => out.includes('"text":"Working"'), 30_000);
    proc.child.kill("SIGINT");
    const run = await proc.finished();
    assert.equal(run.code, 130, run.stderr);
    const done = lastEvent(run.stdout);
    assert.deepEqual([done.type, done.reason, done.exitCode], ["done", "interrupted", 130]);
    const records = parseJsonLines(await Deno.readTextFile(transcript));
    assert.deepEqual(records.map((r) => r.type), ["run_start", "message", "turn_start", "done"]);
    assert.deepEqual([records[3].reason, records[3].exitCode], ["interrupted", 130]);
  } finally {
    await fake.close();
  }
  assert.equal(fake.requests.length, 1);
  assertValidRequests(fake.requests.map((r) => r.body));
});
