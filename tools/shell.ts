/**
 * `shell`: runs a program on the local host (Contenox `local_shell`).
 *
 * Arguments: `command` (program name or path), `args` (one string split at white
 * space like Go's `strings.Fields`, no quoting), `cwd` (inside the project, default
 * the project), `timeout` (Go duration such as `"30s"`), `shell` (run via
 * `/bin/sh -c "command args"`). The result is the original's JSON:
 * `{"exit_code","stdout","stderr","success","error"?,"duration_seconds","command"}`,
 * stdout and stderr trimmed, each capped (head and tail kept).
 *
 * Policy (see `_shell_policy.ts` for what the deny list does and does not catch):
 * - As in the original's code, **no allowlist means every call is refused**. Set
 *   `allowedCommands`, `allowedDir`, or the explicit opt-in `allowAnyCommand: true`.
 * - `shell: true` is refused when `allowedCommands` or `allowedDir` is set.
 * - `deniedCommands` is checked first and wins; it defaults to
 *   {@linkcode DEFAULT_DENIED_COMMANDS} and a configured list replaces the default.
 *
 * Enforcement by Deno: with `allowedCommands` (and no `allowedDir`) the Worker's `run`
 * permission is exactly that list and the program is spawned directly. With
 * `allowedDir` or `allowAnyCommand`, a Worker cannot be given "any program" or "a
 * directory of programs" without widening, so its `run` permission is `/bin/sh` alone
 * and the program is started as `/bin/sh -c 'exec "$0" "$@"' program args…` (no shell
 * parsing); the policy check above is then the only program check at this layer.
 *
 * The child gets only the variables named by `envPassthrough` (never the harness's
 * API key), in its own process group. On timeout or cancel it gets SIGTERM, then
 * SIGKILL; killing the whole group needs unrestricted `--allow-run`, which the Worker
 * does not have, so only the direct child is killed and the result notes that its own
 * children may survive. Output readers are released after a short grace, so the call
 * never hangs on a grandchild holding the pipe.
 *
 * @module
 */
import { runProcess } from "../lib/exec/process.ts";
import { join, normalize, resolveInProject } from "./_paths.ts";
import {
  checkCommand,
  DEFAULT_DENIED_COMMANDS,
  launchMode,
  parseDuration,
  type ShellPolicy,
  splitArgs,
} from "./_shell_policy.ts";
import {
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  fail,
  isResult,
  ok,
  optionalStringArg,
  positiveIntOption,
  stringArg,
  stringListOption,
} from "./_types.ts";

export { DEFAULT_DENIED_COMMANDS } from "./_shell_policy.ts";

/** Default timeout of one call (30 s). */
export const SHELL_DEFAULT_TIMEOUT_MS = 30_000;
/** Default upper bound of the `timeout` argument (10 min). */
export const SHELL_DEFAULT_MAX_TIMEOUT_MS = 600_000;
/** Default cap of stdout and of stderr, each (100 KiB; the first and last halves are kept). */
export const SHELL_DEFAULT_MAX_OUTPUT_BYTES = 100 * 1024;
/** Environment variables passed to the child when `envPassthrough` is not set. */
export const SHELL_DEFAULT_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LANG",
  "LC_ALL",
  "TZ",
  "TERM",
  "TMPDIR",
];
/** PATH of the child when PATH is not passed through. */
export const SHELL_FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin";
/** The shell used for `shell: true` and for starting programs by path. */
export const SHELL_PROGRAM = "/bin/sh";

const stringList = { type: "array", items: { type: "string", minLength: 1 } };

/** The `shell` built-in tool. */
export const shellTool: BuiltinTool = {
  name: "shell",
  description:
    "Run a terminal command in the project. command is the program; args is one string split at spaces (no quoting). Set shell to true to run via /bin/sh -c for pipes, redirects and $VAR (refused when an allowlist is configured). Returns JSON with exit_code, stdout, stderr.",
  parameters: {
    type: "object",
    properties: {
      command: { type: "string", description: "Executable path or name" },
      args: { type: "string", description: "Space-separated arguments" },
      cwd: { type: "string", description: "Working directory, relative to the project root" },
      timeout: { type: "string", description: 'Duration, e.g. "30s" (default 30s)' },
      shell: {
        type: "boolean",
        description:
          "Run via /bin/sh -c (pipes, redirects, $VAR, wildcards). Default false. Refused when an allowlist is configured.",
      },
    },
    required: ["command"],
    additionalProperties: false,
  },
  approval: "always",
  readOnly: false,
  optionsSchema: {
    type: "object",
    properties: {
      allowedCommands: {
        ...stringList,
        description: "Commands that may run, compared with the command string exactly.",
      },
      deniedCommands: {
        ...stringList,
        description: "Commands always refused (by base name); replaces the default list.",
      },
      allowedDir: {
        type: "string",
        minLength: 1,
        description: "Programs must reside in this directory (relative to the project).",
      },
      allowAnyCommand: {
        type: "boolean",
        description: "Allow any command when there is no allowlist. Default false.",
      },
      timeoutMs: { type: "integer", minimum: 1, description: "Default timeout. Default 30000." },
      maxTimeoutMs: {
        type: "integer",
        minimum: 1,
        description: "Upper bound of the timeout argument. Default 600000.",
      },
      maxOutputBytes: {
        type: "integer",
        minimum: 1,
        description: "Cap of stdout and of stderr, each. Default 102400.",
      },
      envPassthrough: { ...stringList, description: "Variables passed to the command." },
    },
    additionalProperties: false,
  },
  permissions: ({ projectDir, options }) => {
    const policy = readPolicy(projectDir, options);
    const read = [projectDir];
    if (policy.allowedDir !== undefined && policy.allowedDir !== projectDir) {
      read.push(policy.allowedDir);
    }
    const direct = launchMode(policy, false) === "direct";
    const run = direct
      ? policy.allowedCommands.map((c) => absoluteCommand(projectDir, c))
      : launchMode(policy, false) === undefined
      ? []
      : [SHELL_PROGRAM];
    return {
      read,
      env: stringListOption(options, "envPassthrough") ?? [...SHELL_DEFAULT_ENV],
      run,
    };
  },
  execute: shell,
};

function readPolicy(projectDir: string, options: Record<string, unknown>): ShellPolicy {
  const dir = typeof options.allowedDir === "string" && options.allowedDir !== ""
    ? normalize(
      options.allowedDir.startsWith("/")
        ? options.allowedDir
        : join(projectDir, options.allowedDir),
    )
    : undefined;
  return {
    allowedCommands: stringListOption(options, "allowedCommands") ?? [],
    deniedCommands: stringListOption(options, "deniedCommands") ?? [...DEFAULT_DENIED_COMMANDS],
    allowedDir: dir,
    allowAnyCommand: options.allowAnyCommand === true,
  };
}

/** A relative command path (one with a `/`) is relative to the project. */
function absoluteCommand(projectDir: string, command: string): string {
  return command.includes("/") && !command.startsWith("/") ? join(projectDir, command) : command;
}

async function shell(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult> {
  const command = stringArg(args, "command");
  if (isResult(command)) return command;
  const argText = optionalStringArg(args, "args");
  if (isResult(argText)) return argText;
  const cwdArg = optionalStringArg(args, "cwd");
  if (isResult(cwdArg)) return cwdArg;
  const timeoutArg = optionalStringArg(args, "timeout");
  if (isResult(timeoutArg)) return timeoutArg;
  const useShell = args.shell === true;
  if (command.trim() === "") return fail(`Command is empty: name the program to run`);
  if (command.includes("\0")) return fail(`Command contains a NUL byte`);
  if (command.startsWith("-")) {
    return fail(`Command "${command}" starts with "-": name a program, and put options in "args"`);
  }

  const policy = readPolicy(ctx.projectDir, ctx.options);
  const argv = splitArgs(argText);
  const refusal = checkCommand(policy, command, argv, useShell);
  if (refusal !== undefined) return fail(refusal);
  const mode = launchMode(policy, useShell);
  if (mode === undefined) return fail(`The shell tool has no allowlist: see its options`);

  let program = absoluteCommand(ctx.projectDir, command);
  if (policy.allowedDir !== undefined) {
    const inDir = await programInDir(ctx.projectDir, policy.allowedDir, command);
    if (typeof inDir !== "string") return inDir;
    program = inDir;
  }

  let cwd = ctx.projectDir;
  if (cwdArg !== undefined && cwdArg !== "") {
    const dir = await resolveInProject(ctx.projectDir, cwdArg, { mustExist: true });
    if (!dir.ok) return fail(dir.message);
    cwd = dir.path;
  }

  const notes: string[] = [];
  const maxTimeout = positiveIntOption(ctx.options, "maxTimeoutMs", SHELL_DEFAULT_MAX_TIMEOUT_MS);
  let timeoutMs = positiveIntOption(ctx.options, "timeoutMs", SHELL_DEFAULT_TIMEOUT_MS);
  if (timeoutArg !== undefined && timeoutArg !== "") {
    const parsed = parseDuration(timeoutArg);
    if (parsed === undefined || parsed <= 0) {
      return fail(`Timeout "${timeoutArg}" is not a duration: write e.g. "30s", "2m" or "500ms"`);
    }
    timeoutMs = Math.ceil(parsed);
    if (timeoutMs > maxTimeout) {
      notes.push(`timeout limited to ${maxTimeout} ms by "maxTimeoutMs"`);
      timeoutMs = maxTimeout;
    }
  }

  const spawnArgs = mode === "direct"
    ? argv
    : mode === "exec"
    ? ["-c", 'exec "$0" "$@"', program, ...argv]
    : ["-c", [command, ...argv].join(" ")];
  const result = await runProcess({
    program: mode === "direct" ? program : SHELL_PROGRAM,
    args: spawnArgs,
    cwd,
    env: childEnv(ctx.options),
    stdin: "null",
    timeoutMs,
    maxOutputBytes: positiveIntOption(
      ctx.options,
      "maxOutputBytes",
      SHELL_DEFAULT_MAX_OUTPUT_BYTES,
    ),
  }, { signal: ctx.signal });

  if (result.spawnError !== undefined) {
    return fail(
      result.spawnError.kind === "not-capable"
        ? `Cannot start "${command}": the shell tool's Worker may not run it: add it to "allowedCommands"`
        : result.spawnError.message,
    );
  }
  const error = result.timedOut
    ? `timed out after ${timeoutMs} ms and was killed`
    : result.aborted
    ? "cancelled"
    : result.signal !== null
    ? `killed by signal ${result.signal}`
    : result.code !== 0
    ? `exit status ${result.code}`
    : undefined;
  const success = error === undefined;
  const out: Record<string, unknown> = {
    exit_code: result.code ?? -1,
    stdout: result.stdout.trim(),
    stderr: result.stderr.trim(),
    success,
  };
  if (error !== undefined) out.error = error;
  out.duration_seconds = Math.round(result.durationMs) / 1000;
  out.command = command;
  notes.push(...result.notes);
  if (notes.length > 0) out.notes = notes;
  const text = JSON.stringify(out);
  return success ? ok(text) : fail(text);
}

/** The real path of `command` when it resides in `allowedDir`, else a failed result. */
async function programInDir(
  projectDir: string,
  allowedDir: string,
  command: string,
): Promise<string | BuiltinResult> {
  const candidate = command.startsWith("/")
    ? normalize(command)
    : command.includes("/")
    ? join(projectDir, command)
    : join(allowedDir, command);
  let real: string;
  let realDir: string;
  try {
    realDir = await Deno.realPath(allowedDir);
    real = await Deno.realPath(candidate);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return fail(`Command "${command}" does not exist in "${allowedDir}": list the directory`);
    }
    return fail(`Command "${command}" is not under the allowed directory "${allowedDir}"`);
  }
  if (!real.startsWith(`${realDir}/`)) {
    return fail(
      `Command "${command}" is not under the allowed directory "${allowedDir}": use a program from that directory`,
    );
  }
  return real;
}

/** The child's environment: the passed-through variables that are set, and a PATH. */
function childEnv(options: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of stringListOption(options, "envPassthrough") ?? SHELL_DEFAULT_ENV) {
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    } catch {
      // Not readable in this Worker: not passed.
    }
  }
  env.PATH ??= SHELL_FALLBACK_PATH;
  return env;
}
