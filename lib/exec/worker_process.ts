/**
 * The entry point of a Worker that only runs tool processes: it serves no built-in
 * tool module, so it does not load them and starts sooner than `worker_main.ts`.
 * `scripts/grant.ts` lists it in `INCLUDES` for `deno compile`.
 *
 * @module
 */
import { serveWorker } from "./_worker_runtime.ts";

if (import.meta.main) serveWorker({});
