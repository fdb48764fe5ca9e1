import assert from "node:assert/strict";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/load.ts";
import { DeniedError, ExitCode, HarnessError } from "../errors.ts";
import type { JsonObject, PermissionScope, Runner, ToolDefinition } from "../types.ts";
import { CallPath, type CallPathDeps, filterEnv, SECRET_NAME } from "./call.ts";
import type { ApprovalPolicy } from "./call_types.ts";
import type { MachineCaps } from "./confine.ts";
import type { ProcessResult, ProcessSpec } from "./process.ts";
import type { WorkerKey, WorkerPool } from "./worker_pool.ts";

const PROJECT = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness-call-unit-" }));
const SCRIPT = `${PROJECT}/.agents/tools/deploy`;
await Deno.mkdir(`${PROJECT}/.agents/tools`, { recursive: true });
await Deno.writeTextFile(SCRIPT, "#!/bin/sh\necho hi\n", { mode: 0o755 });
globalThis.addEventListener("unload", () => Deno.removeSync(PROJECT, { recursive: true }));

const BASE_CONFIG: Config = await loadConfig({ projectDir: PROJECT, getEnv: () => undefined });

/** Landlock ABI 7, FFI, a privileged network namespace: every layer present. */
const FULL: MachineCaps = {
  os: "linux",
  landlockAbi: 7,
  ffi: true,
  bwrap: null,
  unshare: null,
  userns: false,
  netnsPrivileged: true,
};
/** No kernel layer at all. */
const BARE: MachineCaps = { ...FULL, landlockAbi: 0, netnsPrivileged: false };

const ENV = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/u",
  OPENAI_API_KEY: "sk-SECRET",
  GITHUB_TOKEN: "ghp-x",
  FOO: "foo",
};

function tool(
  runner: Runner,
  patch: { permissions?: PermissionScope; parameters?: unknown; name?: string } = {},
): ToolDefinition {
  const def: ToolDefinition = {
    name: patch.name ?? "deploy",
    description: "Deploy",
    parameters: (patch.parameters ?? {
      type: "object",
      properties: { target: { type: "string" } },
      required: ["target"],
    }) as ToolDefinition["parameters"],
    source: { format: runner.kind === "module" ? "builtin" : "octomind", path: SCRIPT },
    runner,
    approval: "never",
    readOnly: false,
    timeoutMs: 1000,
  };
  if (patch.permissions) def.permissions = patch.permissions;
  return def;
}

const SCRIPT_RUNNER: Runner = { kind: "script", program: SCRIPT };

function processResult(patch: Partial<ProcessResult> = {}): ProcessResult {
  return {
    stdout: "done\n",
    stderr: "",
    code: 0,
    signal: null,
    timedOut: false,
    aborted: false,
    truncated: false,
    durationMs: 3,
    notes: [],
    ...patch,
  };
}

/** A pool that records what it was asked to run and answers from `reply`. */
class FakePool {
  processes: { key: WorkerKey; spec: ProcessSpec }[] = [];
  modules: { key: WorkerKey; id: string; args: unknown; ctx: unknown }[] = [];
  warmed: WorkerKey[] = [];
  reply: () => ProcessResult = () => processResult();
  moduleReply: () => { content: string; isError: boolean } = () => ({
    content: "module ok",
    isError: false,
  });
  runProcess(key: WorkerKey, spec: ProcessSpec): Promise<ProcessResult> {
    this.processes.push({ key, spec });
    return Promise.resolve().then(() => this.reply());
  }
  runModule(
    key: WorkerKey,
    id: string,
    args: unknown,
    ctx: unknown,
  ): Promise<{ content: string; isError: boolean }> {
    this.modules.push({ key, id, args, ctx });
    return Promise.resolve().then(() => this.moduleReply());
  }
  warm(key: WorkerKey): void {
    this.warmed.push(key);
  }
  get calls(): number {
    return this.processes.length + this.modules.length;
  }
}

function setup(
  tools: ToolDefinition[],
  patch: {
    caps?: MachineCaps;
    config?: Partial<Config>;
    approve?: ApprovalPolicy;
    env?: Record<string, string>;
  } = {},
) {
  const pool = new FakePool();
  const approvals: string[] = [];
  const approve: ApprovalPolicy = patch.approve ?? ((t) => {
    approvals.push(t.name);
    return Promise.resolve({ approved: true, by: "policy", reason: "test" });
  });
  const deps: CallPathDeps = {
    config: { ...BASE_CONFIG, ...patch.config },
    lookup: (name) => tools.find((t) => t.name === name),
    names: () => tools.map((t) => t.name),
    approve: (t, a, id) => {
      approvals.push(t.name);
      return approve(t, a, id);
    },
    pool: pool as unknown as WorkerPool,
    caps: patch.caps ?? FULL,
    env: patch.env ?? ENV,
    tmpDir: "/tmp/harness-unit-tmp",
    now: (() => {
      let t = 0;
      return () => (t += 5);
    })(),
  };
  return { calls: new CallPath(deps), pool, approvals };
}

Deno.test("CallPath.call() answers an unknown tool with the available names and runs nothing", async () => {
  const { calls, pool, approvals } = setup([
    tool(SCRIPT_RUNNER),
    tool(SCRIPT_RUNNER, { name: "lint" }),
  ]);
  const r = await calls.call({ name: "deplyo", args: {} });
  assert.equal(r.ok, false);
  assert.equal(r.failure, "unknown-tool");
  assert.equal(
    r.content,
    'Unknown tool "deplyo". Available tools: deploy, lint. Call one of them instead.',
  );
  assert.equal(pool.calls, 0);
  assert.deepEqual(approvals, []);
});

Deno.test("CallPath.call() parses rawArguments when no parsed arguments are given", async () => {
  const t = tool(SCRIPT_RUNNER, { parameters: { type: "object" } });
  const { calls, pool } = setup([t]);
  const empty = await calls.call({ name: "deploy", rawArguments: "  " });
  assert.equal(empty.ok, true, empty.content);
  assert.equal(
    new TextDecoder().decode(pool.processes[0].spec.stdin as Uint8Array),
    "{}",
    "empty text means {}",
  );
  const bad = await calls.call({ name: "deploy", rawArguments: '{"a":' });
  assert.equal(bad.failure, "invalid-arguments");
  assert.match(
    bad.content,
    /^Arguments of "deploy" are not valid JSON \(.+\)\. Send the call again with a JSON object as arguments\.$/,
  );
  const array = await calls.call({ name: "deploy", rawArguments: "[1,2]" });
  assert.equal(array.failure, "invalid-arguments");
  assert.match(array.content, /must be a JSON object, got an array/);
  const scalar = await calls.call({ name: "deploy", args: "text" });
  assert.match(scalar.content, /must be a JSON object, got "text"/);
  assert.equal(pool.calls, 1, "only the valid call ran");
});

Deno.test("CallPath.call() validates before approval and never runs a bad call", async () => {
  const { calls, pool, approvals } = setup([tool(SCRIPT_RUNNER)]);
  const r = await calls.call({ name: "deploy", args: { target: 1, extra: true } });
  assert.equal(r.failure, "invalid-arguments");
  assert.match(
    r.content,
    /^Tool "deploy" was called with invalid arguments: "target" must be string\./,
  );
  assert.match(
    r.content,
    /Rewrite the arguments so they satisfy the tool's schema: \{"type":"object"/,
  );
  const missing = await calls.call({ name: "deploy", args: {} });
  assert.match(missing.content, /the arguments are missing the required property "target"/);
  assert.equal(pool.calls, 0);
  assert.deepEqual(approvals, [], "approval is not asked for a call that cannot run");
});

Deno.test("CallPath.call() reports a schema that does not compile as a broken tool", async () => {
  const broken = tool(SCRIPT_RUNNER, {
    parameters: { type: "object", properties: { a: { type: "nonsense" } } },
  });
  const { calls, pool } = setup([broken]);
  const r = await calls.call({ name: "deploy", args: { a: 1 } });
  assert.equal(r.failure, "tool-failed");
  assert.match(
    r.content,
    /^Tool "deploy" cannot be called: its parameters schema is not valid JSON Schema \(.+\); run `harness tools validate`\. Do not retry this call; continue without it$/,
  );
  assert.doesNotMatch(r.content, /Rewrite the arguments/);
  assert.equal(pool.calls, 0);
});

Deno.test("CallPath.call() runs nothing when approval is denied", async () => {
  const { calls, pool } = setup([tool(SCRIPT_RUNNER)], {
    approve: () =>
      Promise.resolve({
        approved: false,
        by: "mode",
        reason: "no terminal to ask on",
        hint: "pass --approval yolo",
      }),
  });
  const r = await calls.call({ name: "deploy", args: { target: "prod" } });
  assert.equal(r.ok, false);
  assert.equal(r.failure, "denied");
  assert.deepEqual(r.denied, {
    reason: "no terminal to ask on",
    hint: "pass --approval yolo",
    by: "mode",
  });
  assert.equal(
    r.content,
    "Denied: no terminal to ask on. Do not retry this call; continue without it or ask the user.",
  );
  assert.equal(pool.calls, 0);
});

Deno.test("CallPath.call() refuses in strict mode when the kernel layer is missing", async () => {
  const { calls, pool } = setup([tool(SCRIPT_RUNNER)], {
    caps: BARE,
    config: { sandbox: "strict" },
  });
  const r = await calls.call({ name: "deploy", args: { target: "prod" } });
  assert.equal(r.failure, "refused");
  assert.match(r.content, /^Refused: Cannot confine ".*deploy" strictly in ".*": read scope/);
  assert.match(r.content, /the kernel has no Landlock/);
  assert.equal(r.denied?.reason, r.content.slice("Refused: ".length, -1));
  assert.equal(pool.calls, 0);
  // The dry run shows the refusal in its plan instead of throwing.
  const plan = await calls.dryRun({ name: "deploy", args: { target: "prod" } });
  assert.match(plan.confinement.refused ?? "", /Cannot confine/);
});

Deno.test("CallPath.call() in auto mode runs without a missing layer and warns once per reason", async () => {
  const { calls, pool } = setup([tool(SCRIPT_RUNNER)], { caps: BARE });
  const r = await calls.call({ name: "deploy", args: { target: "prod" } });
  assert.equal(r.ok, true, r.content);
  assert.equal(pool.processes.length, 1);
  assert.equal(pool.processes[0].key.landlock, undefined);
  assert.ok(r.warnings.length >= 1);
  const reasons = r.warnings.map((w) => w.slice(w.lastIndexOf(": not enforced") + 1));
  assert.equal(new Set(reasons).size, reasons.length, r.warnings.join("\n"));
  assert.ok(r.warnings.every((w) => w.startsWith("deploy: ")));
  assert.ok(r.warnings.some((w) => w.includes(`read ${PROJECT}`)), r.warnings.join("\n"));
  assert.ok(!r.warnings.some((w) => w.includes("unrestricted")), "net: * is the scope itself");

  const full = setup([tool(SCRIPT_RUNNER)]);
  const quiet = await full.calls.call({ name: "deploy", args: { target: "prod" } });
  assert.deepEqual(quiet.warnings, [], "every layer present: nothing to warn about");
});

Deno.test("CallPath.call() gives a subprocess the filtered environment and TMPDIR", async () => {
  const { calls, pool } = setup([
    tool(SCRIPT_RUNNER),
    tool(SCRIPT_RUNNER, { name: "keyed", permissions: { env: ["OPENAI_API_KEY"] } }),
    tool({ kind: "argv", argv: [SCRIPT], envPassthrough: ["GITHUB_TOKEN"] }, {
      name: "agent",
      parameters: { type: "object" },
    }),
  ]);
  await calls.call({ name: "deploy", args: { target: "x" } });
  const inherited = pool.processes[0].spec.env;
  assert.equal(inherited.OPENAI_API_KEY, undefined, "the provider key is withheld");
  assert.equal(inherited.FOO, "foo");
  assert.equal(inherited.GITHUB_TOKEN, "ghp-x");
  assert.equal(inherited.TMPDIR, "/tmp/harness-unit-tmp");
  assert.equal(inherited.OCTOMIND_PARAM_TARGET, "x");

  await calls.call({ name: "keyed", args: { target: "x" } });
  const keyed = pool.processes[1].spec.env;
  assert.equal(keyed.OPENAI_API_KEY, "sk-SECRET");
  assert.equal(keyed.FOO, undefined, "a declared env scope gets only what it names");
  assert.equal(keyed.PATH, "/usr/bin:/bin");

  await calls.call({ name: "agent", args: { a: 2 }, rawArguments: ' {"a": 2.0} ' });
  const agent = pool.processes[2].spec;
  assert.deepEqual(Object.keys(agent.env).sort(), ["GITHUB_TOKEN", "HOME", "PATH"]);
  assert.equal(new TextDecoder().decode(agent.stdin as Uint8Array), '{"a": 2.0}');
});

Deno.test("CallPath.call() wraps a per-call namespace but names the tool's own program", async () => {
  const caps: MachineCaps = {
    ...FULL,
    netnsPrivileged: false,
    unshare: "/usr/bin/unshare",
    userns: true,
  };
  const { calls, pool } = setup([tool(SCRIPT_RUNNER, { permissions: { net: [] } })], { caps });
  pool.reply = () =>
    processResult({
      stdout: "",
      code: null,
      spawnError: { kind: "not-found", message: "no such file" },
    });
  const r = await calls.call({ name: "deploy", args: { target: "x" } });
  const spec = pool.processes[0].spec;
  assert.equal(spec.program, "/usr/bin/unshare");
  assert.deepEqual(spec.args, ["--user", "--net", "--", SCRIPT]);
  assert.deepEqual(pool.processes[0].key.permissions.run, [SCRIPT, "/usr/bin/unshare"]);
  assert.equal(r.failure, "tool-failed");
  assert.equal(
    r.content,
    `local tool 'deploy' failed: spawn '${SCRIPT}' failed: No such file or directory (os error 2)`,
  );
});

Deno.test("CallPath.call() turns pool errors into results: denied or tool-failed", async () => {
  const { calls, pool } = setup([tool(SCRIPT_RUNNER)]);
  pool.reply = () => {
    throw new DeniedError("harness lacks --allow-ffi", { hint: "run with --allow-ffi" });
  };
  const denied = await calls.call({ name: "deploy", args: { target: "x" } });
  assert.equal(denied.failure, "denied");
  assert.equal(denied.content, "Denied: harness lacks --allow-ffi.");
  assert.deepEqual(denied.denied, {
    reason: "harness lacks --allow-ffi",
    hint: "run with --allow-ffi",
    by: "permission",
  });

  pool.reply = () => {
    throw new HarnessError("the Worker crashed", ExitCode.Failed, { hint: "report it" });
  };
  const crashed = await calls.call({ name: "deploy", args: { target: "x" } });
  assert.equal(crashed.failure, "tool-failed");
  assert.equal(crashed.content, "The tool could not run: the Worker crashed (report it).");

  pool.reply = () => {
    throw new TypeError("a bug");
  };
  await assert.rejects(() => calls.call({ name: "deploy", args: { target: "x" } }), TypeError);
});

Deno.test("CallPath.call() reports exit codes and timeouts of a process as failures", async () => {
  const { calls, pool } = setup([tool(SCRIPT_RUNNER)]);
  pool.reply = () => processResult({ code: 2, stderr: "bad\n", stdout: "" });
  const failed = await calls.call({ name: "deploy", args: { target: "x" } });
  assert.deepEqual(
    { ok: failed.ok, failure: failed.failure, exitCode: failed.exitCode },
    { ok: false, failure: "tool-failed", exitCode: 2 },
  );
  assert.equal(
    failed.content,
    "local tool 'deploy' exited with status exit status: 2\n[stderr]\nbad",
  );
  pool.reply = () => processResult({ code: null, signal: "SIGTERM", timedOut: true, stdout: "" });
  const late = await calls.call({ name: "deploy", args: { target: "x" } });
  assert.equal(late.timedOut, true);
  assert.equal(late.ok, false);
  assert.equal(late.content, "local tool 'deploy' failed: local tool 'deploy' timed out after 1s");
  assert.equal(late.durationMs, 5, "the injected clock measures the call");
});

Deno.test("CallPath.call() runs a built-in module in a Worker holding exactly its scope", async () => {
  const builtin = tool({ kind: "module", url: "read_file" }, {
    name: "read_file",
    permissions: { read: [PROJECT] },
    parameters: { type: "object", properties: { path: { type: "string" } } },
  });
  const { calls, pool } = setup([builtin]);
  const r = await calls.call({ name: "read_file", args: { path: "a.txt" } });
  assert.equal(r.ok, true);
  assert.equal(r.content, "module ok");
  assert.equal(pool.modules[0].id, "read_file");
  assert.deepEqual(pool.modules[0].args, { path: "a.txt" });
  assert.deepEqual(pool.modules[0].key.permissions, {
    read: [PROJECT],
    write: [],
    net: [],
    env: [],
    run: [],
    ffi: false,
    sys: false,
  });
  pool.moduleReply = () => ({ content: 'Path ".." is outside the project', isError: true });
  const refused = await calls.call({ name: "read_file", args: { path: ".." } });
  assert.equal(refused.failure, "tool-failed");
  assert.equal(refused.content, 'Path ".." is outside the project');
});

Deno.test("CallPath.dryRun() throws usage errors for bad calls and runs nothing", async () => {
  const { calls, pool } = setup([tool(SCRIPT_RUNNER)]);
  await assert.rejects(
    () => calls.dryRun({ name: "nope", args: {} }),
    (e: HarnessError) => e.exitCode === ExitCode.Usage && /Unknown tool "nope"/.test(e.message),
  );
  await assert.rejects(
    () => calls.dryRun({ name: "deploy", args: {} }),
    (e: HarnessError) =>
      e.exitCode === ExitCode.Usage && /missing the required property "target"/.test(e.message),
  );
  const plan = await calls.dryRun({
    name: "deploy",
    args: { target: "x" },
    rawArguments: '{"target":"x"}',
  });
  assert.deepEqual(plan.argv, [SCRIPT]);
  assert.equal(plan.stdin, '{"target":"x"}');
  assert.equal(plan.cwd, PROJECT);
  assert.ok(plan.envNames.includes("OCTOMIND_PARAM_TARGET"));
  assert.ok(!plan.envNames.includes("OPENAI_API_KEY"));
  assert.equal(pool.calls, 0);
});

Deno.test("filterEnv() keeps the listed names, or everything but the withheld ones", () => {
  const env = { A: "1", B: "", KEY: "secret" };
  assert.deepEqual(filterEnv(env, ["A", "B", "MISSING"], []), { A: "1", B: "" });
  assert.deepEqual(filterEnv(env, ["A", "KEY"], ["KEY"]), { A: "1" });
  assert.deepEqual(filterEnv(env, true, ["KEY"]), { A: "1", B: "" });
  assert.deepEqual(filterEnv(env, true, []), env);
});

Deno.test("SECRET_NAME matches the names whose values a dry run masks", () => {
  for (
    const name of ["OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "aws_secret", "AUTH_HEADER"]
  ) {
    assert.ok(SECRET_NAME.test(name), name);
  }
  for (const name of ["PATH", "HOME", "LANG", "TZ", "OCTOMIND_PARAM_TARGET"]) {
    assert.ok(!SECRET_NAME.test(name), name);
  }
});

Deno.test("CallPath.plan() adds the tool's own program to run and keeps the resolution", () => {
  const { calls } = setup([]);
  const args: JsonObject = { target: "x" };
  const plan = calls.plan(tool(SCRIPT_RUNNER, { permissions: { read: ["./data"] } }), { args });
  assert.deepEqual(plan.resolution.scope.read, [`${PROJECT}/data`]);
  assert.equal(plan.resolution.scope.run[0], SCRIPT);
  assert.equal(plan.prepared?.spec.program, SCRIPT);
  assert.ok(plan.confinement.landlock?.read.includes(`${PROJECT}/data`));
});

Deno.test("CallPath.warm() starts the Worker of a call once per tool definition, runs nothing", () => {
  const deploy = tool(SCRIPT_RUNNER);
  const { calls, pool, approvals } = setup([deploy]);
  calls.warm(deploy);
  calls.warm(deploy);
  assert.equal(pool.warmed.length, 1);
  assert.deepEqual(pool.warmed[0].permissions.run, [SCRIPT]);
  assert.equal(pool.calls, 0);
  assert.deepEqual(approvals, []);
  // A reloaded definition (a new object) is warmed again: its scope may have changed.
  calls.warm(tool(SCRIPT_RUNNER, { permissions: { read: ["."] } }));
  assert.equal(pool.warmed.length, 2);
});

Deno.test("CallPath.warm() skips a tool the sandbox refuses", () => {
  const deploy = tool(SCRIPT_RUNNER);
  const { calls, pool } = setup([deploy], { caps: BARE, config: { sandbox: "strict" } });
  calls.warm(deploy);
  assert.equal(pool.warmed.length, 0);
});
