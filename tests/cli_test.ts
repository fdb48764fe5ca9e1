/**
 * End-to-end tests of the CLI surface: help on every command, version, global
 * options, `init`, `completions`, `doctor`, and the exit codes of usage errors.
 */
import assert from "node:assert/strict";
import { buildProgram } from "../lib/cli/program.ts";
import { commandTree } from "../lib/cli/cmd_completions.ts";
import meta from "../deno.json" with { type: "json" };
import { fakeIo, runHarness } from "./_helpers/cli.ts";

async function tempDir(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness-cli-" }));
  await Deno.mkdir(`${dir}/.git`); // stops the config search here
  return dir;
}

type Tree = Parameters<typeof commandTree>[0];

/** An ANSI escape sequence: color is on. */
const ESC = new RegExp(String.fromCharCode(27) + "\\[");

function allCommandPaths(): string[][] {
  const program = buildProgram(fakeIo({ cwd: "/" }).io, () => {}) as unknown as Tree;
  return commandTree(program).map((n) => n.path);
}

Deno.test("harness --help and every command's --help exit 0 and show examples", async () => {
  const dir = await tempDir();
  const paths = allCommandPaths();
  assert.ok(paths.length >= 10, `expected every command, got ${paths.map((p) => p.join(" "))}`);
  for (const path of paths) {
    const r = await runHarness([...path, "--help"], { cwd: dir });
    assert.equal(r.code, 0, `${path.join(" ")} --help: ${r.stderr}`);
    assert.match(r.stdout, /Usage: harness/, path.join(" "));
    const isGroup = path.length === 1 && path[0] === "tools";
    if (path.length > 0 && !isGroup) {
      assert.match(r.stdout, /Examples:/, `${path.join(" ")} has examples`);
    }
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("harness --version prints the version of deno.json", async () => {
  const r = await runHarness(["--version"], { cwd: "/" });
  assert.equal(r.code, 0);
  assert.equal(r.stdout.trim(), `harness ${meta.version}`);
});

Deno.test("harness: an unknown command or option is a usage error (exit 2)", async () => {
  const a = await runHarness(["frobnicate"], { cwd: "/" });
  assert.equal(a.code, 2);
  assert.match(a.stderr, /unknown command 'frobnicate'/);
  const b = await runHarness(["tools", "list", "--bogus"], { cwd: "/" });
  assert.equal(b.code, 2);
  assert.match(b.stderr, /unknown option '--bogus'/);
});

Deno.test("harness -C names the project directory; a missing one is exit 2", async () => {
  const dir = await tempDir();
  await Deno.writeTextFile(
    `${dir}/harness.jsonc`,
    '{ "tools": { "builtins": { "read_file": true } } }',
  );
  const r = await runHarness(["-C", dir, "tools", "list", "--json"], { cwd: "/" });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).tools.map((t: { name: string }) => t.name), ["read_file"]);
  const missing = await runHarness(["-C", `${dir}/nope`, "tools", "list"], { cwd: "/" });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /is not a directory/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("harness: a broken harness.jsonc is exit 2 with file:line:column", async () => {
  const dir = await tempDir();
  await Deno.writeTextFile(`${dir}/harness.jsonc`, '{\n  "sandbox": "loose"\n}\n');
  const r = await runHarness(["tools", "list"], { cwd: dir });
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    new RegExp(`${dir}/harness.jsonc:2:14: "sandbox" must be one of "auto", "strict"`),
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("harness: color only on a terminal, never with NO_COLOR or --no-color", async () => {
  const dir = await tempDir();
  const tty = { stdout: true, stderr: true };
  const colored = await runHarness(["tools", "validate"], { cwd: dir, tty, env: { NO_COLOR: "" } });
  assert.match(colored.stdout, ESC);
  const noColorEnv = await runHarness(["tools", "validate"], {
    cwd: dir,
    tty,
    env: { NO_COLOR: "1" },
  });
  assert.doesNotMatch(noColorEnv.stdout, ESC);
  const flag = await runHarness(["--no-color", "tools", "validate"], {
    cwd: dir,
    tty,
    env: { NO_COLOR: "" },
  });
  assert.doesNotMatch(flag.stdout, ESC);
  const pipe = await runHarness(["tools", "validate"], { cwd: dir, env: { NO_COLOR: "" } });
  assert.doesNotMatch(pipe.stdout, ESC);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("harness init writes a config and one tool per format that pass tools validate", async () => {
  const dir = await tempDir();
  const init = await runHarness(["init"], { cwd: dir });
  assert.equal(init.code, 0, init.stderr);
  for (
    const f of [
      "harness.jsonc",
      ".agents/tools/git_status",
      ".nanocoder/tools/count_lines.md",
      "tools.json",
      "tools/bin/utc_now",
    ]
  ) {
    assert.ok((await Deno.stat(`${dir}/${f}`)).isFile, f);
  }
  const config = await Deno.readTextFile(`${dir}/harness.jsonc`);
  assert.match(config, /"\$schema": "\.\/\.harness\/harness\.schema\.json"/);
  assert.match(config, /^\/\/ /m, "the config is commented");
  const validate = await runHarness(["tools", "validate", "--format", "json"], { cwd: dir });
  assert.equal(validate.code, 0, validate.stdout);
  const report = JSON.parse(validate.stdout);
  assert.equal(report.summary.errors, 0);
  const list = await runHarness(["tools", "list", "--json"], { cwd: dir });
  const formats = new Set(JSON.parse(list.stdout).tools.map((t: { format: string }) => t.format));
  for (const f of ["octomind", "nanocoder", "manifest"]) assert.ok(formats.has(f), f);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("harness init never overwrites without --force", async () => {
  const dir = await tempDir();
  await Deno.writeTextFile(`${dir}/tools.json`, '{"tools": []}');
  const refused = await runHarness(["init"], { cwd: dir });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /Not overwriting existing files: "tools.json"/);
  assert.match(refused.stderr, /--force/);
  assert.equal(await Deno.readTextFile(`${dir}/tools.json`), '{"tools": []}');
  assert.rejects(() => Deno.stat(`${dir}/harness.jsonc`));
  const forced = await runHarness(["init", "--force"], { cwd: dir });
  assert.equal(forced.code, 0);
  assert.match(await Deno.readTextFile(`${dir}/tools.json`), /utc_now/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("harness completions bash|zsh|fish print scripts naming every command", async () => {
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await runHarness(["completions", shell], { cwd: "/" });
    assert.equal(r.code, 0, r.stderr);
    for (
      const word of ["tools", "validate", "run", "chat", "doctor", "init", "--format", "--approval"]
    ) {
      const spelled = shell === "fish" ? word.replace(/^--/, "-l ") : word;
      assert.ok(r.stdout.includes(spelled), `${shell} completion mentions ${spelled}`);
    }
    const checker = shell === "fish" ? undefined : shell;
    const path = checker ? `/bin/${checker}` : undefined;
    if (path && (await Deno.stat(path).then(() => true, () => false))) {
      const file = await Deno.makeTempFile();
      await Deno.writeTextFile(file, r.stdout);
      const out = await new Deno.Command(path, { args: ["-n", file], stderr: "piped" }).output();
      assert.equal(out.code, 0, `${shell} -n: ${new TextDecoder().decode(out.stderr)}`);
      await Deno.remove(file);
    }
  }
  const bad = await runHarness(["completions", "tcsh"], { cwd: "/" });
  assert.equal(bad.code, 2);
});

Deno.test("harness completions bash completes subcommands and option values", async () => {
  const r = await runHarness(["completions", "bash"], { cwd: "/" });
  const file = await Deno.makeTempFile();
  await Deno.writeTextFile(file, r.stdout);
  const complete = async (words: string[]) => {
    const script = `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); ` +
      `COMP_CWORD=${words.length - 1}; _harness; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const out = await new Deno.Command("bash", { args: ["-c", script], stdout: "piped" }).output();
    return new TextDecoder().decode(out.stdout).trim().split("\n");
  };
  assert.ok((await complete(["harness", "to"])).includes("tools"));
  assert.ok((await complete(["harness", "tools", "va"])).includes("validate"));
  assert.deepEqual(await complete(["harness", "tools", "validate", "--format", "sa"]), ["sarif"]);
  await Deno.remove(file);
});

Deno.test("harness doctor reports the grant and the kernel layer", async () => {
  const r = await runHarness(["doctor", "--json"], { cwd: "/" });
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.version, meta.version);
  for (const k of ["read", "write", "net", "env", "run", "ffi"]) assert.ok(k in report.grant, k);
  assert.equal(typeof report.landlockAbi, "number");
  assert.ok(Array.isArray(report.meaning) && report.meaning.length >= 2);
  const text = await runHarness(["doctor"], { cwd: "/" });
  assert.match(text.stdout, /Landlock ABI/);
  assert.match(text.stdout, /What that means/);
});

Deno.test("harness tools show prints the scope, who enforces it, and the source", async () => {
  const demo = new URL("../examples/demo", import.meta.url).pathname;
  const text = await runHarness(["tools", "show", "find_todos"], { cwd: demo });
  assert.equal(text.code, 0, text.stderr);
  for (
    const part of [
      "Function (as sent to the model)",
      "Effective scope",
      "Enforcement on this machine",
      "Source (front matter and template)",
      "grep -rn {{# pattern }}",
    ]
  ) {
    assert.ok(text.stdout.includes(part), part);
  }
  const json = await runHarness(["tools", "show", "file_stats", "--json"], { cwd: demo });
  assert.equal(json.code, 0, json.stderr);
  const shown = JSON.parse(json.stdout);
  assert.equal(shown.format, "octomind");
  assert.deepEqual(shown.permissions, { read: ["."] });
  assert.ok(Array.isArray(shown.scope.layers) && shown.scope.layers.length > 0);
  assert.match(shown.source.text, /# @param \*path string/);
  const unknown = await runHarness(["tools", "show", "file_stat"], { cwd: demo });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /did you mean "file_stats"/);
});

Deno.test("harness tools schema prints the exact tools array, native tools last and verbatim", async () => {
  const dir = await tempDir();
  const native = { type: "openrouter:web_search", parameters: { max_results: 3 } };
  await Deno.writeTextFile(
    `${dir}/harness.jsonc`,
    JSON.stringify({
      tools: { personal: false, builtins: { stat_file: true } },
      nativeTools: [native],
    }),
  );
  await Deno.writeTextFile(
    `${dir}/tools.json`,
    JSON.stringify({ tools: [{ name: "bare", command: ["/bin/true"] }] }),
  );
  const r = await runHarness(["tools", "schema"], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const tools = JSON.parse(r.stdout);
  assert.deepEqual(tools.map((t: { type: string }) => t.type), [
    "function",
    "function",
    "openrouter:web_search",
  ]);
  assert.equal(tools[0].function.name, "stat_file");
  assert.deepEqual(
    tools[1],
    { type: "function", function: { name: "bare" } },
    "agentcli omits empty fields",
  );
  assert.deepEqual(tools[2], native);
  await Deno.remove(dir, { recursive: true });
});
