/**
 * The command line: runs a command and maps errors to the documented exit codes.
 * A plain `harness run` command line takes a fast path (`fast_argv.ts`) that never
 * loads commander; every other command line goes through the commander program
 * (`program.ts`), loaded on demand.
 *
 * @module
 */
import meta from "../../deno.json" with { type: "json" };
import { ExitCode, HarnessError } from "../errors.ts";
import { makeContext } from "./context.ts";
import { parseRunFast, type RunInvocation } from "./fast_argv.ts";
import { type Io, processIo } from "./io.ts";
import { makeStyle, wantColor } from "./style.ts";

/** The version of harness. */
export const VERSION: string = meta.version;

/**
 * Runs the CLI.
 *
 * @param args The arguments after the program name.
 * @param io The outside world (the real process by default).
 * @returns The exit code.
 */
export async function runCli(args: string[], io: Io = processIo()): Promise<number> {
  let exitCode: number = ExitCode.Ok;
  const setExitCode = (code: number) => (exitCode = code);
  try {
    const fast = parseRunFast(args);
    if (fast !== undefined) {
      await startRun(fast, io, setExitCode);
    } else {
      const { runProgram } = await import("./program.ts");
      const ended = await runProgram(args, io, setExitCode);
      if (ended !== undefined) return ended;
    }
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}

/**
 * Runs `harness run` once its command line is parsed, by either parser.
 *
 * @param inv The parsed command line.
 * @param io The outside world.
 * @param setExitCode Receives the exit code the run chose.
 */
export async function startRun(
  inv: RunInvocation,
  io: Io,
  setExitCode: (code: number) => void,
): Promise<void> {
  const ctx = await makeContext(io, inv.globals, setExitCode);
  const { runCommand } = await import("./cmd_run.ts");
  await runCommand(inv.prompt, inv.opts)(ctx);
}

/** Prints an error the way users should see it (no stack trace) and picks the exit code. */
export function reportError(error: unknown, io: Io): number {
  const style = makeStyle(wantColor(io.isTerminal.stderr, true, io.getEnv("NO_COLOR")));
  if (error instanceof HarnessError) {
    io.err(`${style.red("error")}: ${error.message}\n`);
    if (error.hint) io.err(`${style.dim("hint")}: ${error.hint}\n`);
    return error.exitCode;
  }
  if (error instanceof Deno.errors.NotCapable) {
    // harness was started with a narrower Deno grant than this command needs.
    const flag = /--allow-[a-z]+/.exec(error.message)?.[0] ?? "the missing --allow-… flag";
    io.err(
      `${
        style.red("error")
      }: harness was started without a permission this command needs: ${error.message}\n` +
        `${
          style.dim("hint")
        }: run harness with ${flag} (the compiled binary and \`deno task harness\` have it)\n`,
    );
    return ExitCode.Denied;
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  io.err(
    `${style.red("error")}: internal error: ${message}\n` +
      `${style.dim("hint")}: this is a bug in harness; please report it with the command you ran\n`,
  );
  return ExitCode.Failed;
}
