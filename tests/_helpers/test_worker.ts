/**
 * A tool Worker entry for tests: the real Worker runtime serving test modules
 * (`WorkerPool` option `workerUrl`). Production Workers run `lib/exec/worker_main.ts`,
 * which serves the built-in tools instead; no path ever reaches a dynamic import.
 *
 * @module
 */
import { type ModuleMap, serveWorker } from "../../lib/exec/_worker_runtime.ts";
import { runProcess } from "../../lib/exec/process.ts";

/** Test modules: echo, read a file, read env, spin forever, wait for abort, spawn, throw. */
export const TEST_MODULES: ModuleMap = {
  "test:echo": {
    execute: (args) => Promise.resolve({ content: JSON.stringify(args) }),
  },
  "test:read": {
    execute: async (args) => ({
      content: await Deno.readTextFile((args as { path: string }).path),
    }),
  },
  "test:env": {
    execute: (args) =>
      Promise.resolve({ content: String(Deno.env.get((args as { name: string }).name)) }),
  },
  "test:spin": {
    execute: () => {
      for (;;) {
        // Never yields: only terminating the Worker stops it.
      }
    },
  },
  "test:wait": {
    execute: (_args, ctx) =>
      new Promise((resolve) => {
        const signal = (ctx as { signal: AbortSignal }).signal;
        signal.addEventListener("abort", () => resolve({ content: "stopped" }), { once: true });
      }),
  },
  "test:spawn": {
    execute: async (args, ctx) => {
      const { script, timeoutMs } = args as { script: string; timeoutMs: number };
      const r = await runProcess({
        program: "bash",
        args: ["-c", script],
        cwd: "/",
        env: { PATH: "/usr/bin:/bin" },
        stdin: "null",
        timeoutMs,
        maxOutputBytes: 1000,
      }, { signal: (ctx as { signal: AbortSignal }).signal });
      return { content: JSON.stringify({ timedOut: r.timedOut, notes: r.notes }) };
    },
  },
  "test:throw": {
    execute: () => Promise.reject(new RangeError("boom")),
  },
};

if (import.meta.main) serveWorker(TEST_MODULES);
