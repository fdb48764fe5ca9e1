import assert from "node:assert/strict";
import { parseRunFast, type RunInvocation } from "./fast_argv.ts";
import { buildProgram } from "./program.ts";
import { fakeIo } from "../../tests/_helpers/cli.ts";

/** What commander makes of `args`: the invocation `run` gets, or the error it throws. */
async function viaCommander(args: string[]): Promise<RunInvocation | { error: string }> {
  let got: RunInvocation | undefined;
  const program = buildProgram(fakeIo({ cwd: "/" }).io, () => {}, (inv) => {
    got = inv;
    return Promise.resolve();
  });
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (error) {
    return { error: String(error) };
  }
  return got ?? { error: "run did not start" };
}

Deno.test("parseRunFast takes the plain forms of a run command line", () => {
  assert.deepEqual(parseRunFast(["run", "go"]), {
    globals: { color: true },
    prompt: "go",
    opts: {},
  });
  assert.deepEqual(
    parseRunFast([
      "-C",
      "proj",
      "run",
      "--model=m",
      "--base-url",
      "http://h/v1",
      "--approval",
      "yolo",
      "--json",
      "-",
      "--no-color",
    ]),
    {
      globals: { color: false, cwd: "proj" },
      prompt: "-",
      opts: { model: "m", baseUrl: "http://h/v1", approval: "yolo", json: true },
    },
  );
  assert.deepEqual(parseRunFast(["run"]), {
    globals: { color: true },
    prompt: undefined,
    opts: {},
  });
});

Deno.test("parseRunFast leaves help, errors and unusual forms to commander", () => {
  for (
    const args of [
      [],
      ["run", "--help"],
      ["run", "-h"],
      ["--version"],
      ["tools", "list"],
      ["chat"],
      ["run", "a", "b"], // a second prompt: commander's error
      ["run", "--approval", "always"], // not a choice: commander's error
      ["run", "--json=yes"],
      ["run", "--model"], // missing value
      ["run", "--system", "-C"], // a value that looks like an option
      ["run", "--", "-x"],
      ["run", "--bogus", "go"],
      ["--model", "m", "run", "go"], // a run option before the command
      ["-Cproj", "run"],
    ]
  ) {
    assert.equal(parseRunFast(args), undefined, JSON.stringify(args));
  }
});

Deno.test("parseRunFast and commander agree on every command line the fast path takes", async () => {
  const tokens = [
    "run",
    "run",
    "go",
    "-",
    "",
    "fix the test",
    "tools",
    "-C",
    "/tmp",
    "--cwd",
    "--cwd=/x",
    "--config",
    "c.jsonc",
    "--config=",
    "--no-color",
    "--model",
    "m",
    "--model=m=2",
    "--base-url",
    "http://127.0.0.1:1/v1",
    "--api-key-env",
    "KEY",
    "--system",
    "@sys.md",
    "--max-turns",
    "3",
    "--timeout",
    "90s",
    "--approval",
    "yolo",
    "never-ask",
    "bogus",
    "--approval=plan",
    "--on-denied",
    "continue",
    "--transcript",
    "t.jsonl",
    "--record",
    "--replay",
    "r.jsonl",
    "--json",
    "--json=1",
    "--output-last-message",
    "out.txt",
    "-h",
    "--",
    "-x",
  ];
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  let taken = 0;
  for (let i = 0; i < 4000; i++) {
    const args = Array.from({ length: random(8) }, () => tokens[random(tokens.length)]);
    if (i % 2 === 0 && !args.includes("run")) args.splice(random(args.length + 1), 0, "run");
    const fast = parseRunFast(args);
    if (fast === undefined) continue;
    taken++;
    assert.deepEqual(fast, await viaCommander(args), JSON.stringify(args));
  }
  assert.ok(taken > 300, `only ${taken} random command lines took the fast path`);
});
