/**
 * The messages between the WorkerPool (main thread) and a tool Worker.
 *
 * A worker receives `init` once, confines its own thread, answers `ready` (or
 * `init-error`), then serves `process` and `module` calls by id. A module call's
 * object `ctx` gets the Worker's own `signal`, which an `abort` message fires. While a process
 * runs, a worker without FFI asks the parent to signal its process group (`kill`),
 * because a scoped worker may not `Deno.kill(-pgid)`; one with FFI does it itself.
 *
 * @module
 */
import type { LandlockPolicy, RestrictReport } from "./landlock.ts";
import type { ProcessResult, ProcessSpec } from "./process.ts";

/** Identifies one worker: calls with equal keys share it. */
export interface WorkerKey {
  /** The worker's Deno permissions; kinds left out are denied. */
  permissions: Deno.PermissionOptionsObject;
  /** Landlock applied to the worker thread (and so to every process it starts). */
  landlock?: LandlockPolicy;
  /** Move the worker thread into a new, empty network namespace (needs CAP_SYS_ADMIN). */
  netns?: boolean;
  /**
   * false for a Worker that only runs processes: it starts from an entry module that
   * does not load the built-in tools, which makes its start cheaper. @default true
   */
  modules?: boolean;
}

/** Parent → worker. */
export type ToWorker =
  | {
    type: "init";
    landlock?: LandlockPolicy;
    netns?: boolean;
    /** Whether the parent can kill process groups; otherwise the worker kills the child only. */
    groupKill: boolean;
    /** The `setsid` program (the Worker may not look it up), or null to use `detached`. */
    setsid: string | null;
  }
  | { type: "process"; id: number; spec: ProcessSpec }
  | { type: "module"; id: number; moduleId: string; args: unknown; ctx: unknown }
  | { type: "abort"; id: number };

/** Worker → parent. */
export type FromWorker =
  | { type: "ready"; report?: RestrictReport }
  | { type: "init-error"; message: string; errno?: string }
  | { type: "spawned"; id: number; pid: number }
  | { type: "kill"; pid: number; signal: Deno.Signal }
  | { type: "process-result"; id: number; result: ProcessResult }
  | { type: "module-result"; id: number; content: string; isError: boolean }
  | { type: "call-error"; id: number; message: string };
