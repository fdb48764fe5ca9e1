/**
 * Runs one tool process: its own process group, an exact environment, bounded
 * capture, a timeout that takes the whole process tree down, and no hang on
 * grandchildren that keep the pipes open.
 *
 * @module
 */
import { OutputCapture } from "./capture.ts";

/** What to run. */
export interface ProcessSpec {
  /** An absolute path, or a name resolved through `env.PATH`. */
  program: string;
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** The complete environment of the child: nothing else is inherited. */
  env: Record<string, string>;
  /** Bytes written to stdin and then closed, or `"null"` for /dev/null. */
  stdin: Uint8Array | "null";
  timeoutMs: number;
  /** Cap per stream; the first and last halves are kept, memory stays bounded. */
  maxOutputBytes: number;
}

/** Why a process could not be started. */
export interface SpawnError {
  kind: "not-found" | "permission-denied" | "not-capable" | "other";
  message: string;
}

/** What a process did. */
export interface ProcessResult {
  /** Lossy UTF-8 (U+FFFD for invalid bytes), with an omission marker when truncated. */
  stdout: string;
  stderr: string;
  /** Exit code, `null` when killed by a signal or never started. */
  code: number | null;
  signal: Deno.Signal | null;
  timedOut: boolean;
  /** The call was cancelled through its AbortSignal. */
  aborted: boolean;
  /** Some output was dropped (see {@linkcode ProcessSpec.maxOutputBytes}). */
  truncated: boolean;
  durationMs: number;
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
   * the child alone is signalled instead. @default `Deno.kill(-pid, sig)`
   */
  killGroup?: (pid: number, sig: Deno.Signal) => boolean;
}

/** Delay between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 200;
/** How long output may still be drained after the process group is gone. */
export const DRAIN_GRACE_MS = 250;
/** Spawn attempts when the program is being written (ETXTBSY), and the delay between them. */
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

/**
 * Runs a process to completion and captures its output.
 *
 * The child starts in its own process group (`detached`), with exactly `spec.env`.
 * stdin is written while stdout and stderr drain, and write errors (EPIPE from a
 * child that never reads) are ignored. On timeout or abort the group gets SIGTERM and,
 * {@linkcode KILL_GRACE_MS} later, SIGKILL; after exit the group always gets SIGKILL to
 * reap stragglers. Tool failures never throw: they are fields of the result.
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
  const result = (fields: Partial<ProcessResult>): ProcessResult => ({
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
  });
  if (opts.signal?.aborted) return result({ aborted: true });
  const outCap = new OutputCapture(spec.maxOutputBytes);
  const errCap = new OutputCapture(spec.maxOutputBytes);
  const spawned = await spawnWithRetry(spec);
  if ("kind" in spawned) return result({ spawnError: spawned });
  const child = spawned;
  const notes: string[] = [];
  const killGroup = opts.killGroup ?? defaultKillGroup;
  let fellBack = false;
  const kill = (sig: Deno.Signal) => {
    if (!fellBack && killGroup(child.pid, sig)) return;
    if (!fellBack) {
      fellBack = true;
      notes.push(
        "The process group could not be killed (needs unrestricted --allow-run): only the tool process was signalled, its children may survive",
      );
    }
    try {
      child.kill(sig);
    } catch {
      // Already exited.
    }
  };

  let timedOut = false;
  let aborted = false;
  let exited = false;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    if (exited || killTimer !== undefined) return;
    kill("SIGTERM");
    killTimer = setTimeout(() => {
      if (!exited) kill("SIGKILL");
    }, KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, spec.timeoutMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  opts.onSpawn?.(child.pid);
  if (opts.signal?.aborted && !aborted) onAbort();

  const stdoutReader = child.stdout.getReader();
  const stderrReader = child.stderr.getReader();
  const drains = Promise.all([drain(stdoutReader, outCap), drain(stderrReader, errCap)]);
  if (spec.stdin !== "null") void writeStdin(child.stdin, spec.stdin);
  const status = await child.status;
  exited = true;
  clearTimeout(timer);
  clearTimeout(killTimer);
  opts.signal?.removeEventListener("abort", onAbort);
  kill("SIGKILL");
  await settleDrains(drains, [stdoutReader, stderrReader]);

  const out = outCap.finish();
  const err = errCap.finish();
  return result({
    stdout: out.text,
    stderr: err.text,
    code: status.signal === null ? status.code : null,
    signal: status.signal,
    timedOut,
    aborted,
    truncated: out.omitted > 0 || err.omitted > 0,
    notes,
  });
}

async function spawnWithRetry(spec: ProcessSpec): Promise<Deno.ChildProcess | SpawnError> {
  for (let attempt = 1;; attempt++) {
    try {
      return new Deno.Command(spec.program, {
        args: spec.args,
        cwd: spec.cwd,
        env: spec.env,
        clearEnv: true,
        stdin: spec.stdin === "null" ? "null" : "piped",
        stdout: "piped",
        stderr: "piped",
        detached: true,
      }).spawn();
    } catch (err) {
      const busy = err instanceof Error && /os error 26\b|Text file busy/.test(err.message);
      if (busy && attempt < SPAWN_ATTEMPTS) {
        await new Promise((r) => setTimeout(r, SPAWN_RETRY_MS));
        continue;
      }
      return describeSpawnError(spec.program, spec.env.PATH, err);
    }
  }
}

/**
 * Turns a spawn failure into a message that names the cause and the fix. For a
 * program that exists but "is not found", the missing `#!` interpreter is named when
 * the script can be read (inside a scoped Worker it may not be: the parent can call
 * this again).
 *
 * @param program The program as given.
 * @param path The child's PATH, used to resolve a bare name.
 * @param err What `Deno.Command.spawn()` threw.
 * @returns The classified error.
 */
export function describeSpawnError(
  program: string,
  path: string | undefined,
  err: unknown,
): SpawnError {
  const detail = err instanceof Error ? err.message : String(err);
  if (err instanceof Deno.errors.NotCapable) {
    return {
      kind: "not-capable",
      message:
        `Cannot start "${program}": it is outside the tool's run permission: add it to the tool's "run" permission`,
    };
  }
  if (err instanceof Deno.errors.PermissionDenied) {
    return {
      kind: "permission-denied",
      message:
        `Cannot start "${program}": permission denied: make it executable (chmod +x) and check that its directory is in the tool's exec paths`,
    };
  }
  if (err instanceof Deno.errors.NotFound) {
    const resolved = program.includes("/") ? program : undefined;
    const interpreter = resolved === undefined ? undefined : readShebang(resolved);
    if (interpreter !== undefined) {
      return {
        kind: "not-found",
        message:
          `Cannot start "${program}": its interpreter "${interpreter}" (from the "#!" line) does not exist: install it or fix the "#!" line`,
      };
    }
    return {
      kind: "not-found",
      message: resolved === undefined
        ? `Cannot start "${program}": no such program in PATH "${
          path ?? ""
        }": install it or give an absolute path`
        : `Cannot start "${program}": no such file: check the path`,
    };
  }
  return { kind: "other", message: `Cannot start "${program}": ${detail}` };
}

/** The interpreter named by the `#!` line of `file`, when the file exists and has one. */
export function readShebang(file: string): string | undefined {
  try {
    const f = Deno.openSync(file, { read: true });
    try {
      const buf = new Uint8Array(256);
      const n = f.readSync(buf) ?? 0;
      const line = new TextDecoder().decode(buf.subarray(0, n)).split("\n")[0];
      if (!line.startsWith("#!")) return undefined;
      return line.slice(2).trim().split(/\s+/)[0] || undefined;
    } finally {
      f.close();
    }
  } catch {
    return undefined;
  }
}

async function drain(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  cap: OutputCapture,
): Promise<void> {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      cap.push(value);
    }
  } catch {
    // Cancelled after the group was killed, or the pipe broke: keep what was read.
  }
}

/** Waits for both streams to end, then cancels readers still held open by escaped processes. */
async function settleDrains(
  drains: Promise<unknown>,
  readers: ReadableStreamDefaultReader<Uint8Array>[],
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((r) => timer = setTimeout(() => r("late"), DRAIN_GRACE_MS));
  const outcome = await Promise.race([drains, late]);
  clearTimeout(timer);
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
