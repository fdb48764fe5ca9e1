/**
 * Misbehaving tools run the way harness runs them (scoped Worker, Landlock where
 * available): process trees at a timeout, floods of output, stdin nobody reads,
 * missing interpreters.
 */
import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import type { ResolvedScope } from "../lib/types.ts";
import { planConfinement, workerKeyFor, wrapSpec } from "../lib/exec/confine.ts";
import type { ProcessSpec } from "../lib/exec/process.ts";
import type { WorkerPool } from "../lib/exec/worker_pool.ts";
import { bashSpec, CAPS, testPool } from "./_helpers/exec.ts";
import { findProcesses, writeScript } from "./_helpers/procs.ts";

/** Runs `spec` as a confined tool that may read `read` (plus the system paths). */
function confined(pool: WorkerPool, spec: ProcessSpec, read: string[] = []) {
  const scope: ResolvedScope = { read, write: [], net: [], env: [], run: [] };
  const plan = planConfinement(scope, CAPS, "auto", spec.program, "/");
  return pool.runProcess(workerKeyFor(scope, plan, spec.program), wrapSpec(spec, plan));
}

Deno.test("fault: a tool that forks grandchildren is fully killed at its timeout", async () => {
  // A unique duration is the marker: every sleep of the tree carries it in its argv.
  const marker = `300.${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`;
  const pool = testPool();
  try {
    await confined(pool, bashSpec("true")); // Start the Worker first: the probe times the tool.
    let during = -1;
    const probe = setTimeout(() => during = findProcesses(marker).length, 300);
    const r = await confined(
      pool,
      bashSpec(`sleep ${marker} & ( sleep ${marker} & bash -c 'sleep ${marker}' ) & wait`, {
        timeoutMs: 600,
      }),
    );
    clearTimeout(probe);
    ok(during >= 3, `the tree should have been running, saw ${during} processes`);
    assertEquals([r.timedOut, r.signal], [true, "SIGTERM"]);
    assertEquals(findProcesses(marker), [], "no process of the tree may survive");
  } finally {
    pool.close();
  }
});

Deno.test("fault: 200 MB of output keeps memory bounded and is truncated with a marker", async () => {
  const pool = testPool();
  try {
    const spec = bashSpec(
      "printf START; head -c 200000000 /dev/zero | tr '\\0' x; printf END",
      { maxOutputBytes: 1 << 20, timeoutMs: 60_000 },
    );
    await confined(pool, bashSpec("true"));
    const before = Deno.memoryUsage().rss;
    const r = await confined(pool, spec);
    const growth = Deno.memoryUsage().rss - before;
    console.log(
      `  rss growth: ${(growth / 1048576).toFixed(1)} MB in ${r.durationMs.toFixed(0)} ms`,
    );
    ok(growth < 64 * 1048576, `rss grew by ${growth} bytes`);
    ok(r.truncated);
    ok(r.stdout.startsWith("START") && r.stdout.endsWith("END"));
    const omitted = 200_000_008 - (1 << 20);
    ok(r.stdout.includes(`[… harness: ${omitted} bytes of output omitted …]`));
    ok(r.stdout.length < (1 << 20) + 100);
    assertEquals(r.code, 0);
  } finally {
    pool.close();
  }
});

Deno.test("fault: a tool that never reads stdin gets 1 MB without error or hang", async () => {
  const pool = testPool();
  try {
    const stdin = new Uint8Array(1 << 20).fill(0x61);
    for (const script of ["echo done", "sleep 0.2; echo done"]) {
      const r = await confined(pool, bashSpec(script, { stdin, timeoutMs: 5000 }));
      assertEquals([r.stdout, r.code, r.timedOut, r.spawnError], ["done\n", 0, false, undefined]);
    }
    const reader = await confined(pool, bashSpec("wc -c", { stdin, timeoutMs: 5000 }));
    assertEquals(reader.stdout.trim(), String(1 << 20));
  } finally {
    pool.close();
  }
});

Deno.test("fault: a missing interpreter gives a clear spawn error", async () => {
  const pool = testPool();
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const tool = writeScript(dir, "tool", "#!/nonexistent/python\nprint('hi')\n");
    const r = await confined(pool, bashSpec("", { program: tool, args: [] }), [dir]);
    assertEquals(r.spawnError, {
      kind: "not-found",
      message:
        `Cannot start "${tool}": its interpreter "/nonexistent/python" (from the "#!" line) does not exist: install it or fix the "#!" line`,
    });
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});
