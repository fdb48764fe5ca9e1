/**
 * `harness chat` on a (fake) terminal: history across messages, /tools, /clear, /exit,
 * and the interactive approval prompt.
 */
import assert from "node:assert/strict";
import { runHarness, withFakeServer } from "./_helpers/cli.ts";
import { sseResponse, sseText, sseToolCalls } from "./_helpers/sse.ts";

type Body = { messages: { role: string; content?: unknown }[] };

async function project(config: unknown): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness-chat-" }));
  await Deno.mkdir(`${dir}/.git`);
  await Deno.writeTextFile(`${dir}/harness.jsonc`, JSON.stringify(config));
  await Deno.writeTextFile(`${dir}/notes.txt`, "hello\n");
  return dir;
}

const tty = { stdin: true, stdout: true, stderr: true };

Deno.test("harness chat keeps history across messages and /clear resets it", async () => {
  const dir = await project({ tools: { personal: false, builtins: { read_file: true } } });
  await withFakeServer([
    () => sseResponse(sseText("a", "First answer.")),
    () => sseResponse(sseText("b", "Second answer.")),
    () => sseResponse(sseText("c", "After clear.")),
  ], async (fake) => {
    const r = await runHarness([
      "chat",
      "--base-url",
      fake.url,
      "--model",
      "m",
      "--system",
      "Be brief.",
    ], {
      cwd: dir,
      tty,
      stdin: "/tools\nhello\nand again\n/clear\nfresh start\n/bogus\n/exit\n",
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /First answer\.[\s\S]*Second answer\.[\s\S]*After clear\./);
    assert.match(r.stderr, /read_file/, "/tools lists the tools");
    assert.match(r.stderr, /history cleared/);
    assert.match(r.stderr, /unknown command.*\/bogus/);
    const bodies = fake.requests.map((q) => q.body as Body);
    assert.deepEqual(bodies[0].messages.map((m) => m.role), ["system", "user"]);
    assert.deepEqual(bodies[1].messages.map((m) => m.role), [
      "system",
      "user",
      "assistant",
      "user",
    ]);
    assert.equal(bodies[1].messages[2].content, "First answer.");
    assert.deepEqual(bodies[2].messages.map((m) => m.role), ["system", "user"]);
    assert.equal(bodies[2].messages[1].content, "fresh start");
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("harness chat asks before a tool that needs approval; 'always' is remembered", async () => {
  const dir = await project({ tools: { personal: false, builtins: { write_file: true } } });
  await withFakeServer([
    () =>
      sseResponse(
        sseToolCalls("a", [{
          id: "c1",
          name: "write_file",
          args: { path: "a.txt", content: "A" },
        }]),
      ),
    () =>
      sseResponse(
        sseToolCalls("b", [{
          id: "c2",
          name: "write_file",
          args: { path: "b.txt", content: "B" },
        }]),
      ),
    () => sseResponse(sseText("c", "Wrote both.")),
    () =>
      sseResponse(
        sseToolCalls("d", [{
          id: "c3",
          name: "write_file",
          args: { path: "c.txt", content: "C" },
        }]),
      ),
    () => sseResponse(sseText("e", "Wrote c.")),
  ], async (fake) => {
    const r = await runHarness(["chat", "--base-url", fake.url, "--model", "m"], {
      cwd: dir,
      tty,
      // first message: answer "n" then "a" (always); second message: no prompt expected
      stdin: "write a\nn\na\nwrite c\n/exit\n",
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Allow write_file/);
    assert.equal(
      (r.stderr.match(/Allow write_file/g) ?? []).length,
      2,
      "asked twice, then remembered",
    );
    await assert.rejects(() => Deno.stat(`${dir}/a.txt`), "declined: not written");
    assert.equal(await Deno.readTextFile(`${dir}/b.txt`), "B");
    assert.equal(await Deno.readTextFile(`${dir}/c.txt`), "C");
    const denied = (fake.requests[1].body as Body).messages.at(-1)!;
    assert.equal(denied.role, "tool");
    assert.match(String(denied.content), /declined/);
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("harness chat without a terminal is a usage error pointing at harness run", async () => {
  const r = await runHarness(["chat", "--model", "m"], { cwd: "/tmp" });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /needs a terminal/);
  assert.match(r.stderr, /harness run/);
});
