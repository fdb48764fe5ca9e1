/**
 * The command-line surface of `harness run` end to end: `--json` events, the final answer
 * in a file, the prompt from standard input, and `--record` / `--replay`.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  assertValidRequests,
  parseJsonLines,
  runHarness,
  stageProject,
  withFakeServer,
} from "./_helpers/cli.ts";
import { sseResponse, sseText, sseToolCalls } from "./_helpers/sse.ts";

type Json = Record<string, unknown>;
const ANSWER = "The notes say: ship it.";
const twoTurns = () => [
  () =>
    sseResponse(
      sseToolCalls("r1", [{ id: "call_s", name: "shout", args: { message: "ship it" } }]),
    ),
  () => sseResponse(sseText("r2", ANSWER)),
];

Deno.test("runCli() run --json prints one JSON event per line, done last", async () => {
  await using project = await stageProject("formats");
  await withFakeServer(twoTurns(), async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--json", "shout"],
      { cwd: project.root },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.endsWith("\n"));
    const events = parseJsonLines(run.stdout);
    assert.equal(events.length, run.stdout.split("\n").length - 1, "a line is not one event");
    assert.equal(events[0].type, "run_start");
    assert.equal(events[0].model, "e2e-model");
    const types = events.map((e) => e.type);
    for (const t of ["turn_start", "tool_call", "tool_result", "assistant_message", "turn_end"]) {
      assert.ok(types.includes(t), `no ${t} event`);
    }
    const result = events.find((e) => e.type === "tool_result")!;
    assert.deepEqual([result.name, result.ok, result.content], ["shout", true, "SHIP IT\n"]);
    const done = events.at(-1)!;
    assert.deepEqual([done.type, done.reason, done.exitCode, done.finalText], [
      "done",
      "stop",
      0,
      ANSWER,
    ]);
    assert.equal(run.stderr, "", "--json keeps stderr for errors only");
  });
});

Deno.test("runCli() run --output-last-message writes the final answer, relative to the cwd", async () => {
  await using project = await stageProject("formats");
  await withFakeServer(twoTurns(), async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--output-last-message", "last.txt", "go"],
      { cwd: project.root },
    );
    assert.equal(run.code, 0, run.stderr);
  });
  assert.equal(await Deno.readTextFile(`${project.root}/last.txt`), ANSWER);
});

Deno.test("runCli() run - reads the prompt from standard input", async () => {
  await using project = await stageProject("formats");
  const prompt = "Review this diff:\n+ added a line\n";
  const fake = await withFakeServer(
    [() => sseResponse(sseText("r", "Looks fine."))],
    async (fake) => {
      const run = await runHarness(
        ["-C", project.dir, "run", "--base-url", fake.url, "-"],
        { cwd: project.root, stdin: prompt },
      );
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "Looks fine.\n");
    },
  );
  assert.deepEqual((fake.requests[0].body as { messages: Json[] }).messages, [
    { role: "user", content: prompt },
  ]);
});

Deno.test("runCli() run without a prompt on a terminal exits 2 and asks for none", async () => {
  await using project = await stageProject("formats");
  await withFakeServer([], async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url],
      { cwd: project.root, tty: { stdin: true } },
    );
    assert.equal(run.code, 2);
    assert.match(run.stderr, /error: No prompt given\nhint: harness run "your task"/);
    assert.equal(run.stdout, "");
  });
});

Deno.test("runCli() run --record then --replay reproduces the run offline", async () => {
  await using project = await stageProject("formats");
  const recording = `${project.root}/session.jsonl`;
  let live = { code: -1, stdout: "" };
  await withFakeServer(twoTurns(), async (fake) => {
    live = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--record", "session.jsonl", "shout"],
      { cwd: project.root },
    );
    assert.equal(live.code, 0);
  });
  const exchanges = parseJsonLines(await Deno.readTextFile(recording));
  assert.equal(exchanges.length, 2);
  assertValidRequests(exchanges.map((e) => (e.request as Json).body));
  // No server now: the base URL in the config points nowhere.
  const replayed = await runHarness(
    ["-C", project.dir, "run", "--replay", recording, "shout"],
    { cwd: project.root },
  );
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.equal(replayed.stdout, live.stdout);
  // The tools ran for real both times.
  assert.equal(await project.read("shout.log"), "SHIP IT\nSHIP IT\n");
});

Deno.test("runCli() run --replay fails clearly when the live request differs", async () => {
  await using project = await stageProject("formats");
  const recording = `${project.root}/session.jsonl`;
  await withFakeServer(twoTurns(), async (fake) => {
    const live = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--record", recording, "shout"],
      { cwd: project.root },
    );
    assert.equal(live.code, 0);
  });
  await Deno.remove(project.path(".agents/tools/shout")); // a tool removed since recording
  const replayed = await runHarness(
    ["-C", project.dir, "run", "--replay", recording, "shout"],
    { cwd: project.root },
  );
  assert.notEqual(replayed.code, 0);
  assert.match(
    replayed.stderr,
    /Replay of ".*session\.jsonl" diverged at exchange 1: tools(\.length|\[\d+\]).* in this run but .* in the recording/,
  );
  assert.match(replayed.stderr, /record it again/);
  assert.equal(replayed.stdout, "");
});
