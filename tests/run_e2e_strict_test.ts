/**
 * The strict preset end to end (`"sandbox": "strict"` and a ceiling): a run recorded
 * against the fake server, then replayed offline, in which the model asks tools to read
 * outside the repository, write outside their scope and reach an undeclared host.
 *
 * What harness does, and what this test pins down: the sandbox refuses each access
 * inside the tool (Landlock for subprocess tools, the path check and the Worker's
 * permissions for built-ins). The refusal is the tool's failure result (`ok: false`,
 * `failure: "tool-failed"`, the tool's own error text), which the model sees; it is not
 * an approval denial, so it does not stop the run: the run exits 0 when the model then
 * finishes. Exit 5 is for calls that need an approval or a grant a non-interactive run
 * cannot give (see run_e2e_limits_test.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type CliResult,
  OUTSIDE_SECRET,
  parseJsonLines,
  runHarness,
  type StagedProject,
  stageProject,
  withFakeServer,
} from "./_helpers/cli.ts";
import { sseResponse, sseText, sseToolCalls } from "./_helpers/sse.ts";

type Json = Record<string, unknown>;
const ANSWER = "Some of that was refused by the sandbox.";

/** The calls of the model's first turn, and what each must return. */
function plan(project: StagedProject, port: number) {
  return [
    {
      id: "call_read_builtin",
      name: "read_file",
      args: { path: "../outside/secret.txt" },
      ok: false,
      content: /^Path "\.\.\/outside\/secret\.txt" is outside the project/,
    },
    {
      id: "call_read_script",
      name: "cat_path",
      args: { path: `${project.outside}/secret.txt` },
      ok: false,
      content:
        /^local tool 'cat_path' exited with status exit status: 1\n\[stderr\]\ncat: .*secret\.txt: Permission denied$/,
    },
    {
      id: "call_read_inside",
      name: "cat_path",
      args: { path: "inside.txt" },
      ok: true,
      content: /^repository file\n$/,
    },
    {
      id: "call_write_outside",
      name: "save_to",
      args: { path: "../outside/pwned.txt", text: "pwned" },
      ok: false,
      content: /\.\.\/outside\/pwned\.txt: Permission denied/,
    },
    {
      id: "call_write_inside",
      name: "save_to",
      args: { path: "out/ok.txt", text: "fine" },
      ok: true,
      content: /^saved out\/ok\.txt\n$/,
    },
    {
      id: "call_write_builtin",
      name: "write_file",
      args: { path: "../outside/pwned2.txt", content: "pwned" },
      ok: false,
      content: /^Path "\.\.\/outside\/pwned2\.txt" is outside the project/,
    },
    {
      id: "call_net_declared",
      name: "ping_host",
      args: { port },
      ok: false,
      content: /connect: Permission denied/,
    },
    {
      id: "call_net_undeclared",
      name: "ping_any",
      args: { port },
      ok: false,
      content: /connect: (Permission denied|Network is unreachable)/,
    },
  ];
}

function checkRun(run: CliResult, calls: ReturnType<typeof plan>, transcript: Json[]): void {
  assert.equal(run.code, 0, run.stderr + run.stdout);
  const events = parseJsonLines(run.stdout);
  const done = events.at(-1)!;
  assert.deepEqual([done.reason, done.exitCode, done.finalText], ["stop", 0, ANSWER]);
  for (const source of [events, transcript]) {
    const results = new Map(
      source.filter((e) => e.type === "tool_result").map((e) => [e.id as string, e]),
    );
    for (const c of calls) {
      const r = results.get(c.id);
      assert.ok(r, `no tool_result for ${c.id}`);
      assert.equal(r.ok, c.ok, `${c.id}: ${r.content}`);
      assert.match(r.content as string, c.content, c.id);
      if (!c.ok) assert.equal(r.failure, "tool-failed", c.id);
    }
  }
  assert.deepEqual(transcript.at(-1)!.exitCode, 0);
  assert.ok(!run.stdout.includes(OUTSIDE_SECRET), "the secret reached the model");
  assert.ok(
    !JSON.stringify(transcript).includes(OUTSIDE_SECRET),
    "the secret is in the transcript",
  );
}

Deno.test("runCli() run in the strict preset refuses out-of-scope access, recorded and replayed", async () => {
  await using project = await stageProject("strict");
  let reached = 0;
  const target = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    reached++;
    return new Response("reached");
  });
  try {
    const calls = plan(project, target.addr.port);
    const recording = `${project.root}/strict.jsonl`;
    const run = (args: string[], transcript: string) =>
      runHarness(
        ["-C", project.dir, "run", "--json", "--transcript", transcript, ...args, "poke around"],
        { cwd: project.root },
      );
    const transcriptOf = async (file: string) => parseJsonLines(await Deno.readTextFile(file));

    const fake = await withFakeServer([
      () => sseResponse(sseToolCalls("r1", calls)),
      () => sseResponse(sseText("r2", ANSWER)),
    ], async (fake) => {
      const t1 = `${project.root}/live.jsonl`;
      const live = await run(["--base-url", fake.url, "--record", recording], t1);
      checkRun(live, calls, await transcriptOf(t1));
    });
    // The model saw every refusal.
    const sent = (fake.requests[1].body as { messages: Json[] }).messages;
    assert.equal(sent.filter((m) => m.role === "tool").length, calls.length);
    assert.equal(await project.read("out/ok.txt"), "fine\n");
    await Deno.remove(project.path("out/ok.txt"));

    const t2 = `${project.root}/replay.jsonl`;
    const replayed = await run(["--replay", recording], t2);
    checkRun(replayed, calls, await transcriptOf(t2));
    assert.equal(await project.read("out/ok.txt"), "fine\n", "the replayed tools did not run");

    const outside = [...Deno.readDirSync(project.outside)].map((e) => e.name);
    assert.deepEqual(outside, ["secret.txt"], "a tool wrote outside its scope");
    assert.equal(reached, 0, "a tool reached the undeclared host");
    const start = (await transcriptOf(t2))[0];
    assert.deepEqual([start.type, start.sandbox], ["run_start", "strict"]);
  } finally {
    await target.shutdown();
  }
});
