/**
 * Long-lived tool Workers, one per distinct (Deno permissions + kernel confinement)
 * key, created on first use and reused: a warm call costs one message round trip
 * (~45 µs) instead of a Worker start (~15 ms, DENO-NOTES §2).
 *
 * Each Worker confines its own thread (Landlock, network namespace) before its first
 * spawn, so the main thread stays unrestricted. Process groups are killed from here,
 * because a scoped Worker may not `Deno.kill(-pgid)`.
 *
 * @module
 */
import { missingPermission, WorkerError } from "./_worker_errors.ts";
import type { RestrictReport } from "./landlock.ts";
import {
  defaultKillGroup,
  describeSpawnError,
  DRAIN_GRACE_MS,
  findSetsid,
  KILL_GRACE_MS,
  type ProcessResult,
  type ProcessSpec,
} from "./process.ts";
import type { FromWorker, ToWorker, WorkerKey } from "./protocol.ts";

import { canonicalJson } from "../_compare.ts";
import { after } from "../_timers.ts";

export type { WorkerKey } from "./protocol.ts";
export { WorkerError, WorkerPermissionError } from "./_worker_errors.ts";

/** Options of {@linkcode WorkerPool}. */
export interface WorkerPoolOptions {
  /** Idle Workers beyond this many are terminated, least recently used first. @default 16 */
  maxWorkers?: number;
  /**
   * The Worker entry module of every key. Tests serve test modules with their own.
   * @default worker_main.ts, and worker_process.ts for keys with `modules: false`
   */
  workerUrl?: URL;
  /** Extra time past a process call's timeout before the Worker counts as hung. @default 5000 */
  watchdogMs?: number;
}

interface Pending {
  resolve(value: FromWorker): void;
  reject(err: Error): void;
  pid?: number;
}

interface Slot {
  id: string;
  worker: Worker;
  ready: Promise<RestrictReport | undefined>;
  pending: Map<number, Pending>;
  lastUsed: number;
}

/** Runs tool calls in scoped, reused Workers. */
export class WorkerPool {
  readonly #slots = new Map<string, Slot>();
  readonly #max: number;
  readonly #url: URL;
  readonly #processUrl: URL;
  readonly #watchdogMs: number;
  readonly #groupKill: boolean;
  readonly #setsid: string | null;
  #nextId = 1;
  #closed = false;

  /**
   * Creates an empty pool; Workers start on first use.
   *
   * @param opts Pool size, Worker entry module, watchdog.
   */
  constructor(opts: WorkerPoolOptions = {}) {
    this.#max = opts.maxWorkers ?? 16;
    this.#url = opts.workerUrl ?? new URL("./worker_main.ts", import.meta.url);
    this.#processUrl = opts.workerUrl ?? new URL("./worker_process.ts", import.meta.url);
    this.#watchdogMs = opts.watchdogMs ?? 5000;
    this.#groupKill = Deno.permissions.querySync({ name: "run" }).state === "granted";
    this.#setsid = findSetsid();
  }

  /**
   * Starts the Worker of `key` ahead of its first call (for example while the first
   * model request is in flight), so that call does not pay the Worker start. Errors
   * surface on the call, not here.
   *
   * @param key The Worker's permissions and confinement.
   */
  warm(key: WorkerKey): void {
    this.#slot(key).catch(() => {});
  }

  /** Number of live Workers. */
  get size(): number {
    return this.#slots.size;
  }

  /**
   * Runs a process in the Worker of `key`.
   *
   * @param key The Worker's permissions and confinement.
   * @param spec What to run (wrap it first with `wrapSpec` when the plan has a wrapper).
   * @param opts `signal` cancels the call; `tmpDir` makes the pool create a private
   *   directory under it for this call, passed as TMPDIR and removed afterwards.
   * @returns The process result; tool failures are fields, not exceptions.
   * @throws {WorkerPermissionError} When harness lacks a permission the Worker needs.
   * @throws {WorkerError} When the Worker cannot confine itself or crashes.
   */
  async runProcess(
    key: WorkerKey,
    spec: ProcessSpec,
    opts: { signal?: AbortSignal; tmpDir?: string } = {},
  ): Promise<ProcessResult> {
    if (opts.signal?.aborted) {
      const reply = stoppedReply({ type: "process", id: 0, spec }, "abort", 0);
      if (reply.type === "process-result") return { ...reply.result, signal: null, notes: [] };
    }
    const slot = await this.#slot(key);
    let callDir: string | undefined;
    if (opts.tmpDir !== undefined) {
      callDir = await Deno.makeTempDir({ dir: opts.tmpDir, prefix: "call-" });
      spec = { ...spec, env: { ...spec.env, TMPDIR: callDir } };
    }
    try {
      const id = this.#nextId++;
      const watchdogMs = spec.timeoutMs + KILL_GRACE_MS + DRAIN_GRACE_MS + this.#watchdogMs;
      const reply = await this.#call(slot, { type: "process", id, spec }, opts.signal, watchdogMs);
      if (reply.type === "call-error") throw new WorkerError(reply.message);
      if (reply.type !== "process-result") {
        throw new WorkerError(`Unexpected reply "${reply.type}"`);
      }
      const result = reply.result;
      if (result.spawnError?.kind === "not-found" && spec.program.includes("/")) {
        // The Worker may not read the script to name its missing interpreter; the parent can.
        result.spawnError = describeSpawnError(
          spec.program,
          spec.env.PATH,
          new Deno.errors.NotFound(),
        );
      }
      return result;
    } finally {
      if (callDir !== undefined) await Deno.remove(callDir, { recursive: true }).catch(() => {});
    }
  }

  /**
   * Runs a built-in tool module in the Worker of `key`. On a timeout or an abort the
   * module's `ctx.signal` fires (the Worker adds an AbortSignal to an object `ctx`), and
   * a module that has not returned {@linkcode MODULE_STOP_GRACE_MS} later has its
   * Worker terminated (JavaScript cannot be interrupted otherwise); other calls running
   * in that Worker then fail with a {@linkcode WorkerError}.
   *
   * @param key The Worker's permissions.
   * @param moduleId The tool's id in the module map.
   * @param args The validated arguments.
   * @param ctx The call context (structured-cloneable; a `signal` field is replaced).
   * @param opts `signal` and `timeoutMs`.
   * @returns The tool's content and whether it is an error.
   * @throws {WorkerPermissionError} When harness lacks a permission the Worker needs.
   * @throws {WorkerError} When the Worker crashes.
   */
  async runModule(
    key: WorkerKey,
    moduleId: string,
    args: unknown,
    ctx: unknown,
    opts: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<{ content: string; isError: boolean }> {
    if (opts.signal?.aborted) return { content: "The tool call was cancelled", isError: true };
    const slot = await this.#slot(key);
    const id = this.#nextId++;
    const msg: ToWorker = { type: "module", id, moduleId, args, ctx: withoutSignal(ctx) };
    const reply = await this.#call(slot, msg, opts.signal, opts.timeoutMs);
    if (reply.type === "module-result") return { content: reply.content, isError: reply.isError };
    if (reply.type === "call-error") return { content: reply.message, isError: true };
    throw new WorkerError(`Unexpected reply "${reply.type}"`);
  }

  /** Terminates every Worker; calls still running fail with a {@linkcode WorkerError}. */
  close(): void {
    this.#closed = true;
    for (const slot of [...this.#slots.values()]) this.#drop(slot, "the worker pool was closed");
  }

  /**
   * Posts a call and waits for its reply. A process call is stopped by the Worker
   * itself (abort message, its own timeout); `timeoutMs` is then only a watchdog for a
   * hung Worker. A module call is asked to stop (its `ctx.signal` fires), and its Worker
   * is terminated when it has not answered {@linkcode MODULE_STOP_GRACE_MS} later.
   */
  #call(
    slot: Slot,
    msg: Extract<ToWorker, { id: number }>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): Promise<FromWorker> {
    slot.lastUsed = performance.now();
    const id = msg.id;
    const isModule = msg.type === "module";
    return new Promise<FromWorker>((resolve, reject) => {
      const timers: (() => void)[] = [];
      let stoppedBy: "timeout" | "abort" | undefined;
      const finish = () => {
        timers.forEach((cancel) => cancel());
        signal?.removeEventListener("abort", onAbort);
        slot.pending.delete(id);
        slot.lastUsed = performance.now();
      };
      const giveUp = () => {
        const pid = slot.pending.get(id)?.pid;
        finish();
        if (pid !== undefined && this.#groupKill) defaultKillGroup(pid, "SIGKILL");
        this.#drop(slot, `a call in the same worker did not stop (${stoppedBy})`);
        resolve(stoppedReply(msg, stoppedBy ?? "timeout", timeoutMs ?? 0));
      };
      const stop = (why: "timeout" | "abort") => {
        if (stoppedBy !== undefined) return;
        stoppedBy = why;
        if (!isModule && why === "timeout") return giveUp();
        slot.worker.postMessage({ type: "abort", id } satisfies ToWorker);
        if (isModule) timers.push(after(MODULE_STOP_GRACE_MS, giveUp));
      };
      const onAbort = () => stop("abort");
      slot.pending.set(id, {
        resolve: (reply) => {
          finish();
          resolve(
            isModule && stoppedBy !== undefined
              ? stoppedReply(msg, stoppedBy, timeoutMs ?? 0)
              : reply,
          );
        },
        reject: (err) => {
          finish();
          reject(err);
        },
      });
      slot.worker.postMessage(msg);
      if (timeoutMs !== undefined) timers.push(after(timeoutMs, () => stop("timeout")));
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  async #slot(key: WorkerKey): Promise<Slot> {
    if (this.#closed) throw new WorkerError("The worker pool is closed");
    const id = keyString(key);
    let slot = this.#slots.get(id);
    if (slot === undefined) {
      this.#evict();
      slot = this.#spawn(id, key);
      this.#slots.set(id, slot);
    }
    await slot.ready;
    return slot;
  }

  #spawn(id: string, key: WorkerKey): Slot {
    let worker: Worker;
    try {
      const permissions = withSetsid(key.permissions, this.#setsid);
      const options: WorkerOptions = { type: "module", deno: { permissions } };
      worker = key.modules === false
        ? new Worker(this.#processUrl, options)
        : new Worker(this.#url, options);
    } catch (err) {
      if (err instanceof Deno.errors.NotCapable) throw missingPermission(key.permissions, err);
      throw err;
    }
    let settle!: { resolve(r?: RestrictReport): void; reject(e: Error): void };
    const ready = new Promise<RestrictReport | undefined>((resolve, reject) => {
      settle = { resolve, reject };
    });
    ready.catch(() => {});
    const slot: Slot = { id, worker, ready, pending: new Map(), lastUsed: performance.now() };
    worker.onmessage = (e: MessageEvent<FromWorker>) => {
      const m = e.data;
      if (m.type === "ready") return settle.resolve(m.report);
      if (m.type === "init-error") {
        const err = new WorkerError(`Cannot confine a tool Worker: ${m.message}`);
        settle.reject(err);
        return this.#drop(slot, m.message);
      }
      if (m.type === "kill") {
        if (this.#groupKill) defaultKillGroup(m.pid, m.signal);
        return;
      }
      const pending = slot.pending.get(m.id);
      if (m.type === "spawned") {
        if (pending) pending.pid = m.pid;
      } else pending?.resolve(m);
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      const err = new WorkerError(`A tool Worker crashed: ${e.message}`);
      settle.reject(err);
      this.#drop(slot, e.message);
    };
    const init: ToWorker = { type: "init", groupKill: this.#groupKill, setsid: this.#setsid };
    if (key.landlock) init.landlock = key.landlock;
    if (key.netns) init.netns = true;
    worker.postMessage(init);
    return slot;
  }

  /** Terminates `slot`'s Worker and fails its pending calls. */
  #drop(slot: Slot, why: string): void {
    if (this.#slots.get(slot.id) === slot) this.#slots.delete(slot.id);
    slot.worker.terminate();
    for (const pending of [...slot.pending.values()]) {
      if (pending.pid !== undefined && this.#groupKill) defaultKillGroup(pending.pid, "SIGKILL");
      pending.reject(new WorkerError(`The tool Worker was stopped: ${why}`));
    }
    slot.pending.clear();
  }

  /** Makes room for one more Worker by terminating the least recently used idle one. */
  #evict(): void {
    if (this.#slots.size < this.#max) return;
    const idle = [...this.#slots.values()].filter((s) => s.pending.size === 0);
    idle.sort((a, b) => a.lastUsed - b.lastUsed);
    if (idle[0] !== undefined) this.#drop(idle[0], "evicted");
  }
}

/** How long a module asked to stop may take before its Worker is terminated. */
export const MODULE_STOP_GRACE_MS: number = KILL_GRACE_MS + DRAIN_GRACE_MS + 100;

/** `ctx` without a `signal` field, which cannot cross a postMessage. */
function withoutSignal(ctx: unknown): unknown {
  if (ctx === null || typeof ctx !== "object" || !("signal" in ctx)) return ctx;
  const { signal: _signal, ...rest } = ctx as Record<string, unknown>;
  return rest;
}

function stoppedReply(
  msg: Extract<ToWorker, { id: number }>,
  why: "timeout" | "abort",
  timeoutMs: number,
): FromWorker {
  const text = why === "timeout"
    ? `The tool timed out after ${timeoutMs} ms`
    : "The tool call was cancelled";
  if (msg.type === "module") {
    return { type: "module-result", id: msg.id, content: text, isError: true };
  }
  const result: ProcessResult = {
    stdout: "",
    stderr: "",
    code: null,
    signal: "SIGKILL",
    timedOut: why === "timeout",
    aborted: why === "abort",
    truncated: false,
    durationMs: timeoutMs,
    notes: [`The tool Worker did not stop and was terminated (${why}); output is lost`],
  };
  return { type: "process-result", id: msg.id, result };
}

/**
 * Adds `setsid` to a Worker's run list: processes start through it (see `_spawn.ts`),
 * and `runProcess` checks the real program against the Worker's permission itself.
 */
function withSetsid(
  perms: Deno.PermissionOptionsObject,
  setsid: string | null,
): Deno.PermissionOptionsObject {
  if (setsid === null || !Array.isArray(perms.run) || perms.run.length === 0) return perms;
  return { ...perms, run: [...perms.run, setsid] };
}

/** A stable string of a key: equal keys give equal strings whatever their key order. */
export function keyString(key: WorkerKey): string {
  return canonicalJson(key);
}
