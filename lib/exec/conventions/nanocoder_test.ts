import { deepEqual, equal, ok } from "node:assert/strict";
import type { ToolDefinition } from "../../types.ts";
import {
  expandVars,
  NANOCODER_OUTPUT_LIMIT_CHARS,
  prepareNanocoder,
  renderNanocoder,
  resolveCwd,
  truncateToolResult,
} from "./nanocoder.ts";
import type { CallContext, ProcessResultLike } from "./types.ts";
import {
  fixtureProject,
  parseDump,
  runSpec,
  withoutShellVars,
} from "../../../tests/_helpers/run_spec.ts";

const ENV = { PATH: "/usr/bin:/bin", HOME: "/home/tester", SUB: "sub", EMPTY: "" };

function tool(
  body: string,
  extra: { shell?: "bash" | "sh"; cwd?: string; env?: Record<string, string> } = {},
  timeoutMs = 30_000,
): ToolDefinition {
  return {
    name: "t",
    description: "d",
    parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
    source: { format: "nanocoder", path: "/p/.nanocoder/tools/t.md" },
    runner: { kind: "template", body, ...extra },
    approval: "never",
    readOnly: true,
    timeoutMs,
  };
}

function ctx(projectDir: string, over: Partial<CallContext> = {}): CallContext {
  return {
    projectDir,
    env: ENV,
    timeoutMs: 10_000,
    maxOutputBytes: 1 << 20,
    shells: { bash: true },
    ...over,
  };
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

async function call(t: ToolDefinition, args: Record<string, unknown>, c: CallContext) {
  const prepared = prepareNanocoder(t, { args }, c);
  const run = await runSpec(prepared.spec);
  return { prepared, run, rendered: renderNanocoder(t, run, prepared.spec) };
}

Deno.test("prepareNanocoder() runs the rendered body with bash -c, no stdin, and the tool env plus env entries", async () => {
  const p = fixtureProject();
  try {
    const dump = p.install("dump", "bin");
    const t = tool(`'${dump}' {{ word }} {{ list }} {{# flag }}--flag{{/ flag }}`, {
      env: { GREETING: "hi ${SUB:-x}", RAW: "$HOME/x", UNSET: "${NOPE}", DEF: "${NOPE:-dflt}" },
    });
    const args = { word: "a 'b' $c", list: ["x y", 2], flag: "false" };
    const { prepared, run } = await call(t, args, ctx(p.dir));
    equal(prepared.spec.program, "/bin/bash");
    deepEqual(prepared.spec.args, ["-c", prepared.script]);
    equal(prepared.spec.stdin, "null");
    const seen = parseDump(run.stdout);
    deepEqual(seen.argv, [dump, "a 'b' $c", "x y", "2", "--flag"]);
    equal(seen.stdin, "");
    equal(seen.cwd, p.dir);
    deepEqual(withoutShellVars(seen.env), {
      ...ENV,
      GREETING: "hi sub",
      RAW: "/home/tester/x",
      UNSET: "",
      DEF: "dflt",
    });
    deepEqual(prepared.display.argv, ["/bin/bash", "-c", prepared.script]);
    equal(prepared.display.stdin, "");
  } finally {
    p.cleanup();
  }
});

Deno.test("prepareNanocoder() picks the shell from the front matter, else bash when it exists", async () => {
  const body = `printf %s "$0"`;
  const cases: [ToolDefinition, boolean, string][] = [
    [tool(body, { shell: "sh" }), true, "/bin/sh"],
    [tool(body, { shell: "bash" }), false, "/bin/bash"],
    [tool(body), true, "/bin/bash"],
    [tool(body), false, "/bin/sh"],
  ];
  for (const [t, bash, shell] of cases) {
    const { rendered } = await call(t, {}, ctx(Deno.cwd(), { shells: { bash } }));
    deepEqual(rendered, { content: `EXIT_CODE: 0\n${shell}`, isError: false });
  }
});

Deno.test("prepareNanocoder() expands and resolves cwd, falling back to the project silently", async () => {
  const p = fixtureProject();
  try {
    Deno.mkdirSync(`${p.dir}/sub/deep`, { recursive: true });
    const body = "pwd -P";
    const cases: [string | undefined, string][] = [
      [undefined, p.dir],
      ["", p.dir],
      ["sub", `${p.dir}/sub`],
      ["./${SUB}/deep/", `${p.dir}/sub/deep`],
      ["$SUB/../sub", `${p.dir}/sub`],
      [`${p.dir}/sub`, `${p.dir}/sub`],
      ["missing", p.dir],
      ["${NOPE}", p.dir],
    ];
    for (const [cwd, want] of cases) {
      const { rendered } = await call(tool(body, { cwd }), {}, ctx(p.dir));
      deepEqual(rendered, { content: `EXIT_CODE: 0\n${want}`, isError: false }, cwd);
    }
    equal(resolveCwd("there", { projectDir: "/p", env: {}, exists: () => true }), "/p/there");
    equal(resolveCwd("there", { projectDir: "/p", env: {}, exists: () => false }), "/p");
  } finally {
    p.cleanup();
  }
});

Deno.test("expandVars() reads only the tool env, with Nanocoder's default rule", () => {
  const env = { A: "1", E: "" };
  equal(expandVars("$A ${A} ${A:-d} ${B:-d} ${B} $B ${E:-d} $A_x", env), "1 1 1 d    ");
  equal(expandVars("${A:-} $ {A} $1 ${A-x}", env), "1 $ {A} $1 ${A-x}");
});

Deno.test("renderNanocoder() prefixes EXIT_CODE and trims, keeping a non-zero exit a normal result", async () => {
  const d = Deno.cwd();
  deepEqual((await call(tool("printf 'out\\n\\n  '"), {}, ctx(d))).rendered, {
    content: "EXIT_CODE: 0\nout",
    isError: false,
  });
  deepEqual((await call(tool("printf 'o \\n'; printf 'e\\n' >&2; exit 3"), {}, ctx(d))).rendered, {
    content: "EXIT_CODE: 3\nSTDERR:\ne\nSTDOUT:\no",
    isError: false,
  });
  deepEqual((await call(tool("printf 'e' >&2"), {}, ctx(d))).rendered, {
    content: "EXIT_CODE: 0\nSTDERR:\ne\nSTDOUT:\n",
    isError: false,
  });
  // JavaScript's trimEnd: U+FEFF is white space, U+0085 is not.
  deepEqual(renderNanocoder(tool(""), result({ stdout: "a\uFEFF", stderr: "\u0085" })), {
    content: "EXIT_CODE: 0\nSTDERR:\n\u0085\nSTDOUT:\na",
    isError: false,
  });
});

Deno.test("renderNanocoder() prints EXIT_CODE: 0 for a shell killed by a signal (the original's quirk)", async () => {
  const { run, rendered } = await call(tool("printf partial; kill -9 $$"), {}, ctx(Deno.cwd()));
  equal(run.signal, "SIGKILL");
  deepEqual(rendered, { content: "EXIT_CODE: 0\npartial", isError: false });
});

Deno.test("renderNanocoder() reports a timeout in the milliseconds the harness used", async () => {
  const t = tool("sleep 5", {}, 30_000);
  const { run, rendered } = await call(t, {}, ctx(Deno.cwd(), { timeoutMs: 250 }));
  equal(run.timedOut, true);
  deepEqual(rendered, { content: "Error: Custom tool timed out after 250ms", isError: true });
  equal(
    renderNanocoder(t, result({ timedOut: true })).content,
    "Error: Custom tool timed out after 30000ms",
  );
});

Deno.test("renderNanocoder() reports a spawn failure as Node words it", async () => {
  const t = tool("true");
  const prepared = prepareNanocoder(t, { args: {} }, ctx(Deno.cwd()));
  const spec = { ...prepared.spec, program: "/nonexistent/bash" };
  const run = await runSpec(spec);
  deepEqual(renderNanocoder(t, run, spec), {
    content: "Error: Custom tool failed to start: spawn /nonexistent/bash ENOENT",
    isError: true,
  });
  deepEqual(
    renderNanocoder(
      t,
      result({ spawnError: { kind: "permission-denied", message: "x" } }),
      { program: "/bin/sh", timeoutMs: 1 },
    ),
    { content: "Error: Custom tool failed to start: spawn /bin/sh EACCES", isError: true },
  );
});

Deno.test("renderNanocoder() cuts long output to 2000 characters, 40% head and 60% tail", async () => {
  const { rendered } = await call(tool("seq 1 3000"), {}, ctx(Deno.cwd()));
  const full = "EXIT_CODE: 0\n" + Array.from({ length: 3000 }, (_, i) => i + 1).join("\n");
  const marker =
    `\n... [Output truncated: ${full.length} characters total; request a narrower result to inspect omitted content] ...\n`;
  const budget = NANOCODER_OUTPUT_LIMIT_CHARS - marker.length;
  const head = Math.floor(budget * 0.4);
  equal(rendered.isError, false);
  equal(rendered.content.length, 2000);
  equal(rendered.content, full.slice(0, head) + marker + full.slice(full.length - (budget - head)));
});

Deno.test("truncateToolResult() follows the original's edge cases", () => {
  equal(truncateToolResult("abc", 3), "abc");
  equal(truncateToolResult("abcd", 0), "");
  equal(truncateToolResult("x".repeat(50), 20), "\n... [Output truncat");
  // A cut inside a «Category_N» placeholder moves out of it, into the elided middle.
  let packed = "";
  for (let i = 0; packed.length < 2000; i++) packed += `«Email_${i}»`;
  const out = truncateToolResult(packed, 240);
  ok(out.length < 240, "both cuts moved into the elided middle");
  const [head, tail] = out.split(
    /\n\.\.\. \[Output truncated: \d+ characters total; request a narrower result to inspect omitted content\] \.\.\.\n/,
  );
  ok(/^(«Email_\d+»)*$/.test(head), head);
  ok(/^(«Email_\d+»)*$/.test(tail), tail);
});
