/**
 * The tool examples of the README are real: each loads and lints without errors.
 */
import assert from "node:assert/strict";
import { runHarness } from "./_helpers/cli.ts";

const README = await Deno.readTextFile(new URL("../README.md", import.meta.url));

/** The first fenced code block after a heading that starts with `heading`. */
function exampleAfter(heading: string): string {
  const at = README.indexOf(`\n### ${heading}`);
  assert.ok(at >= 0, `README has a "### ${heading}" section`);
  const block = /```[a-z]*\n([\s\S]*?)```/.exec(README.slice(at));
  assert.ok(block, `a code block follows "### ${heading}"`);
  return block[1];
}

Deno.test("README: the example of each format passes harness tools validate", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness-readme-" }));
  await Deno.mkdir(`${dir}/.git`);
  await Deno.mkdir(`${dir}/.agents/tools`, { recursive: true });
  await Deno.mkdir(`${dir}/.nanocoder/tools`, { recursive: true });
  await Deno.mkdir(`${dir}/tools/bin`, { recursive: true });
  await Deno.writeTextFile(`${dir}/.agents/tools/echo`, exampleAfter("Octomind"));
  await Deno.chmod(`${dir}/.agents/tools/echo`, 0o755);
  await Deno.writeTextFile(`${dir}/.nanocoder/tools/k8s-pods.md`, exampleAfter("Nanocoder"));
  await Deno.writeTextFile(`${dir}/tools.json`, exampleAfter("agentcli"));
  await Deno.writeTextFile(`${dir}/tools/bin/get_time`, "#!/bin/sh\ndate\n");
  await Deno.chmod(`${dir}/tools/bin/get_time`, 0o755);
  await Deno.writeTextFile(
    `${dir}/harness.jsonc`,
    '{ "tools": { "personal": false, "builtins": {} } }',
  );
  const r = await runHarness(["tools", "validate", "--format", "json"], { cwd: dir });
  const report = JSON.parse(r.stdout);
  assert.deepEqual(
    report.diagnostics.filter((d: { severity: string }) => d.severity !== "info"),
    [],
  );
  assert.equal(report.summary.tools, 3);
  assert.equal(r.code, 0);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("README: the harness.jsonc example is a valid config", async () => {
  const { parseConfigText } = await import("../lib/config/load.ts");
  const at = README.indexOf("\n## Configuration");
  const block = /```jsonc\n([\s\S]*?)```/.exec(README.slice(at));
  assert.ok(block, "a jsonc block follows the Configuration heading");
  const config = parseConfigText("README.md", block[1]);
  assert.equal(config.sandbox, "strict");
});
