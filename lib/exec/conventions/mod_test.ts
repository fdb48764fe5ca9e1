import { deepEqual, equal, throws } from "node:assert/strict";
import type { ProcessResult, ProcessSpec } from "../process.ts";
import type { Runner, ToolDefinition } from "../../types.ts";
import {
  type CallContext,
  prepareCall,
  type ProcessResultLike,
  type ProcessSpecLike,
  renderResult,
} from "./mod.ts";
import { fixtureProject, runSpec } from "../../../tests/_helpers/run_spec.ts";

function tool(runner: Runner): ToolDefinition {
  return {
    name: "t",
    description: "d",
    source: { format: "builtin", path: "/p/x" },
    runner,
    approval: "never",
    readOnly: false,
    timeoutMs: 1000,
  };
}

const ctx = (projectDir: string): CallContext => ({
  projectDir,
  env: { PATH: "/usr/bin:/bin", SECRET: "s" },
  timeoutMs: 5000,
  maxOutputBytes: 1 << 16,
  shells: { bash: true },
});

Deno.test("prepareCall() and renderResult() use the convention of the tool's runner", async () => {
  const p = fixtureProject();
  try {
    const emit = p.install("emit");
    const cases: [Runner, string][] = [
      [{ kind: "script", program: emit }, "hi"],
      [{ kind: "template", body: "printf hi" }, "EXIT_CODE: 0\nhi"],
      [{ kind: "argv", argv: [emit], envPassthrough: ["EMIT_OUT"] }, "hi"],
    ];
    for (const [runner, content] of cases) {
      const t = tool(runner);
      const c = { ...ctx(p.dir), env: { ...ctx(p.dir).env, EMIT_OUT: "hi" } };
      const prepared = prepareCall(t, { args: { out: "hi" } }, c);
      const run = await runSpec(prepared.spec);
      deepEqual(renderResult(t, run, prepared.spec), { content, isError: false }, runner.kind);
    }
  } finally {
    p.cleanup();
  }
});

Deno.test("prepareCall() refuses a module tool, which has no calling convention", () => {
  const t = tool({ kind: "module", url: "file:///x.ts" });
  throws(() => prepareCall(t, { args: {} }, ctx("/p")), TypeError);
  throws(() =>
    renderResult(t, {
      stdout: "",
      stderr: "",
      code: 0,
      signal: null,
      timedOut: false,
      truncated: false,
      durationMs: 0,
    }), TypeError);
});

Deno.test("prepareCall() shows environment names only, never values", () => {
  const t = tool({ kind: "script", program: "/x/t" });
  const prepared = prepareCall(t, { args: { a: 1 } }, ctx("/p"));
  deepEqual(prepared.display.envNames, [
    "OCTOMIND_PARAM_A",
    "OCTOMIND_TOOL_NAME",
    "OCTOMIND_WORKDIR",
    "PATH",
    "SECRET",
  ]);
  deepEqual(Object.keys(prepared.display).sort(), ["argv", "cwd", "envNames", "stdin"]);
});

Deno.test("ProcessSpecLike and ProcessResultLike match the process layer's types", () => {
  // Compile-time checks: a prepared spec is a ProcessSpec and back, a ProcessResult renders.
  const toSpec = (s: ProcessSpecLike): ProcessSpec => s;
  const fromSpec = (s: ProcessSpec): ProcessSpecLike => s;
  const toLike = (r: ProcessResult): ProcessResultLike => r;
  equal(typeof toSpec, "function");
  equal(typeof fromSpec, "function");
  equal(typeof toLike, "function");
});

Deno.test("renderResult() reads the real process layer's results", async () => {
  const { runProcess } = await import("../process.ts");
  const p = fixtureProject();
  try {
    const emit = p.install("emit");
    const c = { ...ctx(p.dir), env: { ...ctx(p.dir).env, EMIT_OUT: "hi" } };
    const cases: [Runner, Record<string, unknown>, string, boolean][] = [
      [
        { kind: "script", program: emit },
        { out: "o", err: "e", code: 4 },
        "local tool 't' exited with status exit status: 4\n[stderr]\ne\n[stdout]\no",
        true,
      ],
      [
        { kind: "script", program: `${p.dir}/missing` },
        {},
        `local tool 't' failed: spawn '${p.dir}/missing' failed: No such file or directory (os error 2)`,
        true,
      ],
      [
        { kind: "script", program: emit },
        { sleep: 5 },
        "local tool 't' failed: local tool 't' timed out after 0.3s",
        true,
      ],
      [{ kind: "template", body: "printf x; exit 2" }, {}, "EXIT_CODE: 2\nx", false],
      [{ kind: "template", body: "sleep 5" }, {}, "Error: Custom tool timed out after 300ms", true],
      [{ kind: "argv", argv: [emit], envPassthrough: ["EMIT_OUT"] }, {}, "hi", false],
      [
        { kind: "argv", argv: ["/bin/sleep", "5"], envPassthrough: [] },
        {},
        '{"error":"tool timed out"}',
        true,
      ],
      [
        { kind: "argv", argv: [`${p.dir}/missing`], envPassthrough: [] },
        {},
        `{"error":"start: fork/exec ${p.dir}/missing: no such file or directory"}`,
        true,
      ],
    ];
    for (const [runner, args, content, isError] of cases) {
      const t = tool(runner);
      const prepared = prepareCall(t, { args }, { ...c, timeoutMs: 300 });
      const run = await runProcess(prepared.spec);
      deepEqual(renderResult(t, run, prepared.spec), { content, isError }, content);
    }
  } finally {
    p.cleanup();
  }
});
