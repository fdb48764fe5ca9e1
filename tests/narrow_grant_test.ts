/**
 * harness under a narrower Deno grant than its own: a command or tool that needs more
 * fails with a message naming the missing permission and the flag, never a stack trace.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url).pathname;
const DEMO = `${ROOT}examples/demo`;

async function harness(flags: string[], args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, "--no-prompt", `${ROOT}main.ts`, "-C", DEMO, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("harness under a grant without --allow-run refuses a script tool with the flag to add", async () => {
  const r = await harness(["--allow-read", "--allow-env"], [
    "tools",
    "call",
    "file_stats",
    "--args",
    '{"path":"notes.txt"}',
  ]);
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /lacks the "run" permission/);
  assert.match(r.stderr, /--allow-run=\S*file_stats/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
});

Deno.test("harness under a narrow read grant still runs a built-in inside it", async () => {
  const r = await harness([`--allow-read=${ROOT}`, "--allow-env"], [
    "tools",
    "call",
    "read_file",
    "--args",
    '{"path":"notes.txt"}',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /TODO: tag the release/);
});

Deno.test("harness without --allow-env names the flag instead of crashing", async () => {
  const r = await harness(["--allow-read"], ["tools", "list"]);
  assert.equal(r.code, 5);
  assert.match(r.stderr, /harness was started without a permission this command needs/);
  assert.match(r.stderr, /--allow-env/);
  assert.doesNotMatch(r.stderr, /internal error/);
});
