/**
 * The Octomind calling convention (`.agents/tools/<name>`), ported from
 * `execute()` in Octomind's `src/mcp/core/local_tool.rs`.
 *
 * - argv is the script's absolute path alone, with no shell; cwd is the project
 *   directory (Octomind's session workdir).
 * - The environment is the tool's environment plus `OCTOMIND_TOOL_NAME`,
 *   `OCTOMIND_WORKDIR` and `OCTOMIND_PARAM_<KEY uppercased>` for every argument,
 *   declared or not: a string as is, `null` as `""`, booleans as `true`/`false`,
 *   numbers as serde_json prints them (`2.0` stays `2.0`), arrays and objects as
 *   compact serde_json.
 * - stdin is `serde_json::to_string(args)`: compact, keys sorted.
 * - Exit 0: stdout verbatim, then `[stderr]` and the trimmed stderr when there is
 *   any. Otherwise an error naming Rust's `ExitStatus`, then `[stderr]` and `[stdout]`.
 *
 * Numbers keep their spelling only when the model's argument text
 * ({@linkcode CallInput.rawArguments}) is given and parses to the same arguments;
 * otherwise integral numbers print as integers.
 *
 * @module
 */
import type { ToolDefinition } from "../../types.ts";
import { rustExitStatus } from "./_exit_status.ts";
import {
  compareCodePoints,
  fromJs,
  parseSerde,
  RawNumber,
  serdeNumberText,
  serdeToString,
  type SerdeValue,
  toJs,
} from "./_serde_json.ts";
import { trimEndUnicode, trimUnicode } from "./_text.ts";
import type {
  CallContext,
  CallInput,
  Prepared,
  ProcessResultLike,
  RenderedResult,
  RenderSpec,
  SpawnErrorLike,
} from "./types.ts";

type ScriptRunner = Extract<ToolDefinition["runner"], { kind: "script" }>;

function scriptRunner(tool: ToolDefinition): ScriptRunner {
  if (tool.runner.kind !== "script") {
    throw new TypeError(
      `Tool "${tool.name}" is not an Octomind tool: its runner is "${tool.runner.kind}"`,
    );
  }
  return tool.runner;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    Object.hasOwn(b, k) &&
    deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
  );
}

/**
 * The arguments as serde_json holds them: parsed from the raw text when it agrees
 * with `args` (so number spellings survive), else converted from `args`.
 */
export function octomindArguments(input: CallInput): { [key: string]: SerdeValue } {
  if (input.rawArguments !== undefined) {
    try {
      const tree = parseSerde(input.rawArguments);
      if (
        tree !== null && typeof tree === "object" && !Array.isArray(tree) &&
        !(tree instanceof RawNumber) && deepEqual(toJs(tree), input.args)
      ) {
        return tree;
      }
    } catch {
      // not JSON: fall back to the parsed arguments
    }
  }
  return fromJs(input.args ?? {}) as { [key: string]: SerdeValue };
}

/** One `OCTOMIND_PARAM_*` value. */
function envValue(v: SerdeValue): string {
  if (typeof v === "string") return v;
  if (v === null) return "";
  if (typeof v === "boolean") return String(v);
  if (v instanceof RawNumber) return serdeNumberText(v.lexeme);
  return serdeToString(v);
}

/**
 * Prepares an Octomind script call.
 *
 * @param tool A tool with a `script` runner (absolute program path).
 * @param input The arguments and, when known, the model's argument text.
 * @param ctx Project directory (cwd and `OCTOMIND_WORKDIR`), the tool's environment, limits.
 * @returns The spec to run and what a dry run shows.
 * @throws {TypeError} When the tool is not an Octomind tool.
 */
export function prepareOctomind(
  tool: ToolDefinition,
  input: CallInput,
  ctx: CallContext,
): Prepared {
  const runner = scriptRunner(tool);
  const args = octomindArguments(input);
  const env: Record<string, string> = {
    ...ctx.env,
    OCTOMIND_TOOL_NAME: tool.name,
    OCTOMIND_WORKDIR: ctx.projectDir,
  };
  // serde_json's map iterates in key order, so of two keys with the same upper case
  // ("a" and "A") the later one in that order wins.
  for (const key of Object.keys(args).sort(compareCodePoints)) {
    env[`OCTOMIND_PARAM_${key.toUpperCase()}`] = envValue(args[key]);
  }
  const stdin = serdeToString(args);
  return {
    spec: {
      program: runner.program,
      args: [],
      cwd: ctx.projectDir,
      env,
      stdin: new TextEncoder().encode(stdin),
      timeoutMs: ctx.timeoutMs,
      maxOutputBytes: ctx.maxOutputBytes,
    },
    display: {
      argv: [runner.program],
      stdin,
      envNames: Object.keys(env).sort(),
      cwd: ctx.projectDir,
    },
  };
}

/** Rust's `io::Error` display for a failed spawn. */
function ioErrorText(error: SpawnErrorLike): string {
  if (error.kind === "not-found") return "No such file or directory (os error 2)";
  if (error.kind === "permission-denied") return "Permission denied (os error 13)";
  return error.message;
}

/** Seconds as Rust's `{}s` prints the whole-second timeout; fractions when not whole. */
function seconds(ms: number): string {
  return String(ms / 1000);
}

/**
 * Renders what the model sees of an Octomind call.
 *
 * @param tool The tool.
 * @param result What the process did.
 * @param spec The prepared spec, so messages name the timeout really used.
 * @returns The content and whether it is an error.
 */
export function renderOctomind(
  tool: ToolDefinition,
  result: ProcessResultLike,
  spec?: RenderSpec,
): RenderedResult {
  const name = tool.name;
  if (result.spawnError !== undefined) {
    const program = spec?.program ?? scriptRunner(tool).program;
    return {
      content: `local tool '${name}' failed: spawn '${program}' failed: ${
        ioErrorText(result.spawnError)
      }`,
      isError: true,
    };
  }
  if (result.timedOut) {
    const secs = seconds(spec?.timeoutMs ?? tool.timeoutMs);
    return {
      content: `local tool '${name}' failed: local tool '${name}' timed out after ${secs}s`,
      isError: true,
    };
  }
  const { stdout, stderr } = result;
  if (result.signal !== null || (result.code ?? 0) !== 0) {
    let msg = `local tool '${name}' exited with status ${
      rustExitStatus(result.code, result.signal)
    }`;
    if (stderr !== "") msg += `\n[stderr]\n${trimEndUnicode(stderr)}`;
    if (stdout !== "") msg += `\n[stdout]\n${trimEndUnicode(stdout)}`;
    return { content: msg, isError: true };
  }
  let content = stdout;
  if (trimUnicode(stderr) !== "") {
    if (content !== "" && !content.endsWith("\n")) content += "\n";
    content += `[stderr]\n${trimEndUnicode(stderr)}`;
  }
  return { content, isError: false };
}
