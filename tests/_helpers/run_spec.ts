/**
 * A tiny runner for prepared process specs in tests of the calling conventions:
 * exactly the spec's program, args, cwd, environment (nothing inherited) and stdin,
 * with the output captured. It stands in for `lib/exec/process.ts` so that those
 * tests exercise the conventions alone.
 *
 * @module
 */
import type { ProcessResultLike, ProcessSpecLike } from "../../lib/exec/conventions/types.ts";

/** The raw bytes a process wrote, next to the decoded result. */
export interface RunOutcome extends ProcessResultLike {
  stdoutBytes: Uint8Array;
}

/**
 * Runs a spec and captures what the process did.
 *
 * @param spec What to run.
 * @returns The result, with spawn failures classified as the process layer does.
 */
export async function runSpec(spec: ProcessSpecLike): Promise<RunOutcome> {
  const started = performance.now();
  const base = {
    stdout: "",
    stderr: "",
    code: null,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 0,
    stdoutBytes: new Uint8Array(),
  };
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(spec.program, {
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
    const kind = err instanceof Deno.errors.NotFound
      ? "not-found"
      : err instanceof Deno.errors.PermissionDenied
      ? "permission-denied"
      : "other";
    return { ...base, spawnError: { kind, message: String(err) } };
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }, spec.timeoutMs);
  if (spec.stdin !== "null") {
    const writer = child.stdin.getWriter();
    try {
      await writer.write(spec.stdin);
      await writer.close();
    } catch {
      // the tool did not read its stdin
    }
  }
  const out = await child.output();
  clearTimeout(timer);
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return {
    ...base,
    stdout: decode(out.stdout),
    stderr: decode(out.stderr),
    stdoutBytes: out.stdout,
    code: out.signal === null ? out.code : null,
    signal: out.signal,
    timedOut,
    durationMs: performance.now() - started,
  };
}

/** What a `dump` fixture reported about the process it ran in. */
export interface Dump {
  argv: string[];
  cwd: string;
  stdin: string;
  env: Record<string, string>;
}

/**
 * Parses the NUL-separated report of `tests/fixtures/conventions/dump`:
 * `argv\0<n>\0<arg0>\0…`, `cwd\0<dir>\0`, `stdin\0<bytes>\0`, `env\0<NAME=value>\0…`.
 *
 * @param text The dump's stdout.
 * @returns The argv (with `$0`), cwd, stdin text and environment.
 * @throws {SyntaxError} When the text is not a dump.
 */
export function parseDump(text: string): Dump {
  const parts = text.split("\0");
  let i = 0;
  const expect = (label: string) => {
    if (parts[i++] !== label) throw new SyntaxError(`Not a dump: expected "${label}"`);
  };
  expect("argv");
  const n = Number(parts[i++]);
  const argv = parts.slice(i, i + n + 1);
  i += n + 1;
  expect("cwd");
  const cwd = parts[i++];
  expect("stdin");
  const stdin = parts[i++];
  expect("env");
  const env: Record<string, string> = {};
  for (const entry of parts.slice(i)) {
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return { argv, cwd, stdin, env };
}

/** Variables bash sets for itself, which a dump reports besides the spec's. */
const SHELL_VARS = ["PWD", "SHLVL", "_", "OLDPWD"];

/** A dumped environment without the variables bash adds on its own. */
export function withoutShellVars(env: Record<string, string>): Record<string, string> {
  const out = { ...env };
  for (const k of SHELL_VARS) delete out[k];
  return out;
}

/** A temporary project directory, removed by `cleanup`. */
export interface FixtureProject {
  /** Absolute, symlinks resolved. */
  dir: string;
  /**
   * Copies `tests/fixtures/conventions/<name>` into the project (mode 0755).
   * @returns Its absolute path.
   */
  install(name: string, subdir?: string, as?: string): string;
  /** Writes a script into the project. @returns Its absolute path. */
  write(path: string, text: string, mode?: number): string;
  cleanup(): void;
}

/** Makes a temporary project directory for convention tests. */
export function fixtureProject(): FixtureProject {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "harness-conv-" }));
  const write = (path: string, text: string, mode = 0o755) => {
    const abs = `${dir}/${path}`;
    Deno.mkdirSync(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(abs, text);
    Deno.chmodSync(abs, mode);
    return abs;
  };
  return {
    dir,
    install(name, subdir = ".agents/tools", as = name) {
      const text = Deno.readTextFileSync(
        new URL(`../fixtures/conventions/${name}`, import.meta.url),
      );
      return write(`${subdir}/${as}`, text);
    },
    write,
    cleanup: () => Deno.removeSync(dir, { recursive: true }),
  };
}
