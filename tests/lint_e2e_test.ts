/**
 * `harness tools validate` end to end: the real CLI, in-process, over every broken
 * fixture in `tests/fixtures/broken/{octomind,nanocoder,manifest,cross}/`, plus the
 * output formats and exit codes.
 *
 * Each folder has an `EXPECTED.json` mapping a path (relative to the folder) to the
 * `{code, line}` findings it must produce (`line: null`: a finding without a line).
 * Every top-level entry of a folder is one fixture: a file, or a small project
 * directory whose files are keyed as `dir/…`. Git does not keep file modes, so the
 * fixtures are copied to a temporary directory and made executable there, except
 * files whose name contains `not-executable`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { runCli } from "../lib/cli/main.ts";
import type { Io } from "../lib/cli/io.ts";
import { ALL_CODES } from "../lib/tools/codes.ts";

const BROKEN = new URL("./fixtures/broken/", import.meta.url);
const FOLDERS = ["octomind", "nanocoder", "manifest", "cross"];
const SEVERITY = new Map(ALL_CODES.map((c) => [c.code, c.severity]));

interface Expected {
  code: string;
  line: number | null;
}

interface JsonReport {
  version: number;
  summary: { tools: number; errors: number; warnings: number };
  diagnostics: {
    severity: string;
    code: string;
    message: string;
    file: string;
    line: number | null;
    column: number | null;
    tool: string | null;
  }[];
}

/** A fake outside world: captured output, a small environment, no terminal. */
function fakeIo(cwd: string, env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const vars: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env };
  const io: Io = {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    getEnv: (name) => vars[name],
    envObject: () => ({ ...vars }),
    cwd: () => cwd,
    isTerminal: { stdin: false, stdout: false, stderr: false },
    readStdin: () => Promise.resolve(""),
    readLine: () => Promise.resolve(null),
  };
  return { io, out: () => out, err: () => err };
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const src = `${from}/${entry.name}`;
    const dst = `${to}/${entry.name}`;
    if (entry.isDirectory) await copyTree(src, dst);
    else if (entry.isFile) {
      await Deno.copyFile(src, dst);
      await Deno.chmod(dst, entry.name.includes("not-executable") ? 0o644 : 0o755);
    }
  }
}

/** Copies a fixture folder into a fresh temporary git root; returns the copy's path. */
async function stage(folder: string): Promise<{ root: string; dir: string }> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_lint_e2e_" }));
  await Deno.mkdir(`${root}/.git`); // stops the harness.jsonc search here
  const dir = `${root}/${folder}`;
  await copyTree(new URL(folder, BROKEN).pathname, dir);
  return { root, dir };
}

async function validate(
  dir: string,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const fake = fakeIo(dir);
  const code = await runCli(["-C", dir, "tools", "validate", ...args], fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

async function exists(url: URL): Promise<boolean> {
  try {
    await Deno.stat(url);
    return true;
  } catch {
    return false;
  }
}

async function fixtureFolders(): Promise<string[]> {
  const out: string[] = [];
  for (const f of FOLDERS) if (await exists(new URL(`${f}/EXPECTED.json`, BROKEN))) out.push(f);
  return out;
}

Deno.test("runCli() tools validate covers at least 40 broken fixtures", async () => {
  let total = 0;
  for (const folder of await fixtureFolders()) {
    const expected = JSON.parse(
      await Deno.readTextFile(new URL(`${folder}/EXPECTED.json`, BROKEN)),
    ) as Record<string, Expected[]>;
    total += new Set(Object.keys(expected).map((k) => k.split("/")[0])).size;
  }
  assert.ok(total >= 40, `only ${total} fixtures`);
});

for (const folder of FOLDERS) {
  Deno.test({
    name: `runCli() tools validate reports every expected finding of broken/${folder}`,
    ignore: !(await exists(new URL(`${folder}/EXPECTED.json`, BROKEN))),
    fn: async (t) => {
      const expected = JSON.parse(
        await Deno.readTextFile(new URL(`${folder}/EXPECTED.json`, BROKEN)),
      ) as Record<string, Expected[]>;
      const { root, dir } = await stage(folder);
      try {
        const entries: string[] = [];
        for await (const e of Deno.readDir(dir)) {
          if (e.name !== "EXPECTED.json") entries.push(e.name);
        }
        entries.sort();
        const keys = Object.keys(expected);
        for (const entry of entries) {
          assert.ok(
            keys.some((k) => k === entry || k.startsWith(`${entry}/`)),
            `fixture "${folder}/${entry}" has no entry in EXPECTED.json`,
          );
        }
        for (const key of keys) {
          assert.ok(entries.includes(key.split("/")[0]), `EXPECTED.json names missing "${key}"`);
        }
        for (const entry of entries) {
          await t.step(entry, async () => {
            // `--` so a fixture named "-leading-dash" is a path, not an option.
            const { code, out, err } = await validate(dir, ["--format", "json", "--", entry]);
            assert.doesNotMatch(err, /internal error/, err);
            assert.ok(code === 0 || code === 1, `exit ${code}: ${err}`);
            const report = JSON.parse(out) as JsonReport;
            assert.equal(report.version, 1);
            const mine = keys.filter((k) => k === entry || k.startsWith(`${entry}/`));
            const wanted = mine.flatMap((k) =>
              expected[k].map((e) => ({ ...e, file: `${dir}/${k}` }))
            );
            const seen = report.diagnostics.map((d) => `${d.file}|${d.code}|${d.line}`);
            for (const w of wanted) {
              assert.ok(
                seen.includes(`${w.file}|${w.code}|${w.line}`),
                `expected ${w.code} at line ${w.line} of ${w.file.slice(dir.length + 1)}; got:\n` +
                  report.diagnostics.map((d) =>
                    `  ${d.file.slice(dir.length + 1)}:${d.line} ${d.severity} ${d.code}`
                  ).join("\n"),
              );
              assert.ok(SEVERITY.has(w.code), `${w.code} is in the code catalogue`);
            }
            const errorExpected = wanted.some((w) => SEVERITY.get(w.code) === "error");
            if (errorExpected) assert.equal(code, 1, "an error fails the run");
            if (wanted.length === 0) {
              assert.equal(report.summary.errors, 0, out);
              assert.equal(code, 0);
            }
            assert.equal(
              report.summary.errors,
              report.diagnostics.filter((d) => d.severity === "error").length,
            );
          });
        }
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    },
  });
}

Deno.test("runCli() tools validate --format text prints file:line:col: severity CODE: message", async () => {
  const { root, dir } = await stage("cross");
  try {
    const { code, out } = await validate(dir, ["template-undeclared.md", "--format", "text"]);
    assert.equal(code, 1);
    const lines = out.trimEnd().split("\n");
    assert.match(
      lines[0],
      /^template-undeclared\.md:9:16: error template\/undeclared-name: Placeholder "pth" /,
    );
    assert.match(lines.at(-1)!, /^1 tool checked: 1 error, 0 warnings$/);
    assert.ok(!out.includes("\x1b["), "no color when not a terminal");
    const plain = await validate(dir, ["valid-tool.md"]);
    assert.equal(plain.code, 0);
    assert.equal(plain.out, "1 tool checked: 0 errors, 0 warnings\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("runCli() tools validate --format github prints workflow commands", async () => {
  const { root, dir } = await stage("cross");
  try {
    const { code, out } = await validate(dir, [
      "schema-unknown-keyword.json",
      "--format",
      "github",
    ]);
    assert.equal(code, 0);
    assert.match(
      out,
      /^::warning file=schema-unknown-keyword\.json,line=3,title=schema\/unknown-keyword::Parameters schema of tool "search" has the unknown keyword "minLenght"/m,
    );
    const errors = await validate(dir, ["command-missing.json", "--format", "github"]);
    assert.equal(errors.code, 1);
    assert.match(
      errors.out,
      /^::error file=command-missing\.json,line=3,title=manifest\/command-not-found::/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("runCli() tools validate --format sarif writes SARIF 2.1.0", async () => {
  const { root, dir } = await stage("cross");
  try {
    const { code, out } = await validate(dir, ["allow-malformed", "--format", "sarif"]);
    assert.equal(code, 1);
    const sarif = JSON.parse(out);
    assert.equal(sarif.version, "2.1.0");
    const run = sarif.runs[0];
    assert.equal(run.tool.driver.name, "harness");
    const rule = run.tool.driver.rules.find((r: { id: string }) =>
      r.id === "octomind/invalid-permission"
    );
    assert.ok(rule, "the rule of each reported code is listed");
    assert.ok(rule.shortDescription.text.length > 0);
    const result = run.results.find((r: { ruleId: string }) =>
      r.ruleId === "octomind/invalid-permission"
    );
    assert.equal(result.level, "error");
    assert.equal(result.locations[0].physicalLocation.artifactLocation.uri, "allow-malformed");
    assert.equal(result.locations[0].physicalLocation.region.startLine, 4);
    assert.equal(run.tool.driver.rules[result.ruleIndex].id, result.ruleId);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("runCli() tools validate --strict fails on warnings", async () => {
  const { root, dir } = await stage("cross");
  try {
    const relaxed = await validate(dir, ["schema-unknown-keyword.json", "--format", "json"]);
    assert.equal(relaxed.code, 0);
    assert.equal((JSON.parse(relaxed.out) as JsonReport).summary.warnings, 1);
    const strict = await validate(dir, ["schema-unknown-keyword.json", "--strict"]);
    assert.equal(strict.code, 1);
    const clean = await validate(dir, ["valid-tool.md", "--strict"]);
    assert.equal(clean.code, 0);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("runCli() tools validate exits 2 for an unknown --format", async () => {
  const { root, dir } = await stage("cross");
  try {
    const { code, out, err } = await validate(dir, ["valid-tool.md", "--format", "xml"]);
    assert.equal(code, 2);
    assert.equal(out, "");
    assert.match(err, /argument 'xml' is invalid\. Allowed choices are text, json, github, sarif/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("runCli() tools validate exits 2 with file:line:column for a bad harness.jsonc", async () => {
  const { root, dir } = await stage("cross");
  try {
    await Deno.writeTextFile(`${root}/harness.jsonc`, '{\n  "sandbx": "strict"\n}\n');
    const { code, out, err } = await validate(dir, ["valid-tool.md"]);
    assert.equal(code, 2);
    assert.equal(out, "");
    assert.match(
      err,
      new RegExp(
        `^error: ${root}/harness\\.jsonc:2:3: unknown key "sandbx" in the config: did you mean "sandbox"\\?`,
      ),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
