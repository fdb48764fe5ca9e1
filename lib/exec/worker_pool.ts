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
import { DeniedError, ExitCode, HarnessError } from "../errors.ts";
import type { RestrictReport } from "./landlock.ts";
import {
  defaultKillGroup,
  describeSpawnError,
  DRAIN_GRACE_MS,
  KILL_GRACE_MS,
  type ProcessResult,
  type ProcessSpec,
} from "./process.ts";
import type { FromWorker, ToWorker, WorkerKey } from "./protocol.ts";

export type { WorkerKey } from "./protocol.ts";

/** Harness itself lacks a permission a tool's Worker needs (exit 5). */
export class WorkerPermissionError extends DeniedError {
  /** The Deno permission kind, e.g. `ffi`. */
  readonly permission: string;
  /** The `deno run` flag that grants it, e.g. `--allow-ffi`. */
  readonly flag: string;

  /**
   * @param permission The missing permission kind.
   * @param value The missing entry, when a list entry is missing.
   */
  constructor(permission: string, value?: string) {
    const flag = value === undefined ? `--allow-${permission}` : `--allow-${permission}=${value}`;
    super(
      `Cannot start a tool Worker: harness itself lacks the "${permission}" permission${
        value === undefined ? "" : ` for "${value}"`
      } the tool needs: run harness with ${flag}`,
      { hint: flag },
    );
    this.name = "WorkerPermissionError";
    this.permission = permission;
    this.flag = flag;
  }
}

/** A tool Worker could not confine itself, crashed or stopped answering (exit 1). */
export class WorkerError extends HarnessError {
  /**
   * @param message What happened, and the fix when there is one.
   * @param options `cause`: the underlying error.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, ExitCode.Failed, options);
    this.name = "WorkerError";
  }
}

/** Options of {@linkcode WorkerPool}. */
export interface WorkerPoolOptions {
  /** Idle Workers beyond this many are terminated, least recently used first. @default 16 */
  maxWorkers?: number;
  /** The Worker entry module. Tests serve test modules with their own. @default worker_main.ts */
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
  readonly #watchdogMs: number;
  readonly #groupKill: boolean;
  #nextId = 1;
  #closed = false;

  /** @param opts Pool size, Worker entry module, watchdog. */
  constructor(opts: WorkerPoolOptions = {}) {
    this.#max = opts.maxWorkers ?? 16;
    this.#url = opts.workerUrl ?? new URL("./worker_main.ts", import.meta.url);
    this.#watchdogMs = opts.watchdogMs ?? 5000;
    this.#groupKill = Deno.permissions.querySync({ name: "run" }).state === "granted";
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
      if (reply.type !== "process-result") throw new WorkerError(`Unexpected reply "${reply.type}"`);
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
   * Runs a built-in tool module in the Worker of `key`. A timeout or an abort
   * terminates that Worker (JavaScript cannot be interrupted otherwise); other calls
   * running in it fail with a {@linkcode WorkerError}.
   *
   * @param key The Worker's permissions.
   * @param moduleId The tool's id in the module map.
   * @param args The validated arguments.
   * @param ctx The call context (structured-cloneable).
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
    const msg: ToWorker = { type: "module", id, moduleId, args, ctx };
    const reply = await this.#call(slot, msg, opts.signal, opts.timeoutMs, true);
    if (reply.type === "module-result") return { content: reply.content, isError: reply.isError };
    if (reply.type === "call-error") return { content: reply.message, isError: true };
    throw new WorkerError(`Unexpected reply "${reply.type}"`);
  }

  /** Terminates every Worker; calls still running fail with a {@linkcode WorkerError}. */
  close(): void {
    this.#closed = true;
    for (const slot of [...this.#slots.values()]) this.#drop(slot, "the worker pool was closed");
  }

  #call(
    slot: Slot,
    msg: Extract<ToWorker, { id: number }>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    terminateOnStop = false,
  ): Promise<FromWorker> {
    slot.lastUsed = performance.now();
    const id = msg.id;
    return new Promise<FromWorker>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        slot.pending.delete(id);
        slot.lastUsed = performance.now();
      };
      const stopped = (why: "timeout" | "abort") => {
        const pending = slot.pending.get(id);
        done();
        if (pending?.pid !== undefined && this.#groupKill) defaultKillGroup(pending.pid, "SIGKILL");
        this.#drop(slot, `a call in the same worker was stopped (${why})`);
        resolve(stoppedReply(msg, why, timeoutMs ?? 0));
      };
      const onAbort = () => {
        if (terminateOnStop) stopped("abort");
        else slot.worker.postMessage({ type: "abort", id } satisfies ToWorker);
      };
      slot.pending.set(id, {
        resolve: (v) => {
          done();
          resolve(v);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      slot.worker.postMessage(msg);
      if (timeoutMs !== undefined) timer = setTimeout(() => stopped("timeout"), timeoutMs);
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
      worker = new Worker(this.#url, { type: "module", deno: { permissions: key.permissions } });
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
      const pending = slot.pending.get(m.id);
      if (m.type === "spawned") {
        if (pending) pending.pid = m.pid;
      } else if (m.type === "kill") {
        if (this.#groupKill) defaultKillGroup(m.pid, m.signal);
      } else pending?.resolve(m);
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      const err = new WorkerError(`A tool Worker crashed: ${e.message}`);
      settle.reject(err);
      this.#drop(slot, e.message);
    };
    const init: ToWorker = { type: "init", groupKill: this.#groupKill };
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

function stoppedReply(
  msg: Extract<ToWorker, { id: number }>,
  why: "timeout" | "abort",
  timeoutMs: number,
): FromWorker {
  const text = why === "timeout"
    ? `The tool timed out after ${timeoutMs} ms`
    : "The tool call was cancelled";
  if (msg.type === "module") return { type: "module-result", id: msg.id, content: text, isError: true };
  const result: ProcessResult = {
    stdout: "",
    stderr: "",
    code: null,
    signal: "SIGKILL",
    timedOut: why === "timeout",
    aborted: why === "abort",
    truncated: false,
    durationMs: timeoutMs,
    notes: [`The tool Worker stopped answering and was terminated (${why}); output is lost`],
  };
  return { type: "process-result", id: msg.id, result };
}

/** A stable string of a key: equal keys give equal strings whatever their key order. */
export function keyString(key: WorkerKey): string {
  return JSON.stringify(key, (_k, v) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v);
}

/**
 * Names the permission harness lacks for a Worker, by querying this process's grant
 * for each kind and entry the Worker asks for.
 */
function missingPermission(perms: Deno.PermissionOptionsObject, cause: Error): Error {
  for (const [kind, value] of Object.entries(perms)) {
    if (value === false || value === undefined || value === "none") continue;
    const entries = Array.isArray(value) ? value.map(String) : [undefined];
    for (const entry of entries) {
      const state = Deno.permissions.querySync(descriptor(kind, entry)).state;
      if (state !== "granted") return new WorkerPermissionError(kind, entry);
    }
  }
  return new WorkerError(`Cannot start a tool Worker: ${cause.message}`, { cause });
}

function descriptor(kind: string, entry: string | undefined): Deno.PermissionDescriptor {
  const field: Record<string, string> = {
    read: "path",
    write: "path",
    net: "host",
    env: "variable",
    run: "command",
    ffi: "path",
    sys: "kind",
    import: "host",
  };
  const d: Record<string, string> = { name: kind };
  if (entry !== undefined && field[kind] !== undefined) d[field[kind]] = entry;
  return d as unknown as Deno.PermissionDescriptor;
}
