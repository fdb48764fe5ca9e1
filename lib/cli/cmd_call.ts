/**
 * `harness tools call NAME [--args JSON | --args-file FILE | -] [--json] [--dry-run]`.
 *
 * Runs one tool through the same call path the chat loop uses. The call is an
 * explicit user action, so the approval policy approves it; scope and sandbox apply.
 *
 * @module
 */
import { type ParseError, parseTree } from "../_jsonc.ts";
import { locate } from "../config/_positions.ts";
import { resolvePath } from "../_path.ts";
import { ExitCode, UsageError } from "../errors.ts";
import type { ApprovalPolicy, CallResult } from "../exec/call_types.ts";
import { SECRET_NAME } from "../exec/call.ts";
import type { CommandContext } from "./context.ts";
import { findTool } from "./cmd_tools.ts";
import { openSession } from "./session.ts";

/** Options of `tools call`. */
export interface CallOptions {
  args?: string;
  argsFile?: string;
  json?: boolean;
  dryRun?: boolean;
}

/** `tools call` is the user's own decision: it is approved, and says so. */
export const userApproves: ApprovalPolicy = (tool) =>
  Promise.resolve({
    approved: true,
    by: "user",
    reason: `harness tools call ${tool.name} is an explicit user action`,
  });

/**
 * Reads the argument text from `--args`, `--args-file` or `-` (stdin).
 *
 * @throws {UsageError} When more than one source is given or the file cannot be read.
 */
export async function readArgumentText(
  ctx: CommandContext,
  stdinDash: boolean,
  opts: CallOptions,
): Promise<{ text: string; origin: string }> {
  const given =
    [opts.args !== undefined, opts.argsFile !== undefined, stdinDash].filter(Boolean).length;
  if (given > 1) throw new UsageError("Give the arguments once: --args, --args-file or - (stdin)");
  if (opts.args !== undefined) return { text: opts.args, origin: "--args" };
  if (opts.argsFile !== undefined) {
    try {
      // Relative to where the user ran harness (under `deno task` that is not Deno.cwd()).
      const file = resolvePath(ctx.io.cwd(), opts.argsFile);
      return { text: await Deno.readTextFile(file), origin: opts.argsFile };
    } catch (error) {
      throw new UsageError(
        `Cannot read the arguments file "${opts.argsFile}": ${(error as Error).message}`,
      );
    }
  }
  if (stdinDash) return { text: await ctx.io.readStdin(), origin: "stdin" };
  return { text: "{}", origin: "default" };
}

/**
 * Parses argument text as a JSON object.
 *
 * @throws {UsageError} With line and column of a syntax error.
 */
export function parseArguments(text: string, origin: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const offset = jsonErrorOffset(text, message);
    const where = offset === undefined
      ? ""
      : (({ line, column }) => ` at line ${line}, column ${column}`)(locate(text, offset));
    throw new UsageError(
      `Arguments from ${origin} are not valid JSON${where}: ${jsonErrorDetail(message)}`,
      {
        hint: `pass a JSON object, e.g. --args '{"message":"hi"}'`,
      },
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new UsageError(
      `Arguments from ${origin} must be a JSON object, got ${JSON.stringify(value)}`,
      {
        hint: `pass a JSON object, e.g. --args '{"message":"hi"}'`,
      },
    );
  }
  return value as Record<string, unknown>;
}

/**
 * Where `JSON.parse` failed: the position in V8's message, or else (V8 leaves it out for
 * an unexpected token or the end of the input) the first error a strict JSON scan finds.
 */
function jsonErrorOffset(text: string, message: string): number | undefined {
  const m = /position (\d+)/.exec(message);
  if (m) return Number(m[1]);
  const errors: ParseError[] = [];
  parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  return errors[0]?.offset;
}

/** V8's message without the position (said as line and column) or a copy of the input. */
function jsonErrorDetail(message: string): string {
  return message.replace(/ (?:in JSON )?at position \d+(?: \(line \d+ column \d+\))?/, "")
    .replace(/, "[\s\S]*" is not valid JSON$/, "");
}

/** Builds the `tools call` action. */
export function callCommand(name: string, dash: string | undefined, opts: CallOptions) {
  return async (ctx: CommandContext): Promise<void> => {
    if (dash !== undefined && dash !== "-") {
      throw new UsageError(`Unexpected argument "${dash}"`, {
        hint: "use --args JSON, --args-file FILE or - to read stdin",
      });
    }
    const { text, origin } = await readArgumentText(ctx, dash === "-", opts);
    const args = parseArguments(text, origin);
    const session = await openSession(ctx, userApproves);
    try {
      findTool(session.current(), name);
      if (opts.dryRun) {
        const plan = await session.calls.dryRun({ name, args, rawArguments: text });
        const masked = plan.envNames.map((n) => (SECRET_NAME.test(n) ? `${n}=***` : n));
        if (opts.json) {
          ctx.io.out(JSON.stringify({ ...plan, envNames: masked }, null, 2) + "\n");
        } else {
          const lines = [
            `tool:   ${plan.tool} (${plan.format})`,
            `argv:   ${JSON.stringify(plan.argv)}`,
            `cwd:    ${plan.cwd}`,
            `stdin:  ${plan.stdin === "" ? "(none: /dev/null)" : JSON.stringify(plan.stdin)}`,
            `env:    ${masked.join(" ") || "(none)"}`,
            `scope:  ${JSON.stringify(plan.scope.scope)}`,
            ...plan.scope.notes.map((n) => `        ${n}`),
            ...plan.confinement.layers.map((l) =>
              `layer:  ${l.kind} ${l.entry}: ${l.enforcedBy.join("+") || "NOT ENFORCED"}${
                l.note ? ` (${l.note})` : ""
              }`
            ),
            ...(plan.confinement.refused ? [`refused: ${plan.confinement.refused}`] : []),
          ];
          if (plan.script !== undefined) {
            lines.push(
              "script:",
              ...plan.script.split("\n").map((l) => `  ${l}`),
            );
          }
          ctx.io.out(lines.join("\n") + "\n");
        }
        // The plan is shown either way; the exit code says the call would be refused.
        if (plan.confinement.refused) ctx.setExitCode(ExitCode.Denied);
        return;
      }
      const result = await session.calls.call({ name, args, rawArguments: text });
      for (const w of result.warnings) ctx.io.err(`${ctx.err.yellow("warning")}: ${w}\n`);
      if (opts.json) {
        ctx.io.out(JSON.stringify(jsonResult(result)) + "\n");
      } else {
        ctx.io.out(
          result.content.endsWith("\n") || result.content === ""
            ? result.content
            : result.content + "\n",
        );
        if (result.denied) {
          ctx.io.err(
            `${ctx.err.red("denied")}: ${result.denied.reason}${
              result.denied.hint ? `\n${ctx.err.dim("hint")}: ${result.denied.hint}` : ""
            }\n`,
          );
        }
      }
      ctx.setExitCode(exitCodeOf(result));
    } finally {
      await session.close();
    }
  };
}

/** The `--json` shape of a call result. */
export function jsonResult(r: CallResult): Record<string, unknown> {
  return {
    ok: r.ok,
    content: r.content,
    exitCode: r.exitCode,
    signal: r.signal,
    timedOut: r.timedOut,
    truncated: r.truncated,
    durationMs: r.durationMs,
  };
}

/** The exit code of `tools call` for a result. */
export function exitCodeOf(r: CallResult): number {
  if (r.ok) return ExitCode.Ok;
  switch (r.failure) {
    case "unknown-tool":
    case "invalid-arguments":
      return ExitCode.Usage;
    case "denied":
    case "refused":
      return ExitCode.Denied;
    default:
      return ExitCode.Failed;
  }
}
