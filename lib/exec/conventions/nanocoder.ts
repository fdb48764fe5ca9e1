/**
 * The Nanocoder calling convention (`.nanocoder/tools/*.md`), ported from
 * Nanocoder's `custom-tools/handler.ts` and `utils/truncate-tool-result.ts`.
 *
 * - The body is rendered with the raw arguments and run as `[shell, "-c", script]`;
 *   stdin is /dev/null and no argument reaches the environment.
 * - The shell is `/bin/bash` (`shell: bash`), `/bin/sh` (`shell: sh`), or by default
 *   `/bin/bash` when it exists, else `/bin/sh`. (Nanocoder uses `%ComSpec%` on
 *   Windows; harness does not.)
 * - cwd is the `cwd` value after `$VAR`/`${VAR}`/`${VAR:-default}` expansion,
 *   resolved against the project directory; when that path does not exist the
 *   project directory is used, silently. Preparing therefore stats the path (through
 *   {@linkcode CallContext.exists}).
 * - The environment is the tool's environment plus the expanded `env` entries
 *   (entries see only the tool's environment, not each other).
 * - The result is `EXIT_CODE: <code>` and the output, cut to 2000 characters. A
 *   non-zero exit is a normal result. A shell killed by a signal has no exit code,
 *   and the original then prints `EXIT_CODE: 0`: kept, as the model of the original
 *   sees it.
 *
 * @module
 */
import type { ToolDefinition } from "../../types.ts";
import { resolvePath } from "../../_path.ts";
import { renderTemplate } from "../../tools/template.ts";
import type {
  CallContext,
  CallInput,
  Prepared,
  ProcessResultLike,
  RenderedResult,
  RenderSpec,
} from "./types.ts";

/** Nanocoder's `TRUNCATION_OUTPUT_LIMIT`: what a custom tool returns is cut to this. */
export const NANOCODER_OUTPUT_LIMIT_CHARS = 2000;
/** Share of the kept characters taken from the head of the output. */
const HEAD_SHARE = 0.4;
/** prompt-scrub placeholder tokens, which a cut must not split. */
const PLACEHOLDER = /«[A-Za-z]+_\d+»/g;
/** `$VAR`, `${VAR}` and `${VAR:-default}`, as the original expands them. */
const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

type TemplateRunner = Extract<ToolDefinition["runner"], { kind: "template" }>;

function templateRunner(tool: ToolDefinition): TemplateRunner {
  if (tool.runner.kind !== "template") {
    throw new TypeError(
      `Tool "${tool.name}" is not a Nanocoder tool: its runner is "${tool.runner.kind}"`,
    );
  }
  return tool.runner;
}

/** Whether a path exists, as Node's `existsSync` (any error means no). */
function defaultExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Expands `$VAR`, `${VAR}` and `${VAR:-default}` from `env`. An unset variable
 * without a default becomes `""`; a set but empty one stays empty (unlike the
 * shell, the default applies only when the variable is unset).
 *
 * @param value The text to expand.
 * @param env Where variables are looked up.
 * @returns The expanded text.
 */
export function expandVars(value: string, env: Record<string, string>): string {
  return value.replace(ENV_REF, (_m, braced?: string, def?: string, bare?: string) => {
    const name = (braced ?? bare)!;
    const v = Object.hasOwn(env, name) ? env[name] : undefined;
    return v ?? def ?? "";
  });
}

/**
 * The shell a template runs in.
 *
 * @param shell The front-matter `shell`.
 * @param bashExists Whether `/bin/bash` exists.
 * @returns `/bin/bash` or `/bin/sh`.
 */
export function pickShell(shell: "bash" | "sh" | undefined, bashExists: boolean): string {
  if (shell === "bash") return "/bin/bash";
  if (shell === "sh") return "/bin/sh";
  return bashExists ? "/bin/bash" : "/bin/sh";
}

/**
 * The working directory of a template tool (Nanocoder's `resolveCwd`).
 *
 * @param configured The front-matter `cwd`, before expansion.
 * @param ctx Project directory, environment and the `exists` probe.
 * @returns An absolute path: the expanded `cwd` when it exists, else the project directory.
 */
export function resolveCwd(
  configured: string | undefined,
  ctx: Pick<CallContext, "projectDir" | "env" | "exists">,
): string {
  if (!configured) return ctx.projectDir;
  const expanded = expandVars(configured, ctx.env);
  // As node:path on POSIX: an absolute cwd is kept as written, a relative one resolved.
  const absolute = expanded.startsWith("/")
    ? expanded
    : resolvePath(ctx.projectDir, `./${expanded}`);
  return (ctx.exists ?? defaultExists)(absolute) ? absolute : ctx.projectDir;
}

/**
 * Prepares a Nanocoder template call.
 *
 * @param tool A tool with a `template` runner.
 * @param input The raw arguments (defaults not applied).
 * @param ctx Project directory, the tool's environment, limits.
 * @returns The spec to run, the rendered script and what a dry run shows.
 * @throws {TypeError} When the tool is not a template tool.
 */
export function prepareNanocoder(
  tool: ToolDefinition,
  input: CallInput,
  ctx: CallContext,
): Prepared {
  const runner = templateRunner(tool);
  const script = renderTemplate(runner.body, input.args ?? {});
  const bash = ctx.shells?.bash ?? defaultExists("/bin/bash");
  const program = pickShell(runner.shell, bash);
  const env: Record<string, string> = { ...ctx.env };
  for (const [k, v] of Object.entries(runner.env ?? {})) {
    Object.defineProperty(env, k, {
      value: expandVars(v, ctx.env),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const cwd = resolveCwd(runner.cwd, ctx);
  return {
    spec: {
      program,
      args: ["-c", script],
      cwd,
      env,
      stdin: "null",
      timeoutMs: ctx.timeoutMs,
      maxOutputBytes: ctx.maxOutputBytes,
    },
    script,
    display: { argv: [program, "-c", script], stdin: "", envNames: Object.keys(env).sort(), cwd },
  };
}

/** The output block (`formatScriptOutput`): `EXIT_CODE: <code ?? 0>` and the streams. */
function formatScriptOutput(code: number | null, stdout: string, stderr: string): string {
  const prefix = `EXIT_CODE: ${code ?? 0}\n`;
  const out = stdout.trimEnd();
  const err = stderr.trimEnd();
  return err ? `${prefix}STDERR:\n${err}\nSTDOUT:\n${out}` : `${prefix}${out}`;
}

/** Moves a cut that falls strictly inside a «Category_N» token to the token's edge. */
function snapOutsidePlaceholder(content: string, index: number, bias: "before" | "after"): number {
  for (const m of content.matchAll(PLACEHOLDER)) {
    const start = m.index;
    const end = start + m[0].length;
    if (index > start && index < end) return bias === "before" ? start : end;
    if (start > index) break;
  }
  return index;
}

/**
 * Nanocoder's `truncateToolResult`: keeps 40% of the budget from the head and the
 * rest from the tail around a marker that says how long the text was. The budget is
 * `maxLength` minus the marker's length; lengths are UTF-16 code units.
 *
 * @param content The text.
 * @param maxLength The maximum length of the result.
 * @returns `content` when it fits, else the cut text (exactly `maxLength` long
 *   unless a cut moved out of a placeholder token).
 */
export function truncateToolResult(content: string, maxLength: number): string {
  if (content.length <= maxLength) return content;
  if (maxLength <= 0) return "";
  const marker =
    `\n... [Output truncated: ${content.length} characters total; request a narrower result to inspect omitted content] ...\n`;
  const budget = maxLength - marker.length;
  if (budget <= 0) return marker.slice(0, maxLength);
  const headLength = Math.floor(budget * HEAD_SHARE);
  const tailLength = budget - headLength;
  const headEnd = snapOutsidePlaceholder(content, headLength, "before");
  const tailStart = Math.max(
    headEnd,
    snapOutsidePlaceholder(content, content.length - tailLength, "after"),
  );
  return content.slice(0, headEnd) + marker + content.slice(tailStart);
}

/** Node's error code for a spawn failure, as in `spawn /bin/bash ENOENT`. */
function nodeSpawnMessage(program: string, error: NonNullable<ProcessResultLike["spawnError"]>) {
  if (error.kind === "not-found") return `spawn ${program} ENOENT`;
  if (error.kind === "permission-denied") return `spawn ${program} EACCES`;
  return error.message;
}

/**
 * Renders what the model sees of a Nanocoder call.
 *
 * @param tool The tool.
 * @param result What the process did.
 * @param spec The prepared spec, so messages name the shell and timeout really used.
 * @returns `EXIT_CODE: …` text (never an error for a non-zero exit), or an error for
 *   a timeout or a spawn failure.
 */
export function renderNanocoder(
  tool: ToolDefinition,
  result: ProcessResultLike,
  spec?: RenderSpec,
): RenderedResult {
  const runner = templateRunner(tool);
  if (result.spawnError !== undefined) {
    const program = spec?.program ?? pickShell(runner.shell, defaultExists("/bin/bash"));
    return {
      content: `Error: Custom tool failed to start: ${
        nodeSpawnMessage(program, result.spawnError)
      }`,
      isError: true,
    };
  }
  if (result.timedOut) {
    const ms = spec?.timeoutMs ?? tool.timeoutMs;
    return { content: `Error: Custom tool timed out after ${ms}ms`, isError: true };
  }
  const code = result.signal !== null ? null : result.code;
  const text = formatScriptOutput(code, result.stdout, result.stderr);
  return { content: truncateToolResult(text, NANOCODER_OUTPUT_LIMIT_CHARS), isError: false };
}
