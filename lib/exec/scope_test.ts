import assert from "node:assert/strict";
import type { Config } from "../config/load.ts";
import { DeniedError, ExitCode } from "../errors.ts";
import type { PermissionKind, PermissionScope, Runner, ToolDefinition } from "../types.ts";
import {
  BASE_ENV,
  grantFlag,
  type GrantQuery,
  netWithin,
  pathWithin,
  resolveScope,
  toolProgram,
} from "./scope.ts";

const P = "/proj";
const allGranted: GrantQuery = () => true;

function config(
  patch: {
    sandbox?: Config["sandbox"];
    ceiling?: PermissionScope;
    overrides?: Config["tools"]["overrides"];
    apiKeyEnv?: string;
  } = {},
): Config {
  return {
    projectDir: P,
    sandbox: patch.sandbox ?? "auto",
    ceiling: patch.ceiling ?? {},
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
      overrides: patch.overrides ?? {},
      disabled: [],
    },
    provider: {
      baseUrl: "https://api.openai.com/v1",
      apiKeyEnv: patch.apiKeyEnv ?? "OPENAI_API_KEY",
      stream: true,
      headers: {},
      extraBody: {},
      toolCallIdFormat: "auto",
    },
    nativeTools: [],
    run: {},
  };
}

const RUNNERS: Record<string, Runner> = {
  script: { kind: "script", program: `${P}/.agents/tools/deploy` },
  template: { kind: "template", body: "echo hi" },
  argv: { kind: "argv", argv: [`${P}/tools/bin/deploy`], envPassthrough: ["GITHUB_TOKEN"] },
  module: { kind: "module", url: "read_file" },
};

function tool(runner: keyof typeof RUNNERS, permissions?: PermissionScope): ToolDefinition {
  const t: ToolDefinition = {
    name: "deploy",
    description: "Deploys",
    parameters: { type: "object", properties: {} },
    source: { format: "octomind", path: `${P}/.agents/tools/deploy` },
    runner: RUNNERS[runner],
    approval: "always",
    readOnly: false,
    timeoutMs: 1000,
  };
  if (permissions) t.permissions = permissions;
  return t;
}

/** A grant that holds everything except the listed `kind:value` entries (or whole kinds). */
function grantExcept(...missing: string[]): GrantQuery {
  return (kind: PermissionKind, value?: string) =>
    !missing.includes(kind) && !missing.includes(`${kind}:${value}`);
}

Deno.test("resolveScope() uses the declaration, with paths made absolute", () => {
  const r = resolveScope(
    tool("script", { read: ["./data"], write: ["out"], net: ["api.github.com:443"], env: ["GH"] }),
    config(),
    { grant: allGranted },
  );
  assert.equal(r.declared, true);
  assert.deepEqual(r.scope.read, [`${P}/data`]);
  assert.deepEqual(r.scope.write, [`${P}/out`]);
  assert.deepEqual(r.scope.net, ["api.github.com:443"]);
  assert.deepEqual(r.scope.env, [...BASE_ENV, "GH"]);
  assert.deepEqual(r.scope.run, [`${P}/.agents/tools/deploy`]);
  assert.deepEqual(r.withheld, []);
});

Deno.test("resolveScope() denies a kind the declaration leaves out", () => {
  const r = resolveScope(tool("script", { read: ["."] }), config(), { grant: allGranted });
  assert.deepEqual(r.scope.write, []);
  assert.deepEqual(r.scope.net, []);
  assert.deepEqual(r.scope.env, [...BASE_ENV]);
});

Deno.test("resolveScope() gives an undeclared tool the auto default scope", () => {
  const r = resolveScope(tool("script"), config(), { grant: allGranted });
  assert.equal(r.declared, false);
  assert.deepEqual(r.scope, {
    read: [P],
    write: [P],
    net: true,
    env: true,
    run: [`${P}/.agents/tools/deploy`],
  });
  assert.ok(r.notes.some((n) => n.includes("auto default scope")));
  const argv = resolveScope(tool("argv"), config(), { grant: allGranted });
  assert.deepEqual(argv.scope.env, [...BASE_ENV, "GITHUB_TOKEN"]);
  assert.equal(argv.scope.net, true);
});

Deno.test("resolveScope() gives an undeclared tool the strict default scope", () => {
  const strict = config({ sandbox: "strict" });
  for (const kind of ["script", "template"] as const) {
    const r = resolveScope(tool(kind), strict, { grant: allGranted });
    assert.deepEqual(r.scope.read, [P], kind);
    assert.deepEqual(r.scope.write, [], kind);
    assert.deepEqual(r.scope.net, [], kind);
    assert.deepEqual(r.scope.env, [...BASE_ENV], kind);
  }
  const argv = resolveScope(tool("argv"), strict, { grant: allGranted });
  assert.deepEqual(argv.scope.env, [...BASE_ENV, "GITHUB_TOKEN"]);
  assert.deepEqual(argv.scope.net, []);
  assert.deepEqual(argv.scope.run, [`${P}/tools/bin/deploy`]);
});

Deno.test("resolveScope() narrows by the override and the ceiling (declaration ∩ override ∩ ceiling)", () => {
  const declared = tool("script", {
    read: ["./data", "./src"],
    net: ["api.github.com:443", "example.com"],
    env: ["A", "B", "C"],
  });
  const r = resolveScope(
    declared,
    config({
      overrides: { deploy: { permissions: { env: ["A", "B"], net: ["api.github.com"] } } },
      ceiling: { env: ["B", "C"], read: [`${P}/data/sub`] },
    }),
    { grant: allGranted },
  );
  assert.deepEqual(r.scope.env, [...BASE_ENV, "B"]);
  assert.deepEqual(r.scope.net, ["api.github.com:443"]);
  assert.deepEqual(r.scope.read, [`${P}/data/sub`]);
  assert.ok(r.notes.includes("narrowed by tools.overrides in harness.jsonc"));
  assert.ok(r.notes.includes("limited by the permissions ceiling in harness.jsonc"));
});

Deno.test("resolveScope() override narrows only the kinds it names", () => {
  const r = resolveScope(
    tool("script", { read: ["./data"], write: ["./out"], net: ["api.github.com:443"] }),
    config({ overrides: { deploy: { permissions: { net: [] } } } }),
    { grant: allGranted },
  );
  assert.deepEqual(r.scope.net, []);
  assert.deepEqual(r.scope.read, [`${P}/data`]);
  assert.deepEqual(r.scope.write, [`${P}/out`]);
});

Deno.test("resolveScope() never widens: an override or ceiling cannot add entries", () => {
  const r = resolveScope(
    tool("script", { net: ["a.example"], env: ["A"] }),
    config({
      overrides: { deploy: { permissions: { net: ["a.example", "b.example"], env: ["A", "Z"] } } },
      ceiling: { net: ["a.example", "c.example"] },
    }),
    { grant: allGranted },
  );
  assert.deepEqual(r.scope.net, ["a.example"]);
  assert.deepEqual(r.scope.env, [...BASE_ENV, "A"]);
});

Deno.test("resolveScope() caps an undeclared auto tool by the ceiling", () => {
  const r = resolveScope(
    tool("script"),
    config({ ceiling: { net: ["api.github.com:443"], write: [`${P}/out`] } }),
    { grant: allGranted },
  );
  assert.deepEqual(r.scope.net, ["api.github.com:443"]);
  assert.deepEqual(r.scope.write, [`${P}/out`]);
  assert.deepEqual(r.scope.read, [P]);
  assert.equal(r.scope.env, true);
});

Deno.test("resolveScope() keeps the tool's own program while a run ceiling limits the others", () => {
  const own = `${P}/.agents/tools/deploy`;
  const declared = tool("script", { run: ["git", own, "curl"] });
  const r = resolveScope(declared, config({ ceiling: { run: ["git"] } }), { grant: allGranted });
  assert.deepEqual(r.scope.run, [own, "git"]);
  const none = resolveScope(declared, config({ ceiling: { run: [] } }), { grant: allGranted });
  assert.deepEqual(none.scope.run, [own]);
  const free = resolveScope(declared, config(), { grant: allGranted });
  assert.deepEqual(free.scope.run, [own, "git", "curl"]);
});

Deno.test("resolveScope() lets a run ceiling limit every program of a template tool", () => {
  const r = resolveScope(
    tool("template", { run: ["curl", "git"] }),
    config({ ceiling: { run: ["git"] } }),
    { grant: allGranted },
  );
  assert.deepEqual(r.scope.run, ["git"]);
});

Deno.test("resolveScope() withholds the API key from a tool that inherits the environment", () => {
  const r = resolveScope(tool("script"), config(), { grant: allGranted });
  assert.equal(r.scope.env, true);
  assert.deepEqual(r.withheld, ["OPENAI_API_KEY"]);
  assert.ok(r.notes.some((n) => n.includes("OPENAI_API_KEY is withheld")));
  const custom = resolveScope(tool("template"), config({ apiKeyEnv: "MY_KEY" }), {
    grant: allGranted,
  });
  assert.deepEqual(custom.withheld, ["MY_KEY"]);
});

Deno.test("resolveScope() removes the API key from a listed environment unless declared", () => {
  const sneaky = resolveScope(
    tool("argv"),
    config({ ceiling: {}, overrides: {} }),
    { grant: allGranted, apiKeyEnv: "HOME" },
  );
  assert.ok(Array.isArray(sneaky.scope.env) && !sneaky.scope.env.includes("HOME"));
  const declared = resolveScope(tool("script", { env: ["OPENAI_API_KEY"] }), config(), {
    grant: allGranted,
  });
  assert.ok(Array.isArray(declared.scope.env) && declared.scope.env.includes("OPENAI_API_KEY"));
  assert.deepEqual(declared.withheld, []);
});

Deno.test("resolveScope() counts agentcli envPassthrough as asking for the API key", () => {
  const asking = tool("argv");
  asking.runner = { kind: "argv", argv: ["/bin/x"], envPassthrough: ["OPENAI_API_KEY"] };
  const r = resolveScope(asking, config(), { grant: allGranted });
  assert.ok(Array.isArray(r.scope.env) && r.scope.env.includes("OPENAI_API_KEY"));
  assert.deepEqual(r.withheld, []);
  const other = resolveScope(tool("argv"), config(), { grant: allGranted });
  assert.ok(Array.isArray(other.scope.env) && !other.scope.env.includes("OPENAI_API_KEY"));
});

Deno.test("resolveScope() throws DeniedError naming the flag for a declared entry the grant lacks", () => {
  const declared = tool("script", { net: ["api.github.com:443"], read: ["./data"] });
  assert.throws(
    () => resolveScope(declared, config(), { grant: grantExcept("net:api.github.com:443") }),
    (error: unknown) => {
      assert.ok(error instanceof DeniedError);
      assert.equal(error.exitCode, ExitCode.Denied);
      assert.match(error.message, /Tool "deploy" declares net "api\.github\.com:443"/);
      assert.match(error.hint ?? "", /--allow-net=api\.github\.com:443/);
      return true;
    },
  );
  assert.throws(
    () => resolveScope(declared, config(), { grant: grantExcept(`read:${P}/data`) }),
    (error: unknown) =>
      error instanceof DeniedError && (error.hint ?? "").includes(`--allow-read=${P}/data`),
  );
});

Deno.test("resolveScope() does not blame a declared tool for base variables the grant lacks", () => {
  const r = resolveScope(tool("script", { env: ["GH"] }), config(), {
    grant: (kind, value) => kind !== "env" || value === "GH",
  });
  assert.deepEqual(r.scope.env, ["GH"]);
});

Deno.test("resolveScope() drops entries of an undeclared tool the grant lacks, with a note", () => {
  const r = resolveScope(tool("script"), config(), { grant: grantExcept("net", `write:${P}`) });
  assert.deepEqual(r.scope.net, []);
  assert.deepEqual(r.scope.write, []);
  assert.ok(r.notes.some((n) => n.includes("started without --allow-net")));
  assert.ok(r.notes.some((n) => n.includes(`dropped: harness lacks --allow-write=${P}`)));
});

Deno.test("toolProgram() names the program a tool starts", () => {
  assert.equal(toolProgram(tool("script")), `${P}/.agents/tools/deploy`);
  assert.equal(toolProgram(tool("argv")), `${P}/tools/bin/deploy`);
  assert.equal(toolProgram(tool("template")), undefined);
  assert.equal(toolProgram(tool("module")), undefined);
});

Deno.test("grantFlag() spells Deno's flag", () => {
  assert.equal(grantFlag("net"), "--allow-net");
  assert.equal(grantFlag("env", "GH"), "--allow-env=GH");
});

Deno.test("pathWithin() compares whole path segments", () => {
  assert.ok(pathWithin("/a/b", "/a"));
  assert.ok(pathWithin("/a", "/a"));
  assert.ok(pathWithin("/a/b", "/a/"));
  assert.ok(!pathWithin("/ab", "/a"));
  assert.ok(!pathWithin("/a", "/a/b"));
});

Deno.test("netWithin() matches hosts and optional ports", () => {
  assert.ok(netWithin("a.com:443", "a.com"));
  assert.ok(netWithin("a.com:443", "a.com:443"));
  assert.ok(!netWithin("a.com", "a.com:443"));
  assert.ok(!netWithin("a.com:80", "a.com:443"));
  assert.ok(!netWithin("b.a.com", "a.com"));
});
