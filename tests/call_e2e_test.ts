/**
 * `harness tools call` end to end: the real CLI, in-process with a fake `Io`, over a
 * copy of `tests/fixtures/call/project` — argument sources, `--json`, `--dry-run`,
 * exit codes, validation before any run in every format, what each calling convention
 * hands the tool process and what the model sees of the result, and the fault cases
 * (a missing interpreter, a timeout). Two cases run the CLI as a child process with a
 * narrow Deno grant, the only way to make harness lack a permission.
 *
 * @module
 */
import assert from "node:assert/strict";
import { API_KEY, type CallProject, copyProject, parseDump } from "./fixtures/call/project.ts";

const JSON_KEYS = ["ok", "content", "exitCode", "signal", "timedOut", "truncated", "durationMs"];

/** Runs `body` on a fresh copy of the fixture project. */
function withProject(body: (p: CallProject) => Promise<void>): () => Promise<void> {
  return async () => {
    await using project = await copyProject();
    await body(project);
  };
}

// ------------------------------------------------------------------------------------
// 1. The command: argument sources, --json, exit codes

Deno.test(
  "tools call --json prints exactly the documented keys and exits 0 when the tool succeeds",
  withProject(async (p) => {
    const run = await p.cli(["tools", "call", "octo_emit", "--json", "--args", '{"out":"hi\\n"}']);
    assert.equal(run.code, 0, run.err);
    assert.equal(run.err, "", "no warning: an unrestricted scope is not a missing layer");
    assert.equal(run.out.split("\n").length, 2, "one JSON line");
    const result = JSON.parse(run.out);
    assert.deepEqual(Object.keys(result), JSON_KEYS);
    assert.deepEqual({ ...result, durationMs: 0 }, {
      ok: true,
      content: "hi\n",
      exitCode: 0,
      signal: null,
      timedOut: false,
      truncated: false,
      durationMs: 0,
    });
    assert.equal(typeof result.durationMs, "number");
  }),
);

Deno.test(
  "tools call prints the content as text and exits 1 when the tool exits non-zero",
  withProject(async (p) => {
    const args = JSON.stringify({ out: "partial", err: "boom\\n", code: 3 });
    const run = await p.cli(["tools", "call", "octo_emit", "--args", args]);
    assert.equal(run.code, 1);
    assert.equal(
      run.out,
      "local tool 'octo_emit' exited with status exit status: 3\n[stderr]\nboom\n[stdout]\npartial\n",
    );
    const json = await p.call("octo_emit", { code: 3 });
    assert.equal(json.code, 1);
    assert.equal(json.ok, false);
    assert.equal(json.exitCode, 3);
  }),
);

Deno.test(
  "tools call reads the arguments from --args, --args-file or - and from nothing",
  withProject(async (p) => {
    await Deno.writeTextFile(`${p.dir}/args.json`, '{"out":"from file"}');
    const file = await p.cli(["tools", "call", "octo_emit", "--args-file", "args.json"]);
    assert.equal(file.code, 0, file.err);
    assert.equal(file.out, "from file\n");
    const stdin = await p.cli(["tools", "call", "octo_emit", "-"], {
      stdin: '{"out":"from stdin"}',
    });
    assert.equal(stdin.code, 0, stdin.err);
    assert.equal(stdin.out, "from stdin\n");
    const none = await p.cli(["tools", "call", "octo_emit", "--json"]);
    assert.equal(JSON.parse(none.out).content, "", "no arguments means {}");
    const missing = await p.cli(["tools", "call", "octo_emit", "--args-file", "nope.json"]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /Cannot read the arguments file "nope\.json"/);
  }),
);

Deno.test(
  "tools call exits 2 for an unknown tool and suggests the closest name",
  withProject(async (p) => {
    const run = await p.cli(["tools", "call", "octo_dumb", "--json"]);
    assert.equal(run.code, 2);
    assert.equal(run.out, "");
    assert.match(run.err, /Unknown tool "octo_dumb"/);
    assert.match(run.err, /did you mean "octo_dump"\?/);
  }),
);

Deno.test(
  "tools call exits 2 for JSON that does not parse, naming line and column",
  withProject(async (p) => {
    const cases: [string, RegExp][] = [
      ['{\n  "out": nope}', /not valid JSON at line 2, column 10: Unexpected token/],
      ['{"out": 1,', /not valid JSON at line 1, column 11: Expected double-quoted property name/],
      ["", /not valid JSON at line 1, column 1: Unexpected end of JSON input/],
      ['{"out":"x"} trailing', /at line 1, column 13: Unexpected non-whitespace character/],
    ];
    for (const [text, expected] of cases) {
      const run = await p.cli(["tools", "call", "octo_emit", "--args", text]);
      assert.equal(run.code, 2, text);
      assert.match(run.err, expected);
      assert.doesNotMatch(run.err, /position \d+/, "the position is said once, as line:column");
    }
    const array = await p.cli(["tools", "call", "octo_emit", "--args", "[1]"]);
    assert.equal(array.code, 2);
    assert.match(array.err, /must be a JSON object, got \[1\]/);
  }),
);

Deno.test(
  "tools call exits 2 when the arguments are given twice",
  withProject(async (p) => {
    await Deno.writeTextFile(`${p.dir}/args.json`, "{}");
    for (
      const args of [
        ["--args", "{}", "--args-file", "args.json"],
        ["--args", "{}", "-"],
        ["--args-file", "args.json", "-"],
      ]
    ) {
      const run = await p.cli(["tools", "call", "octo_emit", ...args]);
      assert.equal(run.code, 2, args.join(" "));
      assert.match(run.err, /Give the arguments once: --args, --args-file or - \(stdin\)/);
      assert.equal(await p.exists("ran-octo_emit"), false);
    }
  }),
);

Deno.test(
  "tools call --dry-run runs nothing and shows argv, stdin, env names, cwd and scope",
  withProject(async (p) => {
    const run = await p.cli([
      "tools",
      "call",
      "octo_keyed",
      "--dry-run",
      "--args",
      '{"message":"hi","ratio":2.0}',
    ], { env: { GITHUB_TOKEN: "ghp-SECRET-TOKEN" } });
    assert.equal(run.code, 0, run.err);
    assert.equal(await p.exists("ran-octo_keyed"), false, "a dry run runs nothing");
    const lines = run.out.split("\n");
    const line = (label: string) => lines.find((l) => l.startsWith(`${label}:`)) ?? "";
    assert.equal(line("tool"), "tool:   octo_keyed (octomind)");
    assert.equal(line("argv"), `argv:   ${JSON.stringify([`${p.dir}/.agents/tools/octo_keyed`])}`);
    assert.equal(line("cwd"), `cwd:    ${p.dir}`);
    assert.equal(line("stdin"), `stdin:  ${JSON.stringify('{"message":"hi","ratio":2.0}')}`);
    const env = line("env").slice("env:".length).trim().split(" ");
    assert.ok(env.includes("OPENAI_API_KEY=***"), line("env"));
    assert.ok(env.includes("OCTOMIND_PARAM_RATIO") && env.includes("PATH"), line("env"));
    assert.ok(!env.includes("FOO") && !env.includes("GITHUB_TOKEN=***"), "declared env only");
    assert.match(line("scope"), /"read":\[".*\/project"\]/);
    assert.ok(lines.some((l) => l.startsWith("layer:  read ")), run.out);
    assert.ok(!run.out.includes(API_KEY), "a secret value is never printed");
    const json = await p.cli([
      "tools",
      "call",
      "octo_keyed",
      "--dry-run",
      "--json",
      "--args",
      '{"message":"hi","ratio":2.0}',
    ]);
    const plan = JSON.parse(json.out);
    assert.ok(plan.envNames.includes("OPENAI_API_KEY=***"), plan.envNames.join(" "));
    assert.equal(plan.stdin, '{"message":"hi","ratio":2.0}');
    assert.deepEqual(plan.argv, [`${p.dir}/.agents/tools/octo_keyed`]);
    assert.ok(!json.out.includes(API_KEY));
    assert.equal(await p.exists("ran-octo_keyed"), false);

    // An undeclared tool inherits the environment: secret-looking names are masked.
    const inherit = await p.cli(
      ["tools", "call", "octo_dump", "--dry-run", "--args", '{"message":"m"}'],
      { env: { GITHUB_TOKEN: "ghp-SECRET-TOKEN" } },
    );
    const envLine = inherit.out.split("\n").find((l) => l.startsWith("env:")) ?? "";
    assert.match(envLine, / GITHUB_TOKEN=\*\*\* /);
    assert.match(envLine, / FOO /);
    assert.doesNotMatch(envLine, /OPENAI_API_KEY/, "the provider key is withheld");
    assert.match(inherit.out, /OPENAI_API_KEY is withheld: the tool does not declare it/);
    assert.ok(!inherit.out.includes("ghp-SECRET-TOKEN") && !inherit.out.includes(API_KEY));
  }),
);

Deno.test(
  "tools call --dry-run shows the rendered Nanocoder script, also with --json",
  withProject(async (p) => {
    const payload = "$(touch ran-injected)";
    const text = await p.cli([
      "tools",
      "call",
      "nano_dump",
      "--dry-run",
      "--args",
      JSON.stringify({ value: payload }),
    ]);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^stdin: {2}\(none: \/dev\/null\)$/m);
    assert.match(
      text.out,
      /^script:\n {2}touch ran-nano_dump\n {2}printf 'value\\0%s\\0' '\$\(touch ran-injected\)'$/m,
    );

    const run = await p.cli([
      "tools",
      "call",
      "nano_dump",
      "--dry-run",
      "--json",
      "--args",
      JSON.stringify({ value: payload }),
    ]);
    assert.equal(run.code, 0, run.err);
    const plan = JSON.parse(run.out);
    assert.deepEqual(
      Object.keys(plan),
      ["tool", "format", "argv", "script", "stdin", "envNames", "cwd", "scope", "confinement"],
    );
    assert.equal(plan.format, "nanocoder");
    assert.equal(plan.cwd, p.dir);
    assert.equal(plan.stdin, "");
    assert.ok(plan.script.includes(`printf 'value\\0%s\\0' '${payload}'`), plan.script);
    assert.equal(plan.argv.at(-1), plan.script, "argv ends with the script after -c");
    assert.equal(plan.argv.at(-2), "-c");
    assert.ok(plan.envNames.includes("FOO") && !plan.envNames.includes("OPENAI_API_KEY"));
    assert.equal(plan.scope.declared, false);
    assert.deepEqual(plan.scope.scope.read, [p.dir]);
    for (const marker of ["ran-nano_dump", "ran-injected"]) {
      assert.equal(await p.exists(marker), false, `${marker} must not exist`);
    }
  }),
);

Deno.test(
  "tools call with a ceiling that removes what the tool needs runs it narrowed (exit 1)",
  withProject(async (p) => {
    // The ceiling narrows silently (no exit 5): the kernel then denies the read.
    await p.config({ tools: { personal: false }, permissions: { read: [] } });
    const dry = await p.cli(["tools", "call", "octo_reader", "--dry-run", "--json"]);
    const plan = JSON.parse(dry.out);
    assert.deepEqual(plan.scope.scope.read, []);
    assert.ok(plan.scope.notes.includes("limited by the permissions ceiling in harness.jsonc"));
    const r = await p.call("octo_reader", { read: "data/in.txt" });
    if (!(await landlock())) return;
    assert.equal(r.code, 1);
    assert.match(r.content, /exited with status exit status: 1\n\[stderr\]\n.*Permission denied/);
    assert.ok(!r.content.includes("public data"));
  }),
);

/** Whether subprocesses are confined by Landlock here (prints the reason when not). */
async function landlock(): Promise<boolean> {
  const { probeMachine } = await import("../lib/exec/confine.ts");
  const caps = await probeMachine();
  if (caps.os === "linux" && caps.ffi && caps.landlockAbi > 0) return true;
  console.log("  skipped: Landlock is not available on this machine");
  return false;
}

/** Runs the CLI as a child process with a narrow grant; returns exit code and output. */
async function childCli(
  grant: string[],
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const main = new URL("../main.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...grant, "--no-prompt", main, ...args],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, out: d.decode(out.stdout), err: d.decode(out.stderr) };
}

Deno.test(
  "tools call exits 5 when harness lacks a permission the tool declares (narrow grant)",
  withProject(async (p) => {
    const repo = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
    const run = await childCli(
      [
        `--allow-read=${repo},${p.dir}`,
        "--allow-write",
        "--allow-env",
        "--allow-run",
        "--allow-ffi",
      ],
      ["-C", p.dir, "tools", "call", "octo_machine"],
    );
    assert.equal(run.code, 5, run.err);
    assert.equal(
      run.out,
      'Denied: Tool "octo_machine" declares read "/etc/hostname", but harness itself was started without that permission.\n',
    );
    assert.match(run.err, /hint: run harness with --allow-read=\/etc\/hostname/);
    assert.equal(await p.exists("ran-octo_machine"), false);
  }),
);

Deno.test(
  "tools call exits 5 in strict mode when the kernel layer is missing (no --allow-ffi)",
  withProject(async (p) => {
    await p.config({ sandbox: "strict", tools: { personal: false } });
    const grant = ["--allow-read", "--allow-write", "--allow-env", "--allow-run"];
    const run = await childCli(grant, [
      "-C",
      p.dir,
      "tools",
      "call",
      "octo_dump",
      "--json",
      "--args",
      '{"message":"m"}',
    ]);
    assert.equal(run.code, 5, run.err);
    const result = JSON.parse(run.out);
    assert.equal(result.ok, false);
    assert.match(result.content, /^Refused: Cannot confine ".*octo_dump" strictly in ".*":/);
    assert.match(result.content, /run harness with --allow-ffi/);
    assert.equal(await p.exists("ran-octo_dump"), false);
    // The dry run says so too, and built-in tools (confined by Deno alone) still run.
    const dry = await childCli(grant, [
      "-C",
      p.dir,
      "tools",
      "call",
      "octo_dump",
      "--dry-run",
      "--args",
      '{"message":"m"}',
    ]);
    assert.equal(dry.code, 5, dry.err);
    assert.match(dry.out, /^refused: Cannot confine/m);
    const builtin = await childCli(grant, [
      "-C",
      p.dir,
      "tools",
      "call",
      "read_file",
      "--args",
      '{"path":"data/in.txt"}',
    ]);
    assert.equal(builtin.code, 0, builtin.err);
    assert.equal(builtin.out, "public data\n");
  }),
);

// ------------------------------------------------------------------------------------
// 2. Validation before any run, in every format

Deno.test(
  "tools call validates the arguments before any run, in every format",
  withProject(async (p) => {
    const cases: { tool: string; args: unknown; says: RegExp; marker?: string }[] = [
      {
        tool: "octo_dump",
        args: { count: 1 },
        says: /the arguments are missing the required property "message"/,
        marker: "ran-octo_dump",
      },
      {
        tool: "octo_dump",
        args: { message: "m", count: "three" },
        says: /"count" must be integer/,
        marker: "ran-octo_dump",
      },
      {
        tool: "nano_dump",
        args: { value: "v", extra: 1 },
        says: /the arguments have the unknown property "extra"/,
        marker: "ran-nano_dump",
      },
      {
        tool: "nano_dump",
        args: {},
        says: /the arguments are missing the required property "value"/,
        marker: "ran-nano_dump",
      },
      {
        tool: "agent_dump",
        args: { message: 5 },
        says: /"message" must be string/,
        marker: "ran-agent_dump",
      },
      {
        tool: "agent_dump",
        args: { message: "m", colour: "red" },
        says: /unknown property "colour"/,
        marker: "ran-agent_dump",
      },
      {
        tool: "read_file",
        args: { path: 7 },
        says: /"path" must be string/,
      },
    ];
    for (const c of cases) {
      const r = await p.call(c.tool, c.args);
      assert.equal(r.code, 2, `${c.tool} ${JSON.stringify(c.args)}`);
      assert.equal(r.ok, false);
      assert.match(r.content, new RegExp(`^Tool "${c.tool}" was called with invalid arguments: `));
      assert.match(r.content, c.says);
      assert.match(r.content, /Rewrite the arguments so they satisfy the tool's schema: \{/);
      assert.equal(r.exitCode, null);
      if (c.marker) assert.equal(await p.exists(c.marker), false, `${c.tool} must not run`);
    }
    // Without --json the same message goes to stdout, with the same exit code.
    const text = await p.cli(["tools", "call", "nano_dump", "--args", "{}"]);
    assert.equal(text.code, 2);
    assert.match(text.out, /missing the required property "value"/);
    // And a dry run refuses it too.
    const dry = await p.cli(["tools", "call", "octo_dump", "--dry-run", "--args", "{}"]);
    assert.equal(dry.code, 2);
    assert.match(dry.err, /missing the required property "message"/);
  }),
);

// ------------------------------------------------------------------------------------
// 3. The calling conventions through the whole call path

Deno.test(
  "tools call hands an Octomind script its argv, cwd, stdin and OCTOMIND_* env",
  withProject(async (p) => {
    const raw = '{"message":"hi","ratio":2.0,"count":3,"flag":true,"list":["a","b c"],' +
      '"obj":{"k":1}}';
    const expectedStdin = '{"count":3,"flag":true,"list":["a","b c"],"message":"hi",' +
      '"obj":{"k":1},"ratio":2.0}';
    await Deno.writeTextFile(`${p.dir}/args.json`, raw);
    for (
      const source of [["--args", raw], ["--args-file", "args.json"], ["-"]]
    ) {
      const run = await p.cli(["tools", "call", "octo_dump", "--json", ...source], {
        stdin: raw,
      });
      assert.equal(run.code, 0, run.err);
      const dump = parseDump(JSON.parse(run.out).content);
      assert.deepEqual(dump.argv, [`${p.dir}/.agents/tools/octo_dump`], "no arguments");
      assert.equal(dump.cwd, p.dir);
      assert.equal(dump.stdin, expectedStdin, "compact, keys sorted, 2.0 kept");
      assert.equal(dump.env.OCTOMIND_PARAM_RATIO, "2.0", source[0]);
      assert.equal(dump.env.OCTOMIND_PARAM_COUNT, "3");
      assert.equal(dump.env.OCTOMIND_PARAM_FLAG, "true");
      assert.equal(dump.env.OCTOMIND_PARAM_LIST, '["a","b c"]');
      assert.equal(dump.env.OCTOMIND_PARAM_OBJ, '{"k":1}');
      assert.equal(dump.env.OCTOMIND_PARAM_MESSAGE, "hi");
      assert.equal(dump.env.OCTOMIND_TOOL_NAME, "octo_dump");
      assert.equal(dump.env.OCTOMIND_WORKDIR, p.dir);
      assert.equal(dump.env.FOO, "foo-value", "an undeclared script inherits the environment");
    }
  }),
);

Deno.test(
  "tools call renders an Octomind result with its [stderr] marker",
  withProject(async (p) => {
    const ok = await p.call("octo_emit", { out: "line", err: "note\\n\\n" });
    assert.equal(ok.code, 0);
    assert.equal(ok.content, "line\n[stderr]\nnote");
    const blankErr = await p.call("octo_emit", { out: "line\\n", err: " \\n" });
    assert.equal(blankErr.content, "line\n", "a blank stderr adds nothing");
  }),
);

Deno.test(
  "tools call hands a Nanocoder template bash -c, /dev/null and no argument variables",
  withProject(async (p) => {
    const r = await p.call("nano_dump", { value: 'it\'s "quoted"', count: 2 });
    assert.equal(r.code, 0);
    assert.ok(r.content.startsWith("EXIT_CODE: 0\n"), r.content);
    const dump = parseDump(r.content);
    assert.equal(dump.value, 'it\'s "quoted"');
    assert.deepEqual(dump.argv, ["/bin/bash"], "$0 is the shell; no positional arguments");
    assert.equal(dump.cwd, p.dir);
    assert.equal(dump.stdin, "");
    assert.equal(dump.env.FOO, "foo-value");
    assert.ok(!Object.keys(dump.env).some((k) => /VALUE|COUNT|OCTOMIND/.test(k)));

    const failed = await p.call("nano_emit", { out: "o\\n", err: "e\\n", code: 3 });
    assert.equal(failed.content, "EXIT_CODE: 3\nSTDERR:\ne\nSTDOUT:\no");
    assert.equal(failed.code, 1, "tools call exits 1 when the script exits non-zero");
    assert.equal(failed.exitCode, 3);
    const quiet = await p.call("nano_emit", { out: "only\\n" });
    assert.equal(quiet.content, "EXIT_CODE: 0\nonly");
  }),
);

Deno.test(
  "tools call hands an agentcli tool its argv, the raw argument text and a scrubbed env",
  withProject(async (p) => {
    const raw = '  {"message":  "a\\tb",\n "count": 2}  ';
    const run = await p.cli(["tools", "call", "agent_dump", "--json", "--args", raw], {
      env: { GREETING: "hello" },
    });
    assert.equal(run.code, 0, run.err);
    const dump = parseDump(JSON.parse(run.out).content);
    assert.deepEqual(dump.argv, [`${p.dir}/tools/bin/dump`, "first arg", "--flag=$HOME"]);
    assert.equal(dump.cwd, p.dir);
    const stdin = await Deno.readTextFile(`${p.dir}/received-stdin`);
    assert.equal(stdin, raw.trim(), "the trimmed text, verbatim (no re-encoding)");
    const names = Object.keys(dump.env).filter((k) => !["PWD", "SHLVL", "_"].includes(k));
    assert.deepEqual(names.sort(), ["GREETING", "HOME", "PATH"]);
    assert.equal(dump.env.GREETING, "hello");
  }),
);

Deno.test(
  'tools call renders agentcli results on one line and failures as {"error": …}',
  withProject(async (p) => {
    const ok = await p.call("agent_act", { say: "hello" });
    assert.equal(ok.code, 0);
    assert.equal(ok.content, 'got: {"say":"hello"} done');
    const failed = await p.call("agent_act", { say: "fail" });
    assert.equal(failed.code, 1);
    assert.equal(failed.exitCode, 3);
    assert.equal(failed.content, '{"error":"it \\u003cbroke\\u003e \\u0026 \\"failed\\"\\n"}');
    const quiet = await p.call("agent_act", { say: "quiet-fail" });
    assert.equal(quiet.content, '{"error":"exit status 4"}', "stdout is thrown away on failure");
  }),
);

// ------------------------------------------------------------------------------------
// 5. Faults: a missing interpreter, a timeout

Deno.test(
  "tools call reports a missing interpreter in each format's words",
  withProject(async (p) => {
    const octo = await p.call("octo_badinterp", {});
    assert.equal(octo.code, 1);
    assert.equal(
      octo.content,
      `local tool 'octo_badinterp' failed: spawn '${p.dir}/.agents/tools/octo_badinterp' failed: No such file or directory (os error 2)`,
    );
    const agent = await p.call("agent_badinterp", {});
    assert.equal(agent.code, 1);
    assert.equal(
      agent.content,
      `{"error":"start: fork/exec ${p.dir}/tools/bin/badinterp: no such file or directory"}`,
    );
    console.log(
      "  skipped: Nanocoder with a missing shell (/bin/bash and /bin/sh are needed by the machine)",
    );
  }),
);

/** Whether a pid is gone (or a zombie waiting for its reaper). */
async function gone(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

Deno.test(
  "tools call kills the whole tree on a timeout and exits 1 with the format's text",
  withProject(async (p) => {
    const cases: { tool: string; args: unknown; pidfile: string; content: string }[] = [
      {
        tool: "octo_emit",
        args: { sleep: 30, pidfile: "octo.pid" },
        pidfile: "octo.pid",
        content: "local tool 'octo_emit' failed: local tool 'octo_emit' timed out after 0.4s",
      },
      {
        tool: "nano_sleep",
        args: { pidfile: "nano.pid" },
        pidfile: "nano.pid",
        content: "Error: Custom tool timed out after 400ms",
      },
      {
        tool: "agent_act",
        args: { say: "sleep" },
        pidfile: "act.pid",
        content: '{"error":"tool timed out"}',
      },
    ];
    const results = await Promise.all(cases.map((c) => p.call(c.tool, c.args)));
    for (const [i, c] of cases.entries()) {
      const r = results[i];
      assert.equal(r.code, 1, c.tool);
      assert.equal(r.content, c.content);
      assert.equal(r.ok, false);
      assert.equal(r.timedOut, true);
      assert.ok(r.durationMs >= 400 && r.durationMs < 5000, `${c.tool}: ${r.durationMs} ms`);
      const pid = Number(await Deno.readTextFile(`${p.dir}/${c.pidfile}`));
      assert.ok(pid > 0);
      assert.ok(await gone(pid), `${c.tool}: grandchild ${pid} must be killed`);
    }
  }),
);
