/**
 * Runs the harness CLI in end-to-end tests: in-process through `runCli()` with a fake
 * `Io` (captured output, a small environment, no terminal), or as a real subprocess with
 * the permission grant of the compiled binary (`scripts/grant.ts`). Also stages fixture
 * projects (`tests/fixtures/projects/<name>`) into temporary directories and runs the fake
 * OpenAI server, checking every request body against `tests/chat_request.schema.json`.
 *
 * @module
 */
import { runCli } from "../../lib/cli/main.ts";
import type { Io } from "../../lib/cli/io.ts";
import { signalNumber } from "../../lib/exec/_signals.ts";
import { ENTRY, PERMISSION_FLAGS, UNSTABLE_FLAGS } from "../../scripts/grant.ts";
import { chatRequestErrors } from "../chat_request_schema.ts";
import { type FakeOpenAI, startFakeOpenAI, type Step } from "../fake_openai.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PROJECTS = new URL("../fixtures/projects/", import.meta.url).pathname;

/** How to run the CLI in-process. */
export interface CliOptions {
  /** The directory the user "ran harness from" (`Io.cwd()`). */
  cwd: string;
  /** Extra environment variables (over PATH, HOME and NO_COLOR). */
  env?: Record<string, string>;
  /** Standard input, for `-` or no prompt. */
  stdin?: string;
  /** Which standard streams are terminals (none by default). */
  tty?: Partial<Io["isTerminal"]>;
}

/** What a CLI run left behind. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A fake outside world: captured output, a small environment, no terminal.
 *
 * @param options The directory, environment, stdin and terminals.
 * @returns The `Io` and readers of what was written.
 */
export function fakeIo(options: CliOptions): { io: Io; stdout(): string; stderr(): string } {
  let out = "";
  let err = "";
  const vars: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/",
    NO_COLOR: "1",
    ...options.env,
  };
  const lines = (options.stdin ?? "").split("\n");
  const io: Io = {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    getEnv: (name) => vars[name],
    envObject: () => ({ ...vars }),
    cwd: () => options.cwd,
    isTerminal: { stdin: false, stdout: false, stderr: false, ...options.tty },
    readStdin: () => Promise.resolve(options.stdin ?? ""),
    readLine: () => Promise.resolve(lines.length > 0 ? lines.shift()! : null),
  };
  return { io, stdout: () => out, stderr: () => err };
}

/**
 * Runs `harness ARGS` in-process.
 *
 * @param args The arguments after the program name.
 * @param options The fake outside world.
 * @returns The exit code and the captured output.
 */
export async function runHarness(args: string[], options: CliOptions): Promise<CliResult> {
  const fake = fakeIo(options);
  const code = await runCli(args, fake.io);
  return { code, stdout: fake.stdout(), stderr: fake.stderr() };
}

/** A fixture project copied into a temporary directory. */
export interface StagedProject extends AsyncDisposable {
  /** The temporary root: holds `.git` (ends the config search), `project` and `outside`. */
  root: string;
  /** The project directory (a real path). */
  dir: string;
  /** A directory next to the project with `secret.txt`. */
  outside: string;
  /** The absolute path of a file of the project. */
  path(relative: string): string;
  /** The text of a project file, or `undefined` when it does not exist. */
  read(relative: string): Promise<string | undefined>;
}

/** The text of `outside/secret.txt` in every staged project. */
export const OUTSIDE_SECRET = "outside-secret-7f3a";

/**
 * Copies `tests/fixtures/projects/NAME` into a fresh temporary directory and makes the
 * tool programs executable (git does not keep file modes).
 *
 * @param name The fixture project.
 * @returns The staged project; dispose it to remove everything.
 */
export async function stageProject(name: string): Promise<StagedProject> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: `harness_e2e_${name}_` }));
  await Deno.mkdir(`${root}/.git`);
  await Deno.mkdir(`${root}/outside`);
  await Deno.writeTextFile(`${root}/outside/secret.txt`, OUTSIDE_SECRET);
  const dir = `${root}/project`;
  await copyTree(`${PROJECTS}${name}`, dir);
  return {
    root,
    dir,
    outside: `${root}/outside`,
    path: (relative) => `${dir}/${relative}`,
    read: (relative) => Deno.readTextFile(`${dir}/${relative}`).catch(() => undefined),
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const src = `${from}/${entry.name}`;
    const dst = `${to}/${entry.name}`;
    if (entry.isDirectory) await copyTree(src, dst);
    else if (entry.isFile) {
      await Deno.copyFile(src, dst);
      const program = /\/(\.agents\/tools|tools\/bin)$/.test(from);
      await Deno.chmod(dst, program ? 0o755 : 0o644);
    }
  }
}

/**
 * Starts the fake OpenAI server, runs `fn`, closes the server (which throws on a request
 * beyond the script) and checks every request body against the request schema.
 *
 * @param steps One step per expected request.
 * @param fn The test body.
 * @throws {Error} When a request body does not satisfy `chat_request.schema.json`.
 */
export async function withFakeServer(
  steps: Step[],
  fn: (fake: FakeOpenAI) => Promise<void>,
): Promise<FakeOpenAI> {
  const fake = startFakeOpenAI(steps);
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
  assertValidRequests(fake.requests.map((r) => r.body));
  return fake;
}

/**
 * Checks request bodies against `tests/chat_request.schema.json`.
 *
 * @param bodies Parsed request bodies.
 * @throws {Error} Naming the first body that does not validate.
 */
export function assertValidRequests(bodies: unknown[]): void {
  bodies.forEach((body, i) => {
    const errors = chatRequestErrors(body);
    if (errors.length > 0) {
      throw new Error(`Request ${i + 1} does not satisfy chat_request.schema.json: ${errors}`);
    }
  });
}

/**
 * Parses JSONL text (a `--json` stdout or a transcript).
 *
 * @param text One JSON value per line.
 * @returns The values; throws naming the line that does not parse.
 */
export function parseJsonLines(text: string): Record<string, unknown>[] {
  return text.split("\n").filter((l) => l.trim() !== "").map((line, i) => {
    try {
      return JSON.parse(line);
    } catch (error) {
      throw new Error(`line ${i + 1} is not JSON (${(error as Error).message}): ${line}`);
    }
  });
}

/** A harness process started by {@linkcode spawnHarness}. */
export interface HarnessProcess {
  /** The process. */
  child: Deno.ChildProcess;
  /** Standard output so far. */
  stdout(): string;
  /**
   * Waits until standard output satisfies `test`.
   *
   * @throws {Error} After `timeoutMs`, or when the process ended first.
   */
  waitForStdout(test: (text: string) => boolean, timeoutMs: number): Promise<void>;
  /** Waits for the exit; returns the code (128 + n for signal n) and the output. */
  finished(): Promise<CliResult>;
}

/**
 * Starts `deno run <PERMISSION_FLAGS> main.ts ARGS` as a real process, in the repository
 * root, with a small environment.
 *
 * @param args The harness arguments.
 * @param env Extra environment variables.
 * @returns The running process.
 */
export function spawnHarness(args: string[], env: Record<string, string> = {}): HarnessProcess {
  const base: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) base[name] = value;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSION_FLAGS, ...UNSTABLE_FLAGS, ENTRY, ...args],
    cwd: ROOT,
    clearEnv: true,
    env: { ...base, ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const waiters = new Set<() => void>();
  const decoder = new TextDecoder();
  const pumpOut = (async () => {
    for await (const chunk of child.stdout) {
      out += decoder.decode(chunk, { stream: true });
      for (const wake of waiters) wake();
    }
  })();
  const stderr = new Response(child.stderr).text();
  let ended = false;
  const status = child.status.then((s) => {
    ended = true;
    for (const wake of waiters) wake();
    return s;
  });
  return {
    child,
    stdout: () => out,
    waitForStdout(test, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`timed out waiting; stdout: ${out}`)),
          timeoutMs,
        );
        const finish = (error?: Error) => {
          clearTimeout(timer);
          waiters.delete(check);
          error ? reject(error) : resolve();
        };
        const check = () => {
          if (test(out)) finish();
          else if (ended) finish(new Error(`the process ended first; stdout: ${out}`));
        };
        waiters.add(check);
        check();
      });
    },
    async finished() {
      const s = await status;
      await pumpOut;
      return {
        code: s.signal ? 128 + (signalNumber(s.signal) ?? 0) : s.code,
        stdout: out,
        stderr: await stderr,
      };
    },
  };
}
