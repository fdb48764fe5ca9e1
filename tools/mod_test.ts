import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { BUILTIN_TOOLS } from "./mod.ts";

Deno.test("BUILTIN_TOOLS lists every tool under its own name", () => {
  assert.deepEqual(Object.keys(BUILTIN_TOOLS), [
    "read_file",
    "read_file_range",
    "list_dir",
    "grep",
    "stat_file",
    "count_stats",
    "write_file",
    "edit",
    "shell",
    "web_fetch",
  ]);
  for (const [name, tool] of Object.entries(BUILTIN_TOOLS)) assert.equal(tool.name, name);
});

Deno.test("BUILTIN_TOOLS schemas compile in strict mode and require only declared properties", () => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  for (const tool of Object.values(BUILTIN_TOOLS)) {
    ajv.compile(tool.parameters);
    ajv.compile(tool.optionsSchema);
    assert.equal(tool.parameters.additionalProperties, false, tool.name);
    for (const key of tool.parameters.required) {
      assert.ok(key in tool.parameters.properties, `${tool.name}.${key}`);
    }
  }
});

Deno.test("BUILTIN_TOOLS carry the documented default policy", () => {
  const policy = Object.fromEntries(
    Object.values(BUILTIN_TOOLS).map((t) => [t.name, `${t.approval}/${t.readOnly}`]),
  );
  assert.deepEqual(policy, {
    read_file: "never/true",
    read_file_range: "never/true",
    list_dir: "never/true",
    grep: "never/true",
    stat_file: "never/true",
    count_stats: "never/true",
    write_file: "destructive/false",
    edit: "destructive/false",
    shell: "always/false",
    web_fetch: "always/false",
  });
});

Deno.test("BUILTIN_TOOLS permissions stay inside the project and the declared hosts", () => {
  const ctx = { projectDir: "/proj", options: {} };
  for (const tool of Object.values(BUILTIN_TOOLS)) {
    const p = tool.permissions(ctx);
    for (const path of [...(p.read ?? []), ...(p.write ?? [])]) assert.equal(path, "/proj");
    assert.deepEqual(p.net ?? [], [], tool.name);
  }
  assert.deepEqual(
    BUILTIN_TOOLS.web_fetch.permissions({ projectDir: "/p", options: { hosts: ["a:1"] } }),
    {
      net: ["a:1"],
    },
  );
});

Deno.test("BUILTIN_TOOLS options are checked by their schemas", () => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  const shell = ajv.compile(BUILTIN_TOOLS.shell.optionsSchema);
  assert.equal(shell({ allowedCommands: ["git"], timeoutMs: 1000 }), true);
  assert.equal(shell({ allowedCommand: ["git"] }), false);
  const web = ajv.compile(BUILTIN_TOOLS.web_fetch.optionsSchema);
  assert.equal(web({ hosts: ["api.github.com:443"] }), true);
  assert.equal(web({ hosts: "api.github.com" }), false);
  assert.equal(ajv.compile(BUILTIN_TOOLS.read_file.optionsSchema)({ x: 1 }), false);
});
