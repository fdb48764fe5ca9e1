/**
 * `harness run` end to end against the fake OpenAI server: one tool per format runs for
 * real and its result goes back to the model, read-only calls overlap, unknown assistant
 * fields go back verbatim, and provider-native tools pass through untouched.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseJsonLines, runHarness, stageProject, withFakeServer } from "./_helpers/cli.ts";
import { sseResponse, sseText, sseToolCalls } from "./_helpers/sse.ts";

type Msg = Record<string, unknown>;
const messagesOf = (body: unknown) => (body as { messages: Msg[] }).messages;

const FORMAT_CASES = [
  {
    format: "octomind",
    name: "shout",
    args: { message: "ship it" },
    content: "SHIP IT\n",
    file: ["shout.log", "SHIP IT\n"],
  },
  {
    format: "nanocoder",
    name: "greet",
    args: { name: "Ada O'Hara" },
    content: "EXIT_CODE: 0\nHello, Ada O'Hara",
    file: ["greet.log", "Hello, Ada O'Hara\n"],
  },
  { format: "manifest", name: "sum", args: { a: 2, b: 40.5 }, content: '{"sum":42.5}' },
  { format: "builtin", name: "read_file", args: { path: "notes.txt" }, content: "first line\n" },
] as const;

for (const c of FORMAT_CASES) {
  Deno.test(`runCli() run calls a ${c.format} tool and sends its result back`, async () => {
    await using project = await stageProject("formats");
    const answer = `The ${c.name} tool answered.`;
    const fake = await withFakeServer([
      () => sseResponse(sseToolCalls("r1", [{ id: "call_1", name: c.name, args: c.args }])),
      () => sseResponse(sseText("r2", answer)),
    ], async (fake) => {
      const run = await runHarness(
        ["-C", project.dir, "run", "--base-url", fake.url, `use ${c.name}`],
        { cwd: project.root },
      );
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `${answer}\n`);
    });
    assert.equal(fake.requests.length, 2);
    const [user, assistant, tool] = messagesOf(fake.requests[1].body);
    assert.deepEqual(user, { role: "user", content: `use ${c.name}` });
    assert.deepEqual(
      (assistant.tool_calls as { function: { name: string } }[]).map((t) => t.function.name),
      [c.name],
    );
    assert.equal(tool.role, "tool");
    assert.equal(tool.tool_call_id, "call_1");
    if (c.name === "read_file") assert.equal(tool.content, "first line\nsecond line\n");
    else assert.equal(tool.content, c.content);
    if ("file" in c) assert.equal(await project.read(c.file[0]), c.file[1]);
  });
}

Deno.test("runCli() run runs read-only calls of one turn together, results in call order", async () => {
  await using project = await stageProject("parallel");
  const fake = await withFakeServer([
    () =>
      sseResponse(sseToolCalls("r1", [
        { id: "call_a", name: "meet_a", args: {} },
        { id: "call_b", name: "meet_b", args: {} },
      ])),
    () => sseResponse(sseText("r2", "Both met.")),
  ], async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--json", "meet"],
      { cwd: project.root },
    );
    assert.equal(run.code, 0, run.stderr);
    // Events of the results come in request order too.
    const results = parseJsonLines(run.stdout).filter((e) => e.type === "tool_result");
    assert.deepEqual(results.map((e) => e.id), ["call_a", "call_b"]);
  });
  // Each script waits (bounded) for the other's marker: only overlapping runs meet.
  // meet_a also waits for meet_b to finish first, so completion order is b, a …
  assert.equal(await project.read("finished.log"), "b\na\n");
  // … while the history keeps the order the model asked for.
  const tools = messagesOf(fake.requests[1].body).filter((m) => m.role === "tool");
  assert.deepEqual(tools.map((m) => [m.tool_call_id, m.content]), [
    ["call_a", "a met b\n"],
    ["call_b", "b met a\n"],
  ]);
});

Deno.test("runCli() run sends unknown assistant fields back exactly", async () => {
  await using project = await stageProject("formats");
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${
      JSON.stringify({
        id: "ds-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "m",
        choices: [{ index: 0, delta, finish_reason: finish }],
      })
    }\n\n`;
  const call = {
    index: 0,
    id: "call_r1",
    type: "function",
    function: { name: "shout", arguments: '{"message":"hi"}' },
    extra_content: { google: { thought_signature: "c2ln" } },
  };
  const turn1 = chunk({ role: "assistant", content: null, reasoning_content: "Think" }) +
    chunk({ reasoning_content: "ing hard." }) +
    chunk({ tool_calls: [call] }) +
    chunk({}, "tool_calls") + "data: [DONE]\n\n";
  const fake = await withFakeServer([
    () => sseResponse(turn1),
    () => sseResponse(sseText("r2", "Done.")),
  ], async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "shout hi"],
      { cwd: project.root },
    );
    assert.equal(run.code, 0, run.stderr);
  });
  const { index: _, ...sent } = call;
  assert.deepEqual(messagesOf(fake.requests[1].body)[1], {
    role: "assistant",
    content: null,
    reasoning_content: "Thinking hard.",
    tool_calls: [sent],
  });
});

Deno.test("runCli() run passes native tools through and never runs them", async () => {
  await using project = await stageProject("native");
  const natives = [
    { type: "web_search" },
    { type: "openrouter:web_search", parameters: { max_results: 3 } },
  ];
  const annotations = [{
    type: "url_citation",
    url_citation: {
      url: "https://deno.com/blog/v2.0",
      title: "Deno 2",
      start_index: 0,
      end_index: 6,
    },
  }];
  const cited = [
    { role: "assistant", content: "Deno 2" },
    { content: "", annotations },
    {
      tool_calls: [{
        index: 0,
        id: "call_n",
        type: "function",
        function: { name: "note", arguments: '{"text":"Deno 2 is out"}' },
      }],
    },
  ].map((delta, i) =>
    `data: ${
      JSON.stringify({
        id: "gen-w",
        object: "chat.completion.chunk",
        created: 1,
        model: "m",
        choices: [{ index: 0, delta, finish_reason: i === 2 ? "tool_calls" : null }],
      })
    }\n\n`
  ).join("") + "data: [DONE]\n\n";
  const transcript = `${project.root}/t.jsonl`;
  let stdout = "";
  const fake = await withFakeServer([
    () => sseResponse(sseToolCalls("r1", [{ id: "call_w", name: "web_search", args: { q: "x" } }])),
    () => sseResponse(cited),
    () => sseResponse(sseText("r3", "Noted.")),
  ], async (fake) => {
    const run = await runHarness(
      ["-C", project.dir, "run", "--base-url", fake.url, "--json", "--transcript", transcript, "q"],
      { cwd: project.root },
    );
    assert.equal(run.code, 0, run.stderr);
    stdout = run.stdout;
  });
  for (const r of fake.requests) {
    const tools = (r.body as { tools: unknown[] }).tools;
    assert.equal(JSON.stringify(tools.slice(-2)), JSON.stringify(natives));
    assert.equal((tools[0] as { function: { name: string } }).function.name, "note");
  }
  const [, , webResult] = messagesOf(fake.requests[1].body);
  assert.equal(webResult.tool_call_id, "call_w");
  assert.match(
    String(webResult.content),
    /"web_search" is a provider-native tool: the provider runs it/,
  );
  // The annotations stay in the history sent back …
  const assistant = messagesOf(fake.requests[2].body)[3];
  assert.deepEqual(assistant.annotations, annotations);
  assert.equal(await project.read("notes.log"), "Deno 2 is out\n");
  // … and appear in the --json events and the transcript.
  const native = (lines: Record<string, unknown>[]) =>
    lines.filter((e) => e.type === "native_output").map((e) => e.annotations);
  assert.deepEqual(native(parseJsonLines(stdout)), [annotations]);
  assert.deepEqual(native(parseJsonLines(await Deno.readTextFile(transcript))), [annotations]);
});
