/**
 * A tool Worker entry for tests: the real Worker runtime serving test modules
 * (`WorkerPool` option `workerUrl`). Production Workers run `lib/exec/worker_main.ts`,
 * which serves the built-in tools instead; no path ever reaches a dynamic import.
 *
 * @module
 */
import { type ModuleMap, serveWorker } from "../../lib/exec/_worker_runtime.ts";

/** Test modules: echo, read a file, spin forever, throw. */
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
  "test:throw": {
    execute: () => Promise.reject(new RangeError("boom")),
  },
};

if (import.meta.main) serveWorker(TEST_MODULES);
