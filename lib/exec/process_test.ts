import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { type ProcessSpec, readShebang, runProcess, SPAWN_RETRY_MS } from "./process.ts";
import {
  findProcesses,
  killMarked,
  uniqueMarker,
  writeScript,
} from "../../tests/_helpers/procs.ts";

const PATH = "/usr/local/bin:/usr/bin:/bin";

function spec(script: string, extra: Partial<ProcessSpec> = {}): ProcessSpec {
  return {
    program: "bash",
    args: ["-c", script],
    cwd: "/",
    env: { PATH },
    stdin: "null",
    timeoutMs: 10_000,
    maxOutputBytes: 1 << 20,
    ...extra,
  };
}

Deno.test("runProcess() captures stdout, stderr and the exit code", async () => {
  const r = await runProcess(spec("echo out; echo err >&2; exit 3"));
  assertEquals([r.stdout, r.stderr, r.code, r.signal], ["out\n", "err\n", 3, null]);
  assertEquals([r.timedOut, r.aborted, r.truncated, r.spawnError], [
    false,
    false,
    false,
    undefined,
  ]);
});

Deno.test("runProcess() gives the child exactly the given environment", async () => {
  const r = await runProcess(spec("env | sort", { env: { PATH, ONLY: "1" } }));
  const names = r.stdout.trim().split("\n").map((l) => l.split("=")[0]).filter((n) => n !== "_");
  assertEquals(names.filter((n) => !["PWD", "SHLVL"].includes(n)), ["ONLY", "PATH"]);
});

Deno.test("runProcess() runs in the given directory", async () => {
  const dir = await Deno.makeTempDir();
  const r = await runProcess(spec("pwd", { cwd: dir }));
  assertEquals(r.stdout, `${await Deno.realPath(dir)}\n`);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("runProcess() writes stdin and closes it", async () => {
  const r = await runProcess(spec("wc -c", { stdin: new TextEncoder().encode("12345") }));
  assertEquals(r.stdout.trim(), "5");
});

Deno.test("runProcess() ignores EPIPE from a child that exits without reading", async () => {
  const r = await runProcess(spec("exit 0", { stdin: new Uint8Array(256 * 1024) }));
  assertEquals([r.code, r.spawnError], [0, undefined]);
});

Deno.test("runProcess() kills the process group at the timeout", async () => {
  const marker = uniqueMarker("timeout");
  const r = await runProcess(spec(`sleep 30 & bash -c 'sleep 31; : ${marker}'; wait`, {
    timeoutMs: 150,
  }));
  assertEquals([r.timedOut, r.code, r.signal], [true, null, "SIGTERM"]);
  ok(r.durationMs < 2000, `took ${r.durationMs} ms`);
  assertEquals(findProcesses(marker), []);
});

Deno.test("runProcess() escalates to SIGKILL when SIGTERM is ignored", async () => {
  const r = await runProcess(
    spec("trap '' TERM; while :; do sleep 0.05; done", { timeoutMs: 100 }),
  );
  assertEquals([r.timedOut, r.signal], [true, "SIGKILL"]);
});

Deno.test("runProcess() stops the process when the call is aborted", async () => {
  const ac = new AbortController();
  let pid = 0;
  const r = await runProcess(spec("sleep 30"), {
    signal: ac.signal,
    onSpawn: (p) => {
      pid = p;
      ac.abort();
    },
  });
  ok(pid > 0);
  assertEquals([r.aborted, r.timedOut, r.signal], [true, false, "SIGTERM"]);
});

Deno.test("runProcess() does not start a call that is already aborted", async () => {
  const ac = new AbortController();
  ac.abort();
  let spawned = false;
  const r = await runProcess(spec("true"), { signal: ac.signal, onSpawn: () => spawned = true });
  assertEquals([r.aborted, spawned, r.code], [true, false, null]);
});

Deno.test("runProcess() falls back to killing the child and says so", async () => {
  const r = await runProcess(spec("exec sleep 30", { timeoutMs: 100 }), {
    killGroup: () => false,
  });
  assertEquals([r.timedOut, r.signal], [true, "SIGTERM"]);
  ok(r.notes.some((n) => n.includes("could not be killed")), r.notes.join());
});

Deno.test("runProcess() does not hang on an escaped grandchild holding the pipes", async () => {
  const marker = uniqueMarker("escaped");
  try {
    const flag = await Deno.makeTempFile();
    await Deno.remove(flag);
    const r = await runProcess(spec(
      `setsid bash -c 'touch ${flag}; sleep 30; : ${marker}' &
       until [ -e ${flag} ]; do sleep 0.01; done; echo hi`,
    ));
    await Deno.remove(flag);
    assertEquals([r.stdout, r.code], ["hi\n", 0]);
    assertEquals(findProcesses(marker).length, 1, "the escaped process should still run");
    ok(r.durationMs < 3000, `took ${r.durationMs} ms`);
  } finally {
    killMarked(marker);
  }
});

Deno.test("runProcess() truncates output in the middle and marks it", async () => {
  const r = await runProcess(
    spec("printf 'HEAD'; head -c 100000 /dev/zero | tr '\\0' x; printf 'TAIL'", {
      maxOutputBytes: 1000,
    }),
  );
  ok(r.truncated);
  ok(r.stdout.startsWith("HEAD"));
  ok(r.stdout.endsWith("TAIL"));
  ok(r.stdout.includes("[… harness: 99008 bytes of output omitted …]"), r.stdout.slice(400, 600));
});

Deno.test("runProcess() decodes invalid UTF-8 lossily", async () => {
  const r = await runProcess(spec("printf 'a\\377b'"));
  assertEquals(r.stdout, "a\uFFFDb");
});

Deno.test("runProcess() reports a missing program", async () => {
  const r = await runProcess(spec("", { program: "no-such-program-xyz", args: [] }));
  assertEquals(r.spawnError?.kind, "not-found");
  ok(r.spawnError?.message.includes('"no-such-program-xyz"'));
});

Deno.test("runProcess() reports a file that is not executable", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/tool`, "echo hi\n", { mode: 0o644 });
  const r = await runProcess(spec("", { program: `${dir}/tool`, args: [] }));
  assertEquals(r.spawnError?.kind, "permission-denied");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("runProcess() names a missing #! interpreter", async () => {
  const dir = await Deno.makeTempDir();
  const tool = writeScript(dir, "tool", "#!/nonexistent/python\nprint(1)\n");
  const r = await runProcess(spec("", { program: tool, args: [] }));
  assertEquals(r.spawnError?.kind, "not-found");
  ok(r.spawnError?.message.includes('interpreter "/nonexistent/python"'), r.spawnError?.message);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("runProcess() retries a spawn while the program is still open for writing", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/busy`;
  const file = await Deno.open(path, { write: true, create: true, mode: 0o755 });
  await file.write(new TextEncoder().encode("#!/bin/sh\necho done\n"));
  const closer = setTimeout(() => file.close(), SPAWN_RETRY_MS * 2);
  try {
    const r = await runProcess(spec("", { program: path, args: [] }));
    assertEquals([r.stdout, r.spawnError], ["done\n", undefined]);
  } finally {
    clearTimeout(closer);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readShebang() reads the interpreter of a script", async () => {
  const dir = await Deno.makeTempDir();
  assertEquals(readShebang(writeScript(dir, "a", "#!/usr/bin/env python3\n")), "/usr/bin/env");
  assertEquals(readShebang(writeScript(dir, "b", "echo\n")), undefined);
  assertEquals(readShebang(`${dir}/missing`), undefined);
  await Deno.remove(dir, { recursive: true });
});
