/**
 * Starting a tool process in its own session, and explaining why a start failed.
 *
 * Three ways to get a new session (so the whole tree can be killed as one group):
 * - `posix_spawn` with `POSIX_SPAWN_SETSID` through FFI (`_ffi_spawn.ts`), where the
 *   thread may use FFI (a Landlock Worker does): no extra exec, no fork. Binding it
 *   costs more than a `setsid` spawn (~8 ms), so a thread's first processes start
 *   through `setsid` and it binds once idle ({@linkcode bindFastSpawnWhenIdle}).
 * - through `setsid(1)`, spawned with Deno's fast `posix_spawn` path. `setsid` execs
 *   the program in the same process (it is not a group leader), so pid = pgid.
 *   Costs ~0.6 ms for the extra exec (1.6–2 ms on the slow VM of docs/benchmarks.md).
 * - `detached: true`, which makes Deno fork the whole harness process (a `pre_exec`
 *   hook disables `posix_spawn`): measured 1.8 ms per spawn at start, growing to 7 ms
 *   after 400 spawns as the heap grows. Used only where `setsid` is missing (macOS).
 *
 * @module
 */
import { type FfiChild, ffiSpawnAvailable, ffiSpawnBound, spawnFfi } from "./_ffi_spawn.ts";
import type { ProcessSpec, SpawnError } from "./process.ts";
import { after } from "../_timers.ts";

/** A started child: Deno's, or one started with `posix_spawn` through FFI. */
export type SpawnedChild = Deno.ChildProcess | FfiChild;

let bindScheduled = false;

/**
 * Binds FFI spawning on this thread once the current task is done (the first call's
 * result is then already on its way), so later calls skip the `setsid` exec. Does
 * nothing after the first time, nor where FFI is not permitted.
 */
export function bindFastSpawnWhenIdle(): void {
  if (bindScheduled) return;
  bindScheduled = true;
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return;
  after(0, ffiSpawnAvailable);
}

/** A start that failed because the program file is open for writing (ETXTBSY): retry. */
export const BUSY: unique symbol = Symbol("busy");

/** Where `setsid(1)` lives on Linux systems (util-linux, busybox). */
const SETSID_PATHS = ["/usr/bin/setsid", "/bin/setsid"];

/**
 * Finds `setsid(1)`.
 *
 * @returns Its absolute path, or null when it is missing or may not be looked up.
 */
export function findSetsid(): string | null {
  if (Deno.build.os !== "linux") return null;
  for (const path of SETSID_PATHS) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // Missing, or no read permission (a Worker): try the next, then give up.
    }
  }
  return null;
}

/**
 * Starts `spec` in a new session: through FFI where this thread may use it, else
 * through `setsid`, else with `detached`.
 *
 * @param spec What to run.
 * @param setsid The `setsid` program, or null to use `detached: true`.
 * @returns The child, why it could not start, or {@linkcode BUSY}.
 */
export function spawnChild(
  spec: ProcessSpec,
  setsid: string | null,
): SpawnedChild | SpawnError | typeof BUSY {
  if (ffiSpawnBound() || (setsid === null && ffiSpawnAvailable())) return spawnFfi(spec);
  if (setsid !== null) {
    // setsid hides the program from Deno's run check: check it here instead.
    const state = Deno.permissions.querySync({ name: "run", command: spec.program }).state;
    if (state !== "granted") {
      return describeSpawnError(spec.program, spec.env.PATH, new Deno.errors.NotCapable());
    }
  }
  try {
    return new Deno.Command(setsid ?? spec.program, {
      args: setsid === null ? spec.args : ["--", spec.program, ...spec.args],
      cwd: spec.cwd,
      env: spec.env,
      clearEnv: true,
      stdin: spec.stdin === "null" ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      detached: setsid === null,
    }).spawn();
  } catch (err) {
    if (err instanceof Error && /os error 26\b|Text file busy/.test(err.message)) return BUSY;
    return describeSpawnError(spec.program, spec.env.PATH, err);
  }
}

const SETSID_FAILURE = /^setsid: (?:failed to execute|can't execute) '?(.*?)'?: ([^\n]+)\n?$/;

/**
 * Recognizes `setsid` reporting that it could not exec the program (exit 126/127 and
 * its one-line message as the whole stderr).
 *
 * @param spec The spec that was run.
 * @param code The exit code.
 * @param stderr The whole stderr.
 * @returns The spawn error, {@linkcode BUSY}, or undefined when the program did run.
 */
export function setsidFailure(
  spec: ProcessSpec,
  code: number | null,
  stderr: string,
): SpawnError | typeof BUSY | undefined {
  if (code !== 126 && code !== 127) return undefined;
  const m = SETSID_FAILURE.exec(stderr);
  if (m === null || m[1] !== spec.program) return undefined;
  const reason = m[2];
  if (reason.includes("Text file busy")) return BUSY;
  const err = reason.includes("No such file")
    ? new Deno.errors.NotFound(reason)
    : reason.includes("Permission denied")
    ? new Deno.errors.PermissionDenied(reason)
    : new Error(reason);
  return describeSpawnError(spec.program, spec.env.PATH, err);
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
