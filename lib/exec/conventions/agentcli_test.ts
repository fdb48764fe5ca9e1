import { deepEqual, equal } from "node:assert/strict";
import type { ToolDefinition } from "../../types.ts";
import {
  agentcliError,
  goJsonString,
  oneLine,
  prepareAgentcli,
  renderAgentcli,
} from "./agentcli.ts";
import type { CallContext, CallInput, ProcessResultLike } from "./types.ts";
import {
  fixtureProject,
  parseDump,
  runSpec,
  withoutShellVars,
} from "../../../tests/_helpers/run_spec.ts";

const ENV = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/tester",
  OPENAI_API_KEY: "sk-secret",
  TZ: "Europe/Helsinki",
  EMPTY_OK: "",
};

function tool(argv: string[], envPassthrough: string[] = [], timeoutMs = 30_000): ToolDefinition {
  return {
    name: "t",
    description: "d",
    parameters: { type: "object" },
    source: { format: "manifest", path: "/p/tools.json", line: 3 },
    runner: { kind: "argv", argv, envPassthrough },
    approval: "never",
    readOnly: false,
    timeoutMs,
  };
}

function ctx(projectDir: string, over: Partial<CallContext> = {}): CallContext {
  return { projectDir, env: ENV, timeoutMs: 10_000, maxOutputBytes: 1 << 20, ...over };
}

function result(over: Partial<ProcessResultLike>): ProcessResultLike {
  return {
    stdout: "",
    stderr: "",
    code: 0,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 1,
    ...over,
  };
}

async function call(t: ToolDefinition, input: CallInput, c: CallContext) {
  const prepared = prepareAgentcli(t, input, c);
  const run = await runSpec(prepared.spec);
  return { prepared, run, rendered: renderAgentcli(t, run, prepared.spec) };
}

Deno.test("prepareAgentcli() runs argv without a shell, the trimmed argument text on stdin, a scrubbed env", async () => {
  const p = fixtureProject();
  try {
    const dump = p.install("dump", "tools/bin");
    const t = tool([dump, "fixed arg", "$HOME"], ["TZ", "EMPTY_OK", "NOT_SET"]);
    const raw = '\u00a0\n {"b": 1,\t"a":"x  y"} \u0085';
    const { prepared, run } = await call(
      t,
      { args: { a: "x  y", b: 1 }, rawArguments: raw },
      ctx(p.dir),
    );
    const seen = parseDump(run.stdout);
    deepEqual(seen.argv, [dump, "fixed arg", "$HOME"]);
    equal(seen.stdin, '{"b": 1,\t"a":"x  y"}');
    equal(seen.cwd, p.dir);
    deepEqual(withoutShellVars(seen.env), {
      PATH: "/usr/bin:/bin",
      HOME: "/home/tester",
      TZ: "Europe/Helsinki",
      EMPTY_OK: "",
    });
    deepEqual(prepared.display, {
      argv: [dump, "fixed arg", "$HOME"],
      stdin: '{"b": 1,\t"a":"x  y"}',
      envNames: ["EMPTY_OK", "HOME", "PATH", "TZ"],
      cwd: p.dir,
    });
  } finally {
    p.cleanup();
  }
});

Deno.test("prepareAgentcli() writes {} for empty argument text and JSON when there is none", () => {
  const t = tool(["/x/t"]);
  const stdin = (input: CallInput) => prepareAgentcli(t, input, ctx("/p")).display.stdin;
  equal(stdin({ args: {}, rawArguments: "" }), "{}");
  equal(stdin({ args: {}, rawArguments: " \n\t" }), "{}");
  equal(stdin({ args: { a: [1, 2.5] } }), '{"a":[1,2.5]}');
  equal(stdin({ args: {}, rawArguments: "not json" }), "not json");
});

Deno.test("prepareAgentcli() leaves out PATH and HOME when empty", () => {
  const env =
    prepareAgentcli(tool(["/x/t"]), { args: {} }, ctx("/p", { env: { PATH: "", HOME: "" } }))
      .spec.env;
  deepEqual(env, {});
});

Deno.test("renderAgentcli() puts trimmed stdout on one line, or {} when it is empty", async () => {
  const p = fixtureProject();
  try {
    const emit = p.install("emit", "tools/bin");
    const t = tool([emit], ["EMIT_OUT", "EMIT_ERR", "EMIT_CODE"]);
    const run = (out: string, err = "") =>
      call(t, { args: {} }, ctx(p.dir, { env: { ...ENV, EMIT_OUT: out, EMIT_ERR: err } }));
    deepEqual((await run('\\n {"a":\\t"x  \\n y"}\\n\\n')).rendered, {
      content: '{"a": "x y"}',
      isError: false,
    });
    deepEqual((await run("a\u3000b\u00a0c\u0085d", "warning\\n")).rendered, {
      content: "a b c d",
      isError: false,
    });
    deepEqual((await run(" \\n\\t")).rendered, { content: "{}", isError: false });
  } finally {
    p.cleanup();
  }
});

Deno.test("renderAgentcli() reports a failure as Go's JSON of raw stderr, dropping stdout", async () => {
  const p = fixtureProject();
  try {
    const emit = p.install("emit", "tools/bin");
    const t = tool([emit], ["EMIT_OUT", "EMIT_ERR", "EMIT_CODE", "EMIT_SIG"]);
    const run = (env: Record<string, string>) =>
      call(t, { args: {} }, ctx(p.dir, { env: { ...ENV, ...env } }));
    deepEqual(
      (await run({ EMIT_OUT: "ignored", EMIT_ERR: 'bad <&> "q"\\t\\n', EMIT_CODE: "2" })).rendered,
      {
        content: '{"error":"bad \\u003c\\u0026\\u003e \\"q\\"\\t\\n"}',
        isError: true,
      },
    );
    deepEqual((await run({ EMIT_ERR: "a   b\u2028", EMIT_CODE: "1" })).rendered, {
      content: '{"error":"a b\\u2028"}',
      isError: true,
    });
    deepEqual((await run({ EMIT_OUT: "x", EMIT_CODE: "3" })).rendered, {
      content: '{"error":"exit status 3"}',
      isError: true,
    });
    deepEqual((await run({ EMIT_SIG: "KILL" })).rendered, {
      content: '{"error":"signal: killed"}',
      isError: true,
    });
    deepEqual((await run({ EMIT_SIG: "TERM" })).rendered, {
      content: '{"error":"signal: terminated"}',
      isError: true,
    });
  } finally {
    p.cleanup();
  }
});

Deno.test("renderAgentcli() cuts the error to 1000 bytes, inside a character if need be", async () => {
  const p = fixtureProject();
  try {
    const emit = p.install("emit", "tools/bin");
    const t = tool([emit], ["EMIT_ERR", "EMIT_CODE"]);
    const err = "a".repeat(998) + "€€";
    const { rendered } = await call(
      t,
      { args: {} },
      ctx(p.dir, { env: { ...ENV, EMIT_ERR: err, EMIT_CODE: "1" } }),
    );
    // 998 bytes of "a", then 2 of the 3 bytes of "€": Go writes one \ufffd per invalid byte.
    deepEqual(rendered, {
      content: `{"error":"${"a".repeat(998)}\\ufffd\\ufffd"}`,
      isError: true,
    });
  } finally {
    p.cleanup();
  }
});

Deno.test("renderAgentcli() reports a timeout as tool timed out", async () => {
  const p = fixtureProject();
  try {
    const emit = p.install("emit", "tools/bin");
    const t = tool([emit], ["EMIT_SLEEP"]);
    const { run, rendered } = await call(
      t,
      { args: {} },
      ctx(p.dir, { env: { ...ENV, EMIT_SLEEP: "5" }, timeoutMs: 250 }),
    );
    equal(run.timedOut, true);
    deepEqual(rendered, { content: '{"error":"tool timed out"}', isError: true });
  } finally {
    p.cleanup();
  }
});

Deno.test("renderAgentcli() words spawn failures as Go's exec does", async () => {
  const p = fixtureProject();
  try {
    const missing = `${p.dir}/tools/bin/missing`;
    const notExec = p.write("tools/bin/noexec", "#!/bin/sh\necho hi\n", 0o644);
    const cases: [string, string][] = [
      [missing, `start: fork/exec ${missing}: no such file or directory`],
      [notExec, `start: fork/exec ${notExec}: permission denied`],
      [
        "no-such-tool-anywhere",
        'start: exec: \\"no-such-tool-anywhere\\": executable file not found in $PATH',
      ],
    ];
    for (const [program, msg] of cases) {
      const { rendered } = await call(tool([program]), { args: {} }, ctx(p.dir));
      deepEqual(rendered, { content: `{"error":"${msg}"}`, isError: true }, program);
    }
  } finally {
    p.cleanup();
  }
});

Deno.test("goJsonString() escapes as Go's encoding/json with HTML escaping", () => {
  const enc = (s: string) => goJsonString(new TextEncoder().encode(s));
  equal(enc("\b\f\n\r\t\u0001\u001f\u007f/'"), '"\\b\\f\\n\\r\\t\\u0001\\u001f\u007f/\'"');
  equal(enc("<a href='x'>&</a>"), `"\\u003ca href='x'\\u003e\\u0026\\u003c/a\\u003e"`);
  equal(enc("\u2028\u2029\uFEFF€😀\uFFFD"), '"\\u2028\\u2029\uFEFF€😀\uFFFD"');
  // Invalid UTF-8: each bad byte becomes \ufffd (an overlong, a lone continuation, a surrogate).
  equal(
    goJsonString(new Uint8Array([0xc0, 0x80, 0x41, 0xbf, 0xed, 0xa0, 0x80])),
    '"\\ufffd\\ufffdA\\ufffd\\ufffd\\ufffd\\ufffd"',
  );
  equal(goJsonString(new Uint8Array([0xf0, 0x9f, 0x98])), '"\\ufffd\\ufffd\\ufffd"');
});

Deno.test("oneLine() collapses every Unicode white-space run, as Go's strings.Fields", () => {
  equal(oneLine("  a\n\tb \u3000\u0085 c\u00a0"), "a b c");
  equal(oneLine("a\uFEFFb\u200bc"), "a\uFEFFb\u200bc");
  equal(agentcliError("x\n"), '{"error":"x\\n"}');
});

Deno.test("renderAgentcli() ignores stdout truncation and non-error fields", () => {
  deepEqual(renderAgentcli(tool(["/x"]), result({ stdout: "ok\n", truncated: true })), {
    content: "ok",
    isError: false,
  });
});
