import { UsageError } from "../errors.ts";
import assert from "node:assert/strict";
import type { Config } from "../config/load.ts";
import type { Diagnostic, Runner, ToolDefinition } from "../types.ts";
import { lintOnDisk, lookPath } from "./lint_disk.ts";
import {
  formatOfFile,
  lintTool,
  lintTools,
  OPENAI_MAX_TOOLS,
  OPENAI_NAME,
  sortDiagnostics,
} from "./validate.ts";

function config(projectDir: string, patch: Partial<Config["tools"]> = {}): Config {
  return {
    projectDir,
    sandbox: "auto",
    ceiling: {},
    tools: {
      octomindDirs: [],
      nanocoderDirs: [],
      manifests: [],
      personal: false,
      defaults: {
        approval: "always",
        octomindTimeoutMs: 300_000,
        manifestTimeoutMs: 30_000,
        maxOutputBytes: 1_048_576,
      },
      overrides: {},
      builtins: {},
      disabled: [],
      ...patch,
    },
    provider: {
      baseUrl: "https://api.openai.com/v1",
      apiKeyEnv: "OPENAI_API_KEY",
      stream: true,
      headers: {},
      extraBody: {},
      toolCallIdFormat: "auto",
    },
    nativeTools: [],
    run: {},
  };
}

function tool(name: string, runner: Runner, path = "/p/x", parameters?: unknown): ToolDefinition {
  return {
    name,
    description: "d",
    parameters: (parameters ?? { type: "object", properties: {} }) as ToolDefinition["parameters"],
    source: { format: "manifest", path, line: 4 },
    runner,
    approval: "never",
    readOnly: false,
    timeoutMs: 1000,
  };
}

const ENV = (vars: Record<string, string>) => (n: string) => vars[n];
const PATH_ENV = ENV({ PATH: "/usr/local/bin:/usr/bin:/bin" });

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_validate_" }));
}

async function write(path: string, text: string, mode = 0o644): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, mode);
}

const md = (name: string, extra = "", body = `echo ${name}`) =>
  `---\nname: ${name}\ndescription: Tool ${name}\n${extra}---\n${body}\n`;

Deno.test("OPENAI_NAME matches OpenAI's function name rule", () => {
  for (const ok of ["a", "get_pods", "k8s-pods", "A".repeat(64)]) assert.ok(OPENAI_NAME.test(ok));
  for (const bad of ["", "my tool", "a.b", "A".repeat(65), "é"]) assert.ok(!OPENAI_NAME.test(bad));
});

Deno.test("lintTool() reports a name OpenAI rejects, at the tool's definition", () => {
  const ds = lintTool(tool("my tool", { kind: "argv", argv: ["/bin/true"], envPassthrough: [] }));
  assert.deepEqual(ds.map((d) => [d.code, d.severity, d.line, d.tool]), [[
    "openai/invalid-name",
    "error",
    4,
    "my tool",
  ]]);
  assert.match(ds[0].message, /Tool name "my tool" does not match \^\[a-zA-Z0-9_-\]\{1,64\}\$/);
});

Deno.test("lintTool() lints the schema of loaded tools but not of built-ins", () => {
  const bad = { type: "object", properties: { a: { type: "strin" } } };
  const t = tool("t", { kind: "argv", argv: ["/bin/true"], envPassthrough: [] }, "/p/x", bad);
  assert.deepEqual(lintTool(t).map((d) => d.code), ["schema/invalid"]);
  const builtin = { ...t, source: { format: "builtin" as const, path: "builtin:t" } };
  assert.deepEqual(lintTool(builtin), []);
});

Deno.test("formatOfFile() picks the format by file name", () => {
  assert.equal(formatOfFile("/p/.nanocoder/tools/a.md"), "nanocoder");
  assert.equal(formatOfFile("/p/tools.json"), "manifest");
  assert.equal(formatOfFile("/p/.agents/tools/deploy"), "octomind");
  assert.equal(formatOfFile("/p/.agents/tools/deploy.sh"), "octomind");
});

Deno.test("sortDiagnostics() sorts by file, line, column, then code", () => {
  const d = (file: string, line?: number, column?: number, code = "x/a"): Diagnostic => ({
    severity: "error",
    code,
    message: "m",
    file,
    ...(line !== undefined ? { line } : {}),
    ...(column !== undefined ? { column } : {}),
  });
  const sorted = sortDiagnostics([
    d("b", 1),
    d("a", 2, 1),
    d("a", 2, 1, "w/z"),
    d("a"),
    d("a", 1, 5),
  ]);
  assert.deepEqual(sorted.map((x) => `${x.file}:${x.line}:${x.column}:${x.code}`), [
    "a:undefined:undefined:x/a",
    "a:1:5:x/a",
    "a:2:1:w/z",
    "a:2:1:x/a",
    "b:1:undefined:x/a",
  ]);
});

Deno.test("lookPath() finds executables on PATH and checks explicit paths", async () => {
  const dir = await tempDir();
  try {
    await write(`${dir}/bin/tool`, "#!/bin/sh\n", 0o755);
    await write(`${dir}/bin/plain`, "x", 0o644);
    assert.equal(await lookPath("tool", `/nonexistent::${dir}/bin`), `${dir}/bin/tool`);
    assert.equal(await lookPath("plain", `${dir}/bin`), undefined);
    assert.equal(await lookPath(`${dir}/bin/tool`, ""), `${dir}/bin/tool`);
    assert.equal(await lookPath(`${dir}/bin/plain`, ""), undefined);
    assert.equal(await lookPath("tool", ""), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lintOnDisk() reports a shebang interpreter that is not on PATH", async () => {
  const dir = await tempDir();
  try {
    const script = (name: string, shebang: string) =>
      write(`${dir}/${name}`, `${shebang}\necho\n`, 0o755);
    await script("env_missing", "#!/usr/bin/env harness-no-such-interpreter");
    await script("abs_missing", "#!/no/such/dir/python3 -u");
    await script("env_ok", "#!/usr/bin/env -S sh -e");
    await script("abs_ok", "#!/bin/sh");
    await script("none", "echo no shebang");
    const tools = ["env_missing", "abs_missing", "env_ok", "abs_ok", "none"].map((n) =>
      tool(n, { kind: "script", program: `${dir}/${n}` })
    );
    const ds = await lintOnDisk(tools, PATH_ENV);
    assert.deepEqual(ds.map((d) => [d.tool, d.code, d.line]), [
      ["env_missing", "octomind/interpreter-not-found", 1],
      ["abs_missing", "octomind/interpreter-not-found", 1],
    ]);
    assert.match(
      ds[0].message,
      /"harness-no-such-interpreter" of tool "env_missing" is not on PATH/,
    );
    assert.match(
      ds[1].message,
      /"\/no\/such\/dir\/python3" .* does not exist or is not executable/,
    );
    assert.equal(ds[0].file, `${dir}/env_missing`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lintOnDisk() reports a manifest command that is missing or not executable", async () => {
  const dir = await tempDir();
  try {
    await write(`${dir}/tools/bin/plain`, "#!/bin/sh\n", 0o644);
    await write(`${dir}/tools/bin/ok`, "#!/bin/sh\n", 0o755);
    const argv = (n: string) =>
      tool(
        n,
        { kind: "argv", argv: [`${dir}/tools/bin/${n}`], envPassthrough: [] },
        `${dir}/tools.json`,
      );
    const ds = await lintOnDisk([argv("gone"), argv("plain"), argv("ok")], PATH_ENV);
    assert.deepEqual(ds.map((d) => [d.tool, d.code, d.file, d.line]), [
      ["gone", "manifest/command-not-found", `${dir}/tools.json`, 4],
      ["plain", "manifest/command-not-executable", `${dir}/tools.json`, 4],
    ]);
    assert.match(
      ds[0].message,
      /^error: configured tool "gone" is unavailable: exec: ".*\/gone": stat .*: no such file or directory/,
    );
    assert.match(ds[1].message, /permission denied .*run chmod \+x /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lintOnDisk() locates template problems in the Nanocoder file", async () => {
  const dir = await tempDir();
  try {
    const path = `${dir}/t.md`;
    const text = md(
      "t",
      "parameters:\n  who:\n    type: string\n",
      "echo {{ who }}\necho {{ whom }}",
    );
    await write(path, text);
    const t = tool("t", { kind: "template", body: "echo {{ who }}\necho {{ whom }}" }, path, {
      type: "object",
      properties: { who: { type: "string" } },
    });
    const ds = await lintOnDisk([t], PATH_ENV);
    assert.deepEqual(ds.map((d) => [d.code, d.severity, d.line, d.column]), [[
      "template/undeclared-name",
      "error",
      text.split("\n").indexOf("echo {{ whom }}") + 1,
      6,
    ]]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lintTools() lints a project: loaders, shadowing and on-disk rules together", async () => {
  const dir = await tempDir();
  try {
    await write(`${dir}/.nanocoder/tools/same.md`, md("same"));
    await write(`${dir}/.nanocoder/tools/bad.md`, md("bad", "", "echo {{ nope }}"));
    await write(
      `${dir}/.agents/tools/same`,
      "#!/bin/sh\n# @description Same name, lower precedence\necho\n",
      0o755,
    );
    const report = await lintTools(config(dir), [], PATH_ENV);
    assert.equal(report.tools, 2);
    assert.deepEqual(report.snapshot.tools.map((t) => t.name), ["bad", "same"]);
    assert.deepEqual(report.diagnostics.map((d) => [d.code, d.file.slice(dir.length)]), [
      ["registry/shadowed", "/.agents/tools/same"],
      ["template/undeclared-name", "/.nanocoder/tools/bad.md"],
    ]);
    assert.deepEqual(report.snapshot.shadows.get("same"), [
      { format: "octomind", path: `${dir}/.agents/tools/same` },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lintTools() reports more than 128 tools", async () => {
  const dir = await tempDir();
  try {
    for (let i = 0; i <= OPENAI_MAX_TOOLS; i++) {
      await write(`${dir}/.nanocoder/tools/t${String(i).padStart(3, "0")}.md`, md(`t${i}`));
    }
    const report = await lintTools(config(dir), [], PATH_ENV);
    assert.equal(report.tools, OPENAI_MAX_TOOLS + 1);
    const d = report.diagnostics.filter((x) => x.code === "openai/too-many-tools");
    assert.equal(d.length, 1);
    assert.match(d[0].message, /^129 tools are loaded but OpenAI accepts at most 128/);
    assert.equal(d[0].file, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lintTools() lints only the given files, by format of their names", async () => {
  const dir = await tempDir();
  try {
    await write(`${dir}/one.md`, "---\nname: Bad-Name\ndescription: x\n---\necho\n");
    await write(`${dir}/.nanocoder/tools/other.md`, "---\nname: x\n---\n");
    const report = await lintTools(config(dir), ["one.md"], PATH_ENV);
    assert.equal(report.tools, 0);
    assert.ok(report.diagnostics.length > 0);
    assert.ok(report.diagnostics.every((d) => d.file === `${dir}/one.md`));
    assert.ok(report.diagnostics.some((d) => d.code === "nanocoder/invalid-name"));
    await assert.rejects(
      () => lintTools(config(dir), ["nope.md"], PATH_ENV),
      (e: unknown) =>
        e instanceof UsageError && /Cannot lint ".*nope\.md": it does not exist/.test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
