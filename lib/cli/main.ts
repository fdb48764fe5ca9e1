/**
 * The command line: parses arguments with commander, runs the command, maps errors to
 * the documented exit codes. Command implementations are imported only when their
 * command runs, so `harness tools list` never loads the chat loop.
 *
 * @module
 */
import { Command, CommanderError, Option } from "@commander-js/extra-typings";
import meta from "../../deno.json" with { type: "json" };
import { ExitCode, HarnessError } from "../errors.ts";
import { type CommandContext, type GlobalOptions, makeContext } from "./context.ts";
import { type Io, processIo } from "./io.ts";
import { makeStyle, wantColor } from "./style.ts";

/** The version of harness. */
export const VERSION: string = meta.version;

type Action = (ctx: CommandContext) => Promise<void>;

/**
 * Runs the CLI.
 *
 * @param args The arguments after the program name.
 * @param io The outside world (the real process by default).
 * @returns The exit code.
 */
export async function runCli(args: string[], io: Io = processIo()): Promise<number> {
  let exitCode: number = ExitCode.Ok;
  const program = buildProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync(args, { from: "user" });
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}

/** Prints an error the way users should see it (no stack trace) and picks the exit code. */
export function reportError(error: unknown, io: Io): number {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") {
      return ExitCode.Ok;
    }
    // commander already printed "error: …" through outputError.
    return ExitCode.Usage;
  }
  const style = makeStyle(wantColor(io.isTerminal.stderr, true, io.getEnv("NO_COLOR")));
  if (error instanceof HarnessError) {
    io.err(`${style.red("error")}: ${error.message}\n`);
    if (error.hint) io.err(`${style.dim("hint")}: ${error.hint}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  io.err(
    `${style.red("error")}: internal error: ${message}\n` +
      `${style.dim("hint")}: this is a bug in harness; please report it with the command you ran\n`,
  );
  return ExitCode.Failed;
}

/**
 * Builds the commander program.
 *
 * @param io The outside world.
 * @param setExitCode Receives the exit code a command chose.
 */
export function buildProgram(io: Io, setExitCode: (code: number) => void): Command {
  const program = new Command()
    .name("harness")
    .description(
      "Run an AI agent with your project's own tools, each inside the permissions it declares.",
    )
    .version(`harness ${VERSION}`, "-V, --version", "print the version")
    .option("-C, --cwd <dir>", "the project directory (default: where you run harness)")
    .option("--config <file>", "use this harness.jsonc instead of searching for one")
    .option("--no-color", "never use colors (also: NO_COLOR=1)")
    .helpOption("-h, --help", "show help")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .addHelpText(
      "after",
      `
Examples:
  $ harness tools validate                 lint every tool definition of the project
  $ harness tools list                     what the model would see
  $ harness run "fix the failing test"     run the agent once
  $ harness -C examples/demo run --replay examples/demo/session.jsonl "What time is it?"

Exit codes: 0 ok, 1 work failed, 2 usage or config, 3 provider, 4 budget, 5 denied, 130 interrupted.`,
    );

  const act: Act = (load) => async (command) => {
    const globals = command.optsWithGlobals() as GlobalOptions;
    const ctx = await makeContext(io, globals, setExitCode);
    const run = await load();
    await run(ctx);
  };

  registerCommands(program, act);
  return program;
}

/** Wraps a lazily loaded action so commander can call it. */
export type Act = (
  load: () => Promise<Action>,
) => (command: { optsWithGlobals(): unknown }) => Promise<void>;

function registerCommands(program: Command, act: Act): void {
  const tools = program.command("tools").description("list, inspect, lint and call tools")
    .addHelpText(
      "after",
      `
Examples:
  $ harness tools list --json
  $ harness tools show k8s_pods
  $ harness tools validate --format github
  $ harness tools call echo --args '{"message":"hi"}'`,
    );

  tools.command("list").description("list every tool the model would see")
    .option("--json", "print JSON: {tools, skipped}")
    .addHelpText("after", "\nExamples:\n  $ harness tools list\n  $ harness tools list --json | jq '.tools[].name'")
    .action(async (opts, command) =>
      await act(async () => (await import("./cmd_tools.ts")).listCommand(opts))(command)
    );

  tools.command("show").description("everything known about one tool: schema, source, scope")
    .argument("<name>", "the tool name")
    .option("--json", "print JSON")
    .addHelpText("after", "\nExamples:\n  $ harness tools show echo\n  $ harness tools show echo --json")
    .action(async (name, opts, command) =>
      await act(async () => (await import("./cmd_tools.ts")).showCommand(name, opts))(command)
    );

  tools.command("schema").description("print the exact tools array sent to the provider")
    .addHelpText("after", "\nExamples:\n  $ harness tools schema > tools.snapshot.json")
    .action(async (_opts, command) =>
      await act(async () => (await import("./cmd_tools.ts")).schemaCommand())(command)
    );

  tools.command("validate").description("lint tool definitions of every format (a CI step)")
    .argument("[paths...]", "files or directories to lint (default: the project)")
    .addOption(
      new Option("--format <format>", "output format").choices(["text", "json", "github", "sarif"])
        .default("text"),
    )
    .option("--strict", "warnings fail too (exit 1)")
    .addHelpText(
      "after",
      `
Exit codes: 0 no errors (warnings allowed unless --strict), 1 errors, 2 usage.

Examples:
  $ harness tools validate
  $ harness tools validate .nanocoder/tools/k8s.md --format json
  $ harness tools validate --format sarif > harness.sarif`,
    )
    .action(async (paths, opts, command) =>
      await act(async () => (await import("./cmd_validate.ts")).validateCommand(paths, opts))(
        command,
      )
    );

  registerMore(program, tools, act);
}

/**
 * Registers the commands added by later modules (call, doctor, run, chat, init,
 * completions). Kept separate so this file stays one screen of wiring.
 */
function registerMore(_program: Command, _tools: Command, _act: Act): void {
}
