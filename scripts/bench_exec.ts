/**
 * Measures what confinement costs per tool call: a warm `WorkerPool.runProcess` with
 * Landlock (and a network namespace) against a bare `Deno.Command` spawn of the same
 * script, and the first call of a new scope (Worker start + Landlock) against the
 * floor of that: an empty Worker's start and first reply plus a bare spawn. Reports,
 * asserts nothing. `deno run --allow-all scripts/bench_exec.ts` prints a table;
 * `scripts/bench.ts` calls {@linkcode benchExec}.
 *
 * @module
 */
import type { ResolvedScope } from "../lib/types.ts";
import { planConfinement, probeMachine, workerKeyFor, wrapSpec } from "../lib/exec/confine.ts";
import type { ProcessSpec } from "../lib/exec/process.ts";
import { WorkerPool } from "../lib/exec/worker_pool.ts";

/** Warm calls measured per row. */
export const BENCH_CALLS = 200;
/** Calls run before measuring. */
const WARMUP = 10;
/** New scopes started for the first-call row. */
const FIRST_CALLS = 10;

/** The script every row runs: read a JSON argument from stdin, print a JSON answer. */
const SCRIPT = `input=$(cat); printf '{"ok":true,"len":%d}' "\${#input}"`;
const STDIN = new TextEncoder().encode(JSON.stringify({ path: "src/main.ts", pattern: "TODO" }));

/** One measured row: median milliseconds, and the median of its baseline. */
export interface BenchRow {
  name: string;
  ms: number;
  baselineMs: number;
  /** What the baseline is. @default "bare Deno.Command spawn" */
  baselineName?: string;
}

/** A Worker that does nothing but answer: the least any new Worker costs. */
const EMPTY_WORKER = `data:application/javascript,${
  encodeURIComponent("self.onmessage = () => self.postMessage(0);")
}`;

/** Starts an empty Worker with `permissions` and waits for its first reply. */
async function emptyWorkerStart(permissions: Deno.PermissionOptionsObject): Promise<number> {
  const t = performance.now();
  const worker = new Worker(EMPTY_WORKER, { type: "module", deno: { permissions } });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.onmessage = () => resolve();
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(`empty Worker failed: ${e.message}`));
      };
      worker.postMessage(0);
    });
    return performance.now() - t;
  } finally {
    worker.terminate();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Times `n` calls of `f`; with `selfTimed`, `f` returns its own duration. */
async function timeEach(
  n: number,
  f: (i: number) => Promise<unknown>,
  selfTimed = false,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const own = await f(i);
    out.push(selfTimed ? own as number : performance.now() - t);
  }
  return out;
}

/**
 * Runs the measurements.
 *
 * @returns One row per configuration: median ms of the confined call, and of the bare spawn.
 */
export async function benchExec(): Promise<BenchRow[]> {
  const caps = await probeMachine();
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness-bench-" }));
  const spec: ProcessSpec = {
    program: "bash",
    args: ["-c", SCRIPT],
    cwd: dir,
    env: { PATH: "/usr/bin:/bin" },
    stdin: STDIN,
    timeoutMs: 10_000,
    maxOutputBytes: 102_400,
  };
  const bare = async () => {
    const child = new Deno.Command("bash", {
      args: ["-c", SCRIPT],
      cwd: dir,
      env: spec.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    await w.write(STDIN);
    await w.close();
    await child.output();
  };
  await timeEach(WARMUP, bare);

  const pool = new WorkerPool({ maxWorkers: FIRST_CALLS + 4 });
  const rows: BenchRow[] = [];
  const variants: [string, Partial<ResolvedScope>][] = [
    ["runProcess, Landlock, net: true", { net: true }],
    ["runProcess, Landlock, net: [] (network namespace)", { net: [] }],
    ["runProcess, Landlock, net: [host:443]", { net: ["api.example.com:443"] }],
  ];
  let baseline = 0;
  try {
    for (const [name, partial] of variants) {
      const scope: ResolvedScope = {
        read: [dir],
        write: [],
        net: [],
        env: [],
        run: [],
        ...partial,
      };
      const plan = planConfinement(scope, caps, "auto", "bash", dir);
      const key = workerKeyFor(scope, plan, "bash");
      const wrapped = wrapSpec(spec, plan);
      const run = async () => {
        const r = await pool.runProcess(key, wrapped);
        if (r.code !== 0) {
          throw new Error(`bench call failed: ${r.stderr || r.spawnError?.message}`);
        }
      };
      await timeEach(WARMUP, run);
      // Interleaved, so that load from elsewhere on the machine hits both sides alike.
      const base: number[] = [];
      const confined = await timeEach(BENCH_CALLS, async () => {
        base.push((await timeEach(1, bare))[0]);
        const t = performance.now();
        await run();
        return performance.now() - t;
      }, true);
      baseline = median(base);
      const label = `${name}${plan.netns === "none" ? "" : ` [${plan.netns}]`}`;
      rows.push({ name: label, ms: median(confined), baselineMs: baseline });
    }
    // Interleaved with the floor: an empty Worker's start plus a bare spawn.
    const floor: number[] = [];
    const first = await timeEach(FIRST_CALLS, async (i) => {
      // A distinct read path makes a distinct key: a new Worker each time.
      const scope: ResolvedScope = {
        read: [dir, `${dir}/scope-${i}`],
        write: [],
        net: [],
        env: [],
        run: [],
      };
      const plan = planConfinement(scope, caps, "auto", "bash", dir);
      const key = workerKeyFor(scope, plan, "bash");
      floor.push(await emptyWorkerStart(key.permissions) + (await timeEach(1, bare))[0]);
      const t = performance.now();
      const r = await pool.runProcess(key, wrapSpec(spec, plan));
      const ms = performance.now() - t;
      if (r.code !== 0) throw new Error(`bench call failed: ${r.stderr || r.spawnError?.message}`);
      return ms;
    }, true);
    rows.push({
      name: "first call of a new scope (Worker + Landlock + netns)",
      ms: median(first),
      baselineMs: median(floor),
      baselineName: "empty Worker start + bare spawn",
    });
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
  return rows;
}

if (import.meta.main) {
  const caps = await probeMachine();
  console.log(`Landlock ABI ${caps.landlockAbi}, netns privileged: ${caps.netnsPrivileged}`);
  for (const row of await benchExec()) {
    const over = row.ms - row.baselineMs;
    console.log(
      `${row.name.padEnd(64)} ${row.ms.toFixed(2).padStart(7)} ms  (${
        row.baselineName ?? "bare spawn"
      } ${row.baselineMs.toFixed(2)} ms, overhead ${over >= 0 ? "+" : ""}${over.toFixed(2)} ms)`,
    );
  }
}
