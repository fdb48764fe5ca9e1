/**
 * The entry point of every tool Worker (`new URL("./worker_main.ts", import.meta.url)`):
 * serves the built-in tools. `scripts/grant.ts` lists it in `INCLUDES` for `deno compile`.
 *
 * @module
 */
import { BUILTIN_TOOLS } from "./_module_map.ts";
import { serveWorker } from "./_worker_runtime.ts";

if (import.meta.main) serveWorker(BUILTIN_TOOLS);
