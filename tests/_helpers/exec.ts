/**
 * Shared setup for tests of the exec layer: a pool serving test modules, the
 * machine's capabilities, and a throwaway project with a secret beside it.
 *
 * @module
 */
import { type MachineCaps, probeMachine } from "../../lib/exec/confine.ts";
import type { ProcessSpec } from "../../lib/exec/process.ts";
import { WorkerPool, type WorkerPoolOptions } from "../../lib/exec/worker_pool.ts";

/** The Worker entry that serves `TEST_MODULES`. */
export const TEST_WORKER_URL = new URL("./test_worker.ts", import.meta.url);

/** A pool whose Workers serve the test modules. */
export function testPool(opts: WorkerPoolOptions = {}): WorkerPool {
  return new WorkerPool({ workerUrl: TEST_WORKER_URL, ...opts });
}

/** This machine's capabilities (probed once per test process). */
export const CAPS: MachineCaps = await probeMachine();

/** Whether subprocesses can be confined with Landlock here. */
export const HAS_LANDLOCK = CAPS.os === "linux" && CAPS.ffi && CAPS.landlockAbi > 0;

/** Whether Landlock can restrict TCP ports here (ABI 4). */
export const HAS_LANDLOCK_NET = HAS_LANDLOCK && CAPS.landlockAbi >= 4;

/**
 * Prints why a test is skipped and returns true, or returns false when it runs.
 *
 * @param missing The missing layer, or undefined when present.
 */
export function skipBecause(missing: string | undefined): boolean {
  if (missing === undefined) return false;
  console.log(`  skipped: ${missing}`);
  return true;
}

/** A project layout: `<root>/proj/data/in.txt`, `<root>/proj/out/`, `<root>/proj/../sibling/secret.txt`, `<root>/secret.txt`. */
export interface Project {
  root: string;
  proj: string;
  data: string;
  out: string;
  sibling: string;
  secret: string;
  siblingSecret: string;
}

/** Creates a throwaway project under a fresh temp dir. */
export async function makeProject(): Promise<Project> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness-escape-" }));
  const proj = `${root}/proj`;
  const p: Project = {
    root,
    proj,
    data: `${proj}/data`,
    out: `${proj}/out`,
    sibling: `${root}/sibling`,
    secret: `${root}/secret.txt`,
    siblingSecret: `${root}/sibling/secret.txt`,
  };
  for (const d of [p.data, p.out, p.sibling]) await Deno.mkdir(d, { recursive: true });
  await Deno.writeTextFile(`${p.data}/in.txt`, "public data\n");
  await Deno.writeTextFile(p.secret, "TOP-SECRET-OUTSIDE\n");
  await Deno.writeTextFile(p.siblingSecret, "TOP-SECRET-SIBLING\n");
  return p;
}

/** A bash spec with a minimal environment. */
export function bashSpec(script: string, extra: Partial<ProcessSpec> = {}): ProcessSpec {
  return {
    program: "bash",
    args: ["-c", script],
    cwd: "/",
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
    stdin: "null",
    timeoutMs: 10_000,
    maxOutputBytes: 1 << 20,
    ...extra,
  };
}
