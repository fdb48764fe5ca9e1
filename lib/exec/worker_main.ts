/**
 * The entry point of the tool Workers that run built-in tools
 * (`new URL("./worker_main.ts", import.meta.url)`): serves the built-in tool modules.
 * Workers that only run processes start from `worker_process.ts`. `scripts/grant.ts` lists it in `INCLUDES` for `deno compile`.
 *
 * @module
 */
import { BUILTIN_TOOLS } from "./_module_map.ts";
import { serveWorker } from "./_worker_runtime.ts";

if (import.meta.main) serveWorker(BUILTIN_TOOLS);
