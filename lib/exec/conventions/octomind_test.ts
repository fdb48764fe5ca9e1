import { deepEqual, equal } from "node:assert/strict";
import type { ToolDefinition } from "../../types.ts";
import { prepareOctomind, renderOctomind } from "./octomind.ts";
import type { CallContext, ProcessResultLike } from "./types.ts";
import {
  fixtureProject,
  parseDump,
  runSpec,
  withoutShellVars,
} from "../../../tests/_helpers/run_spec.ts";

const ENV = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/home/tester", LANG: "C.UTF-8" };

function tool(name: string, program: string, timeoutMs = 300_000): ToolDefinition {
  return {
    name,
    description: "d",
    parameters: { type: "object", properties: {}, required: [] },
    source: { format: "octomind", path: program },
    runner: { kind: "script", program },
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

Deno.test("prepareOctomind() gives the script its path, the project cwd, OCTOMIND_* env and sorted stdin", async () => {
  const p = fixtureProject();
  try {
    const dump = p.install("dump");
    const raw =
      '{"zeta":"x y","alpha":2.0,"nil":null,"yes":true,"list":[1,"b c",1E2],"obj":{"z":1,"a":[1.5e3]},"undeclared":"u\\nv"}';
    const prepared = prepareOctomind(
      tool("dump", dump),
      { args: JSON.parse(raw), rawArguments: raw },
      ctx(p.dir),
    );
    const run = await runSpec(prepared.spec);
    const seen = parseDump(run.stdout);
    deepEqual(seen.argv, [dump]);
    equal(seen.cwd, p.dir);
    equal(
      seen.stdin,
      '{"alpha":2.0,"list":[1,"b c",100.0],"nil":null,"obj":{"a":[1500.0],"z":1},"undeclared":"u\\nv","yes":true,"zeta":"x y"}',
    );
    deepEqual(withoutShellVars(seen.env), {
      ...ENV,
      OCTOMIND_TOOL_NAME: "dump",
      OCTOMIND_WORKDIR: p.dir,
      OCTOMIND_PARAM_ALPHA: "2.0",
      OCTOMIND_PARAM_LIST: '[1,"b c",100.0]',
      OCTOMIND_PARAM_NIL: "",
      OCTOMIND_PARAM_OBJ: '{"a":[1500.0],"z":1}',
      OCTOMIND_PARAM_UNDECLARED: "u\nv",
      OCTOMIND_PARAM_YES: "true",
      OCTOMIND_PARAM_ZETA: "x y",
    });
    // What the model sees: stdout verbatim (NUL bytes and all).
    deepEqual(renderOctomind(tool("dump", dump), run, prepared.spec), {
      content: run.stdout,
      isError: false,
    });
    deepEqual(prepared.display.argv, [dump]);
    equal(prepared.display.stdin, seen.stdin);
    equal(prepared.display.cwd, p.dir);
    deepEqual(prepared.display.envNames, Object.keys(prepared.spec.env).sort());
  } finally {
    p.cleanup();
  }
});

Deno.test("prepareOctomind() prints numbers as serde_json 1.0.150 (zmij) does", () => {
  const cases: [string, string][] = [
    ["2.0", "2.0"],
    ["100", "100"],
    ["1.5e3", "1500.0"],
    ["1e21", "1e+21"],
    ["1E-7", "1e-7"],
    ["0.00001", "0.00001"],
    ["0.000001", "1e-6"],
    ["123456789.125", "123456789.125"],
    ["1e15", "1000000000000000.0"],
    ["1e16", "1e+16"],
    ["-0", "-0.0"],
    ["-0.0", "-0.0"],
    ["0", "0"],
    ["-17", "-17"],
    ["18446744073709551615", "18446744073709551615"],
    ["18446744073709551616", "1.8446744073709552e+19"],
    ["-9223372036854775808", "-9223372036854775808"],
    ["-9223372036854775809", "-9.223372036854776e+18"],
    ["12345678901234567890", "12345678901234567890"],
    ["0.1", "0.1"],
    ["5e-324", "5e-324"],
    ["1.7976931348623157e308", "1.7976931348623157e+308"],
    ["1e-400", "0.0"],
    ["-1e-400", "-0.0"],
    ["1e100", "1e+100"],
    ["1.5e-7", "1.5e-7"],
    ["123e-20", "1.23e-18"],
    ["999999999999999.9", "999999999999999.9"],
    ["9999999999999998", "9999999999999998"],
    ["9999999999999998.0", "9999999999999998.0"],
    ["99999999999999999.0", "1e+17"],
  ];
  for (const [lexeme, want] of cases) {
    const raw = `{"n":${lexeme}}`;
    const { spec, display } = prepareOctomind(
      tool("t", "/x/t"),
      { args: JSON.parse(raw), rawArguments: raw },
      ctx("/p"),
    );
    equal(spec.env.OCTOMIND_PARAM_N, want, lexeme);
    equal(display.stdin, `{"n":${want}}`, lexeme);
  }
});

Deno.test("prepareOctomind() takes numbers from args when the raw text is absent or disagrees", () => {
  const t = tool("t", "/x/t");
  const noRaw = prepareOctomind(t, { args: { n: 2, f: 0.5, big: 1e21 } }, ctx("/p"));
  equal(noRaw.display.stdin, '{"big":1e+21,"f":0.5,"n":2}');
  // The raw text says 2.0 but args say 3: args win, so nothing stale reaches the script.
  const stale = prepareOctomind(t, { args: { n: 3 }, rawArguments: '{"n":2.0}' }, ctx("/p"));
  equal(stale.spec.env.OCTOMIND_PARAM_N, "3");
  const broken = prepareOctomind(t, { args: { n: 3 }, rawArguments: "{n:3" }, ctx("/p"));
  equal(broken.display.stdin, '{"n":3}');
});

Deno.test("prepareOctomind() lets the later key in sorted order win when upper-cased names collide", () => {
  const raw = '{"a":"lower","A":"upper"}';
  const { spec, display } = prepareOctomind(
    tool("t", "/x/t"),
    { args: JSON.parse(raw), rawArguments: raw },
    ctx("/p"),
  );
  equal(spec.env.OCTOMIND_PARAM_A, "lower");
  equal(display.stdin, '{"A":"upper","a":"lower"}');
});

Deno.test("prepareOctomind() sorts keys by code point, as Rust's BTreeMap", () => {
  const args = { "\u{1F600}": 1, "\uFF21": 2, b: 3, B: 4 };
  const { display } = prepareOctomind(tool("t", "/x/t"), { args }, ctx("/p"));
  equal(display.stdin, '{"B":4,"b":3,"\uFF21":2,"\u{1F600}":1}');
});

Deno.test("renderOctomind() shows stdout verbatim and appends the [stderr] block", async () => {
  const p = fixtureProject();
  try {
    const emit = p.install("emit");
    const t = tool("emit", emit);
    const call = async (args: Record<string, unknown>) => {
      const prepared = prepareOctomind(t, { args }, ctx(p.dir));
      return renderOctomind(t, await runSpec(prepared.spec), prepared.spec);
    };
    deepEqual(await call({ out: "out  \\n\\n", err: "" }), {
      content: "out  \n\n",
      isError: false,
    });
    deepEqual(await call({ out: "out", err: "  warn \\n" }), {
      content: "out\n[stderr]\n  warn",
      isError: false,
    });
    deepEqual(await call({ out: "out\\n", err: "warn" }), {
      content: "out\n[stderr]\nwarn",
      isError: false,
    });
    deepEqual(await call({ out: "", err: "warn\\n" }), {
      content: "[stderr]\nwarn",
      isError: false,
    });
    deepEqual(await call({ out: "out", err: " \\n\\t" }), { content: "out", isError: false });
  } finally {
    p.cleanup();
  }
});

Deno.test("renderOctomind() trims white space as Rust does (U+0085 yes, U+FEFF no)", () => {
  const t = tool("t", "/x/t");
  deepEqual(renderOctomind(t, result({ stdout: "o", stderr: "\u0085 " })), {
    content: "o",
    isError: false,
  });
  deepEqual(renderOctomind(t, result({ stdout: "o", stderr: "\uFEFF" })), {
    content: "o\n[stderr]\n\uFEFF",
    isError: false,
  });
});

Deno.test("renderOctomind() reports a non-zero exit with Rust's ExitStatus text, stderr and stdout", async () => {
  const p = fixtureProject();
  try {
    const emit = p.install("emit");
    const t = tool("emit", emit);
    const call = async (args: Record<string, unknown>) => {
      const prepared = prepareOctomind(t, { args }, ctx(p.dir));
      return renderOctomind(t, await runSpec(prepared.spec), prepared.spec);
    };
    deepEqual(await call({ out: "partial\\n", err: "boom\\n\\n", code: 3 }), {
      content:
        "local tool 'emit' exited with status exit status: 3\n[stderr]\nboom\n[stdout]\npartial",
      isError: true,
    });
    deepEqual(await call({ code: 1 }), {
      content: "local tool 'emit' exited with status exit status: 1",
      isError: true,
    });
    // stderr is checked untrimmed: a lone newline still adds an (empty) block.
    deepEqual(await call({ err: "\\n", code: 2 }), {
      content: "local tool 'emit' exited with status exit status: 2\n[stderr]\n",
      isError: true,
    });
    deepEqual(await call({ out: "x", sig: "KILL" }), {
      content: "local tool 'emit' exited with status signal: 9 (SIGKILL)\n[stdout]\nx",
      isError: true,
    });
    deepEqual(await call({ sig: "TERM" }), {
      content: "local tool 'emit' exited with status signal: 15 (SIGTERM)",
      isError: true,
    });
  } finally {
    p.cleanup();
  }
});

Deno.test("renderOctomind() words spawn failures as Octomind's router does", async () => {
  const p = fixtureProject();
  try {
    const badInterp = p.write(".agents/tools/bad", "#!/nonexistent/interpreter\necho hi\n");
    const notExec = p.write(".agents/tools/noexec", "#!/bin/sh\necho hi\n", 0o644);
    for (
      const [program, text] of [
        [badInterp, "No such file or directory (os error 2)"],
        [notExec, "Permission denied (os error 13)"],
      ]
    ) {
      const t = tool("bad", program);
      const prepared = prepareOctomind(t, { args: {} }, ctx(p.dir));
      const run = await runSpec(prepared.spec);
      deepEqual(renderOctomind(t, run, prepared.spec), {
        content: `local tool 'bad' failed: spawn '${program}' failed: ${text}`,
        isError: true,
      });
    }
  } finally {
    p.cleanup();
  }
});

Deno.test("renderOctomind() reports a timeout in the seconds the harness used", async () => {
  const p = fixtureProject();
  try {
    const emit = p.install("emit");
    const t = tool("emit", emit);
    const prepared = prepareOctomind(t, { args: { sleep: 5 } }, ctx(p.dir, { timeoutMs: 300 }));
    const run = await runSpec(prepared.spec);
    equal(run.timedOut, true);
    deepEqual(renderOctomind(t, run, prepared.spec), {
      content: "local tool 'emit' failed: local tool 'emit' timed out after 0.3s",
      isError: true,
    });
    equal(
      renderOctomind(t, result({ timedOut: true })).content,
      "local tool 'emit' failed: local tool 'emit' timed out after 300s",
    );
  } finally {
    p.cleanup();
  }
});
