/**
 * The agentcli calling convention (`tools.json`), ported from goagent's
 * `RunToolWithJSON` (`internal/tools/runner.go`), `appendToolCallOutputs`
 * (`cmd/agentcli/tools_exec.go`) and `sanitizeToolContent`/`oneLine`.
 *
 * - argv is the manifest `command`, with no shell.
 * - stdin is the model's argument text, `TrimSpace`d (`{}` when empty), verbatim.
 * - The environment is scrubbed: `PATH` and `HOME` when non-empty, plus each
 *   `envPassthrough` name the tool's environment has (even when empty).
 * - cwd: agentcli leaves it alone (the agent's own cwd); harness runs the tool in
 *   the project directory.
 * - Success: the trimmed stdout on one line (`{}` when empty). Failure:
 *   `{"error": msg}` as Go's `json.Marshal` writes it, on one line.
 *
 * Not copied: the original's races between `cmd.Wait()` and its pipe readers (a
 * tool that exits without reading stdin could get `write stdin: broken pipe`, and
 * output could be lost); the process layer drains both streams before it waits.
 *
 * @module
 */
import type { ToolDefinition } from "../../types.ts";
import { goExitStatus } from "./_exit_status.ts";
import { joinFields, trimUnicode, utf8Prefix } from "./_text.ts";
import type {
  CallContext,
  CallInput,
  Prepared,
  ProcessResultLike,
  RenderedResult,
  RenderSpec,
  SpawnErrorLike,
} from "./types.ts";

/** `sanitizeToolContent`'s cap on an error message, in bytes. */
export const AGENTCLI_ERROR_MAX_BYTES = 1000;

type ArgvRunner = Extract<ToolDefinition["runner"], { kind: "argv" }>;

function argvRunner(tool: ToolDefinition): ArgvRunner {
  if (tool.runner.kind !== "argv") {
    throw new TypeError(
      `Tool "${tool.name}" is not an agentcli tool: its runner is "${tool.runner.kind}"`,
    );
  }
  if (tool.runner.argv.length === 0) {
    throw new TypeError(`Tool "${tool.name}" has an empty command`);
  }
  return tool.runner;
}

/**
 * agentcli's `oneLine`: `\n` and `\t` become spaces and every run of Unicode
 * white space becomes one space (also inside JSON strings); the ends are trimmed.
 */
export function oneLine(s: string): string {
  return joinFields(s.replaceAll("\n", " ").replaceAll("\t", " "));
}

/**
 * A string as Go's `encoding/json` writes it (HTML escaping on): `<`, `>`, `&`,
 * U+2028 and U+2029 become `\u003c`… escapes, controls become `\b \f \n \r \t` or
 * `\u00xx`, and each byte that is not valid UTF-8 becomes the six characters
 * `\ufffd`.
 *
 * @param bytes The string's bytes (Go strings are bytes).
 * @returns The quoted JSON string.
 */
export function goJsonString(bytes: Uint8Array): string {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  let out = '"';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      const c = String.fromCharCode(b);
      if (c === '"' || c === "\\") out += `\\${c}`;
      else if (c === "\b") out += "\\b";
      else if (c === "\f") out += "\\f";
      else if (c === "\n") out += "\\n";
      else if (c === "\r") out += "\\r";
      else if (c === "\t") out += "\\t";
      else if (b < 0x20 || c === "<" || c === ">" || c === "&") {
        out += `\\u00${b.toString(16).padStart(2, "0")}`;
      } else out += c;
      i++;
      continue;
    }
    const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    let ch: string | undefined;
    if (size > 1 && i + size <= bytes.length) {
      try {
        ch = decoder.decode(bytes.subarray(i, i + size));
      } catch {
        ch = undefined;
      }
    }
    if (ch === undefined || b > 0xf4 || b === 0xc0 || b === 0xc1) {
      out += "\\ufffd";
      i++;
    } else {
      out += ch === "\u2028" ? "\\u2028" : ch === "\u2029" ? "\\u2029" : ch;
      i += size;
    }
  }
  return out + '"';
}

/**
 * `sanitizeToolContent` for an error: `{"error": msg}` with `msg` cut to 1000
 * bytes (a cut inside a character leaves invalid bytes, which Go writes as
 * `\ufffd`), then `oneLine`.
 */
export function agentcliError(msg: string): string {
  const bytes = utf8Prefix(msg, AGENTCLI_ERROR_MAX_BYTES);
  return oneLine(`{"error":${goJsonString(bytes)}}`);
}

/**
 * Prepares an agentcli call.
 *
 * @param tool A tool with an `argv` runner.
 * @param input The arguments and, when known, the model's argument text.
 * @param ctx Project directory (the cwd), the tool's environment, limits.
 * @returns The spec to run and what a dry run shows.
 * @throws {TypeError} When the tool is not an agentcli tool or its command is empty.
 */
export function prepareAgentcli(
  tool: ToolDefinition,
  input: CallInput,
  ctx: CallContext,
): Prepared {
  const runner = argvRunner(tool);
  let stdin = input.rawArguments !== undefined
    ? trimUnicode(input.rawArguments)
    : JSON.stringify(input.args ?? {});
  if (stdin === "") stdin = "{}";
  const env: Record<string, string> = {};
  const set = (k: string, v: string) =>
    Object.defineProperty(env, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  for (const k of ["PATH", "HOME"]) {
    if (Object.hasOwn(ctx.env, k) && ctx.env[k] !== "") set(k, ctx.env[k]);
  }
  for (const k of runner.envPassthrough) {
    if (Object.hasOwn(ctx.env, k)) set(k, ctx.env[k]);
  }
  const [program, ...args] = runner.argv;
  return {
    spec: {
      program,
      args,
      cwd: ctx.projectDir,
      env,
      stdin: new TextEncoder().encode(stdin),
      timeoutMs: ctx.timeoutMs,
      maxOutputBytes: ctx.maxOutputBytes,
    },
    display: {
      argv: [...runner.argv],
      stdin,
      envNames: Object.keys(env).sort(),
      cwd: ctx.projectDir,
    },
  };
}

/** Go's `cmd.Start()` error text, after `start: `. */
function goStartError(program: string, error: SpawnErrorLike): string {
  if (error.kind === "not-found" && !program.includes("/")) {
    return `exec: "${program}": executable file not found in $PATH`;
  }
  if (error.kind === "not-found") return `fork/exec ${program}: no such file or directory`;
  if (error.kind === "permission-denied") return `fork/exec ${program}: permission denied`;
  return error.message;
}

/**
 * Renders what the model sees of an agentcli call.
 *
 * @param tool The tool.
 * @param result What the process did.
 * @param spec The prepared spec, so messages name the program really started.
 * @returns One line: the tool's stdout, or `{"error":…}` with `isError`.
 */
export function renderAgentcli(
  tool: ToolDefinition,
  result: ProcessResultLike,
  spec?: RenderSpec,
): RenderedResult {
  const runner = argvRunner(tool);
  if (result.spawnError !== undefined) {
    const program = spec?.program ?? runner.argv[0];
    const msg = `start: ${goStartError(program, result.spawnError)}`;
    return { content: agentcliError(msg), isError: true };
  }
  if (result.timedOut) return { content: agentcliError("tool timed out"), isError: true };
  if (result.signal !== null || (result.code ?? 0) !== 0) {
    const msg = result.stderr !== "" ? result.stderr : goExitStatus(result.code, result.signal);
    return { content: agentcliError(msg), isError: true };
  }
  const trimmed = trimUnicode(result.stdout);
  return { content: trimmed === "" ? "{}" : oneLine(trimmed), isError: false };
}
