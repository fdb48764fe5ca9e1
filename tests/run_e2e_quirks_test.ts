/**
 * Every recorded quirk stream (`tests/fixtures/streams/*.sse`) through the whole CLI:
 * `harness run --json` against the fake server, in the `quirks` fixture project whose
 * tools carry the names the streams call. Each case asserts what the run did: the tools
 * that really ran, the results the model got back, the warnings and the exit code.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type CliResult,
  parseJsonLines,
  runHarness,
  type StagedProject,
  stageProject,
  withFakeServer,
} from "./_helpers/cli.ts";
import { sseResponse, sseText } from "./_helpers/sse.ts";
import type { RecordedRequest } from "./fake_openai.ts";

type Json = Record<string, unknown>;

/** What a quirk run left behind. */
interface QuirkRun {
  run: CliResult;
  events: Json[];
  done: Json;
  requests: RecordedRequest[];
  project: StagedProject;
  /** calls.log: one "<tool> <arguments>" line per tool that ran. */
  calls: string[];
}

interface QuirkCase {
  fixture: string;
  /** Whether the model is asked again (the stream called tools). */
  followUp: boolean;
  code: number;
  config?: string;
  check(q: QuirkRun): void | Promise<void>;
}

const FINAL = "Finished.";
const messages = (q: QuirkRun, n: number) => (q.requests[n].body as { messages: Json[] }).messages;
/** The tool messages of the second request, as [id, content]. */
const results = (q: QuirkRun) =>
  messages(q, 1).filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]);
const warnings = (q: QuirkRun) => q.events.filter((e) => e.type === "warning").map((e) => e.code);
const native = (q: QuirkRun) => q.events.filter((e) => e.type === "native_output");

const TEXT_CALLS: [string, string][] = [
  ["vllm_hermes_text_tool_call", "<tool_call>"],
  ["vllm_mistral_text_tool_calls", "[TOOL_CALLS]"],
  ["ollama_bare_json_tool_call", "bare JSON"],
  ["llamacpp_python_tag", "<|python_tag|>"],
];

const CASES: QuirkCase[] = [
  {
    fixture: "openai_parallel_tool_calls",
    followUp: true,
    code: 0,
    check(q) {
      assert.deepEqual(q.calls, ['read_file {"path":"a.txt"}', 'list_dir {"dir":"."}']);
      assert.equal(results(q)[0][1], "alpha\n");
      assert.deepEqual(results(q).map((r) => r[0]), ["call_A1", "call_B2"]);
      assert.match(String(results(q)[1][1]), /a\.txt/);
    },
  },
  {
    fixture: "sglang_interleaved_tool_calls",
    followUp: true,
    code: 0,
    check: (q) => assert.deepEqual(results(q), [["call_X", "15\n"], ["call_Y", "539\n"]]),
  },
  {
    fixture: "ollama_missing_index",
    followUp: true,
    code: 0,
    async check(q) {
      assert.deepEqual(results(q), [["call_o1", "wrote hello.py\n"], [
        "call_o2",
        "wrote world.py\n",
      ]]);
      assert.equal(await q.project.read("hello.py"), "print(1)");
      assert.equal(await q.project.read("world.py"), "print(2)");
    },
  },
  {
    fixture: "ollama_colliding_index",
    followUp: true,
    code: 0,
    check: (q) =>
      assert.deepEqual(results(q), [
        ["call_abc123", "wrote hello.py\n"],
        ["call_def456", "wrote world.py\n"],
      ]),
  },
  {
    fixture: "ollama_finish_stop_with_tool_calls",
    followUp: true,
    code: 0,
    check(q) {
      assert.deepEqual(warnings(q), ["finish-reason-mismatch"]);
      assert.deepEqual(results(q), [["call_w1", "Sunny in Paris\n"]]);
    },
  },
  {
    fixture: "generic_finish_tool_calls_without_calls",
    followUp: false,
    code: 0,
    check(q) {
      assert.deepEqual(warnings(q), ["finish-reason-mismatch"]);
      assert.equal(q.done.finalText, "I would call a tool, but I will not.");
      assert.deepEqual(q.calls, []);
    },
  },
  {
    fixture: "generic_missing_id",
    followUp: true,
    code: 0,
    check(q) {
      const ids = (messages(q, 1)[1].tool_calls as { id: string }[]).map((c) => c.id);
      assert.equal(ids.length, 2);
      for (const id of ids) assert.match(id, /^call_[0-9a-zA-Z]{9}$/);
      assert.deepEqual(results(q), [[ids[0], "results for deno\n"], [
        ids[1],
        "results for node\n",
      ]]);
    },
  },
  {
    fixture: "vllm_split_tool_name",
    followUp: true,
    code: 0,
    check: (q) => assert.deepEqual(results(q), [["chatcmpl-tool-9f8e", "Sunny in Oslo\n"]]),
  },
  {
    fixture: "vllm_empty_arguments",
    followUp: true,
    code: 0,
    check(q) {
      assert.deepEqual(q.calls, ["list_tools {}"]);
      assert.deepEqual(results(q), [["chatcmpl-tool-1a2b", "no more tools\n"]]);
    },
  },
  {
    fixture: "llamacpp_malformed_arguments",
    followUp: true,
    code: 0,
    async check(q) {
      const [[id, content]] = results(q);
      assert.equal(id, "wq1XVQhM8aV3iS6UHz3bXkCHyJd7xnxa");
      assert.match(String(content), /^the arguments are not a JSON object: .*Send the call again/s);
      assert.deepEqual(q.calls, [], "a call with malformed arguments never runs");
      assert.equal(await q.project.read("a.txt"), "alpha\n");
    },
  },
  {
    fixture: "openai_truncated_by_length",
    followUp: true,
    code: 0,
    async check(q) {
      assert.match(String(results(q)[0][1]), /output token limit/);
      assert.deepEqual(q.calls, []);
      assert.equal(await q.project.read("big.txt"), undefined);
    },
  },
  {
    fixture: "openrouter_processing_comments",
    followUp: false,
    code: 0,
    check: (q) => assert.equal(q.done.finalText, "Hello"),
  },
  {
    fixture: "proxy_crlf_event_lines",
    followUp: false,
    code: 0,
    check: (q) => assert.equal(q.done.finalText, "line one\nline two"),
  },
  {
    fixture: "openrouter_midstream_error",
    followUp: false,
    code: 3,
    check(q) {
      assert.equal(q.done.reason, "provider_error");
      assert.match(
        (q.done.error as { message: string }).message,
        /inside an HTTP 200 response: Provider returned error: upstream overloaded/,
      );
    },
  },
  {
    fixture: "vllm_error_object",
    followUp: false,
    code: 3,
    check: (q) =>
      assert.match((q.done.error as { message: string }).message, /maximum context length/),
  },
  {
    fixture: "deepseek_reasoning_content",
    followUp: false,
    code: 0,
    check(q) {
      assert.equal(q.done.finalText, "The answer is 4.");
      const reasoning = q.events.filter((e) => e.type === "reasoning_delta").map((e) => e.text);
      assert.equal(reasoning.join(""), "Let me think step by step.");
    },
  },
  {
    fixture: "openrouter_reasoning_details",
    followUp: false,
    code: 0,
    check(q) {
      assert.equal(q.done.finalText, "Done.");
      const message = q.events.find((e) => e.type === "assistant_message")!.message as Json;
      assert.equal((message.reasoning_details as Json[])[0].signature, "sig-123");
    },
  },
  ...TEXT_CALLS.map(([fixture, marker]): QuirkCase => ({
    fixture,
    followUp: false,
    code: 0,
    check(q) {
      const warning = q.events.find((e) => e.type === "warning" && e.code === "text-tool-call");
      assert.ok(warning, `no text-tool-call warning for ${fixture}`);
      assert.ok(String(warning.message).includes(marker), String(warning.message));
      assert.deepEqual(q.calls, [], "a tool call written as text is never run");
    },
  })),
  ...["openrouter_web_annotations", "openai_url_citation"].map((fixture): QuirkCase => ({
    fixture,
    followUp: false,
    code: 0,
    check(q) {
      const [out] = native(q);
      assert.equal((out.annotations as Json[])[0].type, "url_citation");
    },
  })),
  {
    fixture: "perplexity_citations",
    followUp: false,
    code: 0,
    check: (q) => assert.deepEqual(native(q)[0].annotations, ["https://deno.com"]),
  },
  {
    fixture: "mistral_long_tool_call_ids",
    followUp: true,
    code: 0,
    config: "harness.mistral.jsonc",
    check(q) {
      const ids = (messages(q, 1)[1].tool_calls as { id: string }[]).map((c) => c.id);
      for (const id of ids) assert.match(id, /^[a-zA-Z0-9]{9}$/);
      assert.equal(ids[1], "Ab3dE6gH9");
      assert.deepEqual(results(q), [[ids[0], "Sunny in Lyon\n"], [ids[1], "12:00 CET\n"]]);
    },
  },
  {
    fixture: "gemini_extra_content",
    followUp: true,
    code: 0,
    check(q) {
      const [call] = messages(q, 1)[1].tool_calls as Json[];
      assert.deepEqual(call.extra_content, { google: { thought_signature: "c2lnbmF0dXJl" } });
      assert.deepEqual(results(q), [["function-call-1", "value of x\n"]]);
    },
  },
  {
    fixture: "mistral_content_parts",
    followUp: false,
    code: 0,
    check(q) {
      assert.equal(q.done.finalText, "It is 4.");
      assert.equal((native(q)[0].parts as Json[])[0].type, "thinking");
    },
  },
];

for (const c of CASES) {
  Deno.test(`runCli() run replays the quirk stream ${c.fixture}`, async () => {
    await using project = await stageProject("quirks");
    const transcript = `${project.root}/transcript.jsonl`;
    let run: CliResult | undefined;
    const steps = [
      { sse: c.fixture },
      ...(c.followUp ? [() => sseResponse(sseText("f", FINAL))] : []),
    ];
    const fake = await withFakeServer(steps, async (fake) => {
      run = await runHarness([
        "-C",
        project.dir,
        ...(c.config ? ["--config", project.path(c.config)] : []),
        "run",
        "--base-url",
        fake.url,
        "--json",
        "--transcript",
        transcript,
        "go",
      ], { cwd: project.root });
    });
    const events = parseJsonLines(run!.stdout);
    const done = events.at(-1)!;
    assert.equal(done.type, "done");
    assert.equal(run!.code, c.code, run!.stderr + run!.stdout);
    assert.equal(done.exitCode, c.code);
    if (c.followUp && c.code === 0) assert.equal(done.finalText, FINAL);
    assert.equal(fake.requests.length, c.followUp ? 2 : 1);
    const log = await project.read("calls.log");
    const calls = log === undefined ? [] : log.trimEnd().split("\n");
    await c.check({ run: run!, events, done, requests: fake.requests, project, calls });
    const records = parseJsonLines(await Deno.readTextFile(transcript));
    assert.deepEqual(records.at(-1)!.exitCode, c.code);
    // Every event shown (but streamed deltas) is in the transcript, which also holds the
    // starting messages and each approval decision.
    const shown = events.filter((e) => !/_delta$/.test(String(e.type))).map((e) => e.type);
    const kept = records.filter((r) => r.type !== "message" && r.type !== "approval");
    assert.deepEqual(kept.map((r) => r.type), shown);
  });
}

Deno.test("every quirk stream in tests/fixtures/streams runs through the CLI here", async () => {
  const source = await Deno.readTextFile(new URL(import.meta.url));
  for (const entry of Deno.readDirSync(new URL("./fixtures/streams/", import.meta.url))) {
    const name = entry.name.replace(/\.sse$/, "");
    assert.ok(source.includes(`"${name}"`), `no end-to-end case replays ${entry.name}`);
  }
});
