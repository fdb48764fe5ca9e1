import assert from "node:assert/strict";
import { after, sleep } from "./_timers.ts";

Deno.test("after() calls the function once the delay has passed", async () => {
  const start = performance.now();
  await new Promise<void>((resolve) => after(20, resolve));
  assert.ok(performance.now() - start >= 15);
});

Deno.test("after() treats a negative or NaN delay as 0", async () => {
  await new Promise<void>((resolve) => after(-5, resolve));
  await new Promise<void>((resolve) => after(NaN, resolve));
});

Deno.test("a cancelled timer never fires", async () => {
  let fired = false;
  const cancel = after(10, () => fired = true);
  cancel();
  await sleep(30);
  assert.equal(fired, false);
});

Deno.test("a cancelled timer does not keep the process alive", async () => {
  const code = `import { after } from ${
    JSON.stringify(new URL("./_timers.ts", import.meta.url).href)
  };
    after(60_000, () => console.log("fired"))();`;
  const start = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "-"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = out.stdin.getWriter();
  await writer.write(new TextEncoder().encode(code));
  await writer.close();
  const { success, stdout } = await out.output();
  assert.ok(success);
  assert.equal(new TextDecoder().decode(stdout), "");
  assert.ok(performance.now() - start < 30_000);
});

Deno.test("sleep() rejects with the signal's reason when aborted", async () => {
  const ctl = new AbortController();
  const pending = sleep(60_000, ctl.signal);
  ctl.abort(new Error("stop"));
  await assert.rejects(pending, /stop/);
  await assert.rejects(sleep(10, ctl.signal), /stop/);
});
