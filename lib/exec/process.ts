/**
 * Runs one tool process: its own process group, an exact environment, bounded
 * capture, a timeout that takes the whole process tree down, and no hang on
 * grandchildren that keep the pipes open.
 *
 * @module
 */
import {
  bindFastSpawnWhenIdle,
  BUSY,
  describeSpawnError,
  findSetsid,
  setsidFailure,
  spawnChild,
} from "./_spawn.ts";
import { OutputCapture } from "./capture.ts";
import { after, sleep } from "../_timers.ts";

export { describeSpawnError, findSetsid, readShebang } from "./_spawn.ts";

/** What to run. */
export interface ProcessSpec {
  /** An absolute path, or a name resolved through `env.PATH`. */
  program: string;
  /** Arguments after the program name. */
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** The complete environment of the child: nothing else is inherited. */
  env: Record<string, string>;
  /** Bytes written to stdin and then closed, or `"null"` for /dev/null. */
  stdin: Uint8Array | "null";
  /** After this long the process group gets SIGTERM, then SIGKILL. */
  timeoutMs: number;
  /** Cap per stream; the first and last halves are kept, memory stays bounded. */
  maxOutputBytes: number;
}

/** Why a process could not be started. */
export interface SpawnError {
  /** The cause: no such program, not executable, outside the Deno run permission, other. */
  kind: "not-found" | "permission-denied" | "not-capable" | "other";
  /** What failed and how to fix it. */
  message: string;
}

/** What a process did. */
export interface ProcessResult {
  /** Lossy UTF-8 (U+FFFD for invalid bytes), with an omission marker when truncated. */
  stdout: string;
  /** Like `stdout`. */
  stderr: string;
  /** Exit code, `null` when killed by a signal or never started. */
  code: number | null;
  /** The signal that ended the process, or null. */
  signal: Deno.Signal | null;
  /** The timeout fired. */
  timedOut: boolean;
  /** The call was cancelled through its AbortSignal. */
  aborted: boolean;
  /** Some output was dropped (see {@linkcode ProcessSpec.maxOutputBytes}). */
  truncated: boolean;
  /** Wall-clock time of the call. */
  durationMs: number;
  /** Set when the process could not start; the other fields are then empty. */
  spawnError?: SpawnError;
  /** Things the caller should know, e.g. that the process group could not be killed. */
  notes: string[];
}

/** Options of {@linkcode runProcess}. */
export interface RunProcessOptions {
  /** Cancels the call: the process group gets SIGTERM, then SIGKILL. */
  signal?: AbortSignal;
  /** Called with the child's pid (which is also its process group id) once it runs. */
  onSpawn?: (pid: number) => void;
  /**
   * Sends a signal to a process group. Returns false when that is not possible, and
   * the child alone is signalled instead. @default `kill(-pid)` through FFI for a child
   * started through FFI, else the thread's ({@linkcode setThreadProcessDefaults}), else
   * `Deno.kill(-pid, sig)`
   */
  killGroup?: (pid: number, sig: Deno.Signal) => boolean;
}

/** Delay between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 200;
/** How long output may still be drained after the process group is gone. */
export const DRAIN_GRACE_MS = 250;
/** Start attempts when the program is still open for writing (ETXTBSY). */
export const SPAWN_ATTEMPTS = 5;
/** Delay between spawn attempts on ETXTBSY. */
export const SPAWN_RETRY_MS = 20;

/**
 * Signals the process group `pid` with `Deno.kill(-pid)`. Needs unrestricted
 * `--allow-run` (DENO-NOTES §3).
 *
 * @returns true when the group was signalled or is already gone, false when not permitted.
 */
export function defaultKillGroup(pid: number, sig: Deno.Signal): boolean {
  try {
    Deno.kill(-pid, sig);
    return true;
  } catch (err) {
    return !(err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied);
  }
}

/** How this thread starts and kills process groups when a call does not say. */
interface ThreadDefaults {
  killGroup: (pid: number, sig: Deno.Signal) => boolean;
  /** The `setsid` program; undefined until looked up. */
  setsid: string | null | undefined;
}

const thread: ThreadDefaults = { killGroup: defaultKillGroup, setsid: undefined };

/**
 * Sets how {@linkcode runProcess} starts and kills process groups on this thread when
 * a call does not say. A tool Worker sets both on start: it may not look `setsid` up
 * (no read permission) nor kill a group (no unrestricted run), so the parent passes
 * the path and kills groups for it, also for built-in tools that spawn (`shell`).
 *
 * @param defaults The group killer and/or the `setsid` program (null: use `detached`).
 */
export function setThreadProcessDefaults(
  defaults: { killGroup?: ThreadDefaults["killGroup"]; setsid?: string | null },
): void {
  if (defaults.killGroup !== undefined) thread.killGroup = defaults.killGroup;
  if (defaults.setsid !== undefined) thread.setsid = defaults.setsid;
}

/**
 * Runs a process to completion and captures its output.
 *
 * The child starts in a new session (through FFI `posix_spawn`, else `setsid`, else
 * `detached`), with exactly `spec.env`. stdin is written while stdout and stderr drain,
 * and write errors (EPIPE from a child that never reads) are ignored. On timeout or
 * abort the group gets SIGTERM and, {@linkcode KILL_GRACE_MS} later, SIGKILL; after
 * exit the group always gets SIGKILL to reap stragglers. A program that is still open
 * for writing (ETXTBSY) is started again up to {@linkcode SPAWN_ATTEMPTS} times. Tool
 * failures never throw: they are fields of the result.
 *
 * @param spec What to run.
 * @param opts Abort signal, spawn callback, group killer.
 * @returns The captured result.
 */
export async function runProcess(
  spec: ProcessSpec,
  opts: RunProcessOptions = {},
): Promise<ProcessResult> {
  const started = performance.now();
  thread.setsid ??= findSetsid();
  for (let attempt = 1;; attempt++) {
    const r = await runOnce(spec, opts, started, thread.setsid);
    bindFastSpawnWhenIdle();
    if (r !== BUSY) return r;
    if (attempt >= SPAWN_ATTEMPTS) {
      const busy = new Error("Text file busy: the program is still being written");
      return resultOf(started, {
        spawnError: describeSpawnError(spec.program, spec.env.PATH, busy),
      });
    }
    await sleep(SPAWN_RETRY_MS);
  }
}

function resultOf(started: number, fields: Partial<ProcessResult>): ProcessResult {
  return {
    stdout: "",
    stderr: "",
    code: null,
    signal: null,
    timedOut: false,
    aborted: false,
    truncated: false,
    durationMs: performance.now() - started,
    notes: [],
    ...fields,
  };
}

async function runOnce(
  spec: ProcessSpec,
  opts: RunProcessOptions,
  started: number,
  setsid: string | null,
): Promise<ProcessResult | typeof BUSY> {
  if (opts.signal?.aborted) return resultOf(started, { aborted: true });
  const spawned = spawnChild(spec, setsid);
  if (spawned === BUSY) return BUSY;
  if ("kind" in spawned) return resultOf(started, { spawnError: spawned });
  const child = spawned;
  const ffiChild = "killGroup" in child ? child : undefined;
  const outCap = new OutputCapture(spec.maxOutputBytes);
  const errCap = new OutputCapture(spec.maxOutputBytes);
  const notes: string[] = [];
  // A child started through FFI is signalled through FFI, which needs no run permission.
  const killGroup = opts.killGroup ??
    (ffiChild ? (_pid: number, sig: Deno.Signal) => ffiChild.killGroup(sig) : thread.killGroup);
  let fellBack = false;
  const kill = (sig: Deno.Signal, childToo = true) => {
    // The child itself too: until `setsid` has run, its process group does not exist.
    if (childToo) {
      try {
        child.kill(sig);
      } catch {
        // Already exited.
      }
    }
    if (fellBack || killGroup(child.pid, sig)) return;
    fellBack = true;
    notes.push(
      "The process group could not be killed (needs unrestricted --allow-run): only the tool process was signalled, its children may survive",
    );
  };

  let timedOut = false;
  let aborted = false;
  let exited = false;
  let cancelKill: (() => void) | undefined;
  const stop = () => {
    if (exited || cancelKill !== undefined) return;
    kill("SIGTERM");
    cancelKill = after(KILL_GRACE_MS, () => {
      if (!exited) kill("SIGKILL");
    });
  };
  const cancelTimeout = after(spec.timeoutMs, () => {
    timedOut = true;
    stop();
  });
  const onAbort = () => {
    aborted = true;
    stop();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  opts.onSpawn?.(child.pid);
  if (opts.signal?.aborted && !aborted) onAbort();

  const stdoutReader = readerOf(child.stdout);
  const stderrReader = readerOf(child.stderr);
  const drains = Promise.all([drain(stdoutReader, outCap), drain(stderrReader, errCap)]);
  if (spec.stdin !== "null") void writeStdin(child.stdin, spec.stdin);
  const status = await child.status;
  exited = true;
  cancelTimeout();
  cancelKill?.();
  opts.signal?.removeEventListener("abort", onAbort);
  // Reap what the tool left behind in its group; the tool itself has exited.
  kill("SIGKILL", false);
  await settleDrains(drains, [stdoutReader, stderrReader]);

  const out = outCap.finish();
  const err = errCap.finish();
  const code = status.signal === null ? status.code : null;
  if (setsid !== null && ffiChild === undefined && out.text === "") {
    const failure = setsidFailure(spec, code, err.text);
    if (failure === BUSY) return BUSY;
    if (failure !== undefined) return resultOf(started, { spawnError: failure });
  }
  return resultOf(started, {
    stdout: out.text,
    stderr: err.text,
    code,
    signal: status.signal,
    timedOut,
    aborted,
    truncated: out.omitted > 0 || err.omitted > 0,
    notes,
  });
}

/** Read buffer size: one pipe's worth, reused for every read (no allocation per chunk). */
const READ_CHUNK = 65536;

async function drain(reader: StreamReader, cap: OutputCapture): Promise<void> {
  try {
    if (reader instanceof ReadableStreamBYOBReader) {
      let buf = new ArrayBuffer(READ_CHUNK);
      for (;;) {
        const { done, value } = await reader.read(new Uint8Array(buf));
        if (done || value === undefined) return;
        cap.push(value);
        buf = value.buffer as ArrayBuffer;
      }
    }
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      cap.push(value);
    }
  } catch {
    // Cancelled after the group was killed, or the pipe broke: keep what was read.
  }
}

type StreamReader = ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>;

/** A BYOB reader when the stream supports one (Deno's pipes do), else a default reader. */
function readerOf(stream: ReadableStream<Uint8Array>): StreamReader {
  try {
    return stream.getReader({ mode: "byob" });
  } catch {
    return stream.getReader();
  }
}

/** Waits for both streams to end, then cancels readers still held open by escaped processes. */
async function settleDrains(
  drains: Promise<unknown>,
  readers: StreamReader[],
): Promise<void> {
  let cancel = () => {};
  const late = new Promise<"late">((r) => cancel = after(DRAIN_GRACE_MS, () => r("late")));
  const outcome = await Promise.race([drains, late]);
  cancel();
  if (outcome === "late") {
    await Promise.all(readers.map((r) => r.cancel().catch(() => {})));
    await drains;
  }
}

async function writeStdin(stream: WritableStream<Uint8Array>, bytes: Uint8Array): Promise<void> {
  const writer = stream.getWriter();
  try {
    await writer.write(bytes);
    await writer.close();
  } catch {
    // EPIPE: the child exited or never reads its stdin. Not an error of the call.
    try {
      await writer.abort();
    } catch {
      // Already closed.
    }
  }
}
