/**
 * The commander program: every command, its options, help and examples. `main.ts`
 * loads it for every command line the fast path of `harness run` does not take.
 * Command implementations are imported only when their command runs, so
 * `harness tools list` never loads the chat loop.
 *
 * @module
 */
import { Argument, Command, CommanderError, Option } from "@commander-js/extra-typings";
import { ExitCode } from "../errors.ts";
import { type CommandContext, type GlobalOptions, makeContext } from "./context.ts";
import type { RunInvocation } from "./fast_argv.ts";
import {
  flagKey,
  type FlagSpec,
  flagSyntax,
  GLOBAL_FLAGS,
  RUN_ONLY_FLAGS,
  SESSION_FLAGS,
} from "./flags.ts";
import type { Io } from "./io.ts";
import type { RunOptions } from "./cmd_run.ts";
import { startRun, VERSION } from "./main.ts";

type Action = (ctx: CommandContext) => Promise<void>;

/** Starts a parsed `harness run` (injectable for tests). */
export type RunStarter = (
  inv: RunInvocation,
  io: Io,
  setExitCode: (code: number) => void,
) => Promise<void>;

/**
 * Parses `args` with commander and runs the command.
 *
 * @returns The exit code when commander ended the parse (help, version: 0; a usage
 *   error, already printed: 2), else `undefined`: the command ran.
 */
export async function runProgram(
  args: string[],
  io: Io,
  setExitCode: (code: number) => void,
): Promise<number | undefined> {
  const program = buildProgram(io, setExitCode);
  try {
    await program.parseAsync(args, { from: "user" });
    return undefined;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") {
      return ExitCode.Ok;
    }
    return ExitCode.Usage; // commander already printed "error: …" through outputError.
  }
}

/** A commander option from its description in `flags.ts`. */
function optionOf(spec: FlagSpec): Option {
  const option = new Option(flagSyntax(spec), spec.description);
  return spec.choices ? option.choices(spec.choices) : option;
}

/** The global options of a parsed command line. */
function globalsOf(all: Record<string, unknown>): GlobalOptions {
  const globals: Record<string, unknown> = {};
  for (const spec of GLOBAL_FLAGS) {
    const key = flagKey(spec);
    if (all[key] !== undefined) globals[key] = all[key];
  }
  return globals as GlobalOptions;
}

/**
 * Builds the commander program.
 *
 * @param io The outside world.
 * @param setExitCode Receives the exit code a command chose.
 */
export function buildProgram(
  io: Io,
  setExitCode: (code: number) => void,
  startRunWith: RunStarter = startRun,
): Command {
  const program = new Command()
    .name("harness")
    .description(
      "Run an AI agent with your project's own tools, each inside the permissions it declares.",
    )
    .version(`harness ${VERSION}`, "-V, --version", "print the version")
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
  $ harness -C examples/demo run --replay examples/demo/session.jsonl "What is left to do in notes.txt?"

Exit codes: 0 ok, 1 work failed, 2 usage or config, 3 provider, 4 budget, 5 denied, 130 interrupted.`,
    );

  for (const spec of GLOBAL_FLAGS) program.addOption(optionOf(spec));

  const act: Act = (load) => async (command) => {
    const globals = command.optsWithGlobals() as GlobalOptions;
    const ctx = await makeContext(io, globals, setExitCode);
    const run = await load();
    await run(ctx);
  };

  const run: RunAction = async (prompt, opts, command) => {
    const globals = globalsOf(command.optsWithGlobals() as Record<string, unknown>);
    await startRunWith({ globals, prompt, opts: opts as RunInvocation["opts"] }, io, setExitCode);
  };
  registerCommands(program, act, run);
  return program;
}

/** Wraps a lazily loaded action so commander can call it. */
export type Act = (
  load: () => Promise<Action>,
) => (command: { optsWithGlobals(): unknown }) => Promise<void>;

/** The action of `run`: commander's parse handed to {@linkcode RunStarter}. */
type RunAction = (
  prompt: string | undefined,
  opts: Record<string, unknown>,
  command: { optsWithGlobals(): unknown },
) => Promise<void>;

function registerCommands(program: Command, act: Act, run: RunAction): void {
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
    .addHelpText(
      "after",
      "\nExamples:\n  $ harness tools list\n  $ harness tools list --json | jq '.tools[].name'",
    )
    .action(async (opts, command) =>
      await act(async () => (await import("./cmd_tools.ts")).listCommand(opts))(command)
    );

  tools.command("show").description("everything known about one tool: schema, source, scope")
    .argument("<name>", "the tool name")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  $ harness tools show echo\n  $ harness tools show echo --json",
    )
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

  registerMore(program, tools, act, run);
}

/**
 * Registers the commands added by later modules (call, doctor, run, chat, init,
 * completions). Kept separate so this file stays one screen of wiring.
 */
function registerMore(program: Command, tools: Command, act: Act, run: RunAction): void {
  tools.command("call").description(
    "run one tool through the call path (validation, scope, sandbox)",
  )
    .argument("<name>", "the tool name")
    .argument("[-]", "read the arguments from standard input")
    .option("--args <json>", "the arguments as a JSON object")
    .option("--args-file <file>", "read the arguments from a file")
    .option("--json", "print {ok, content, exitCode, signal, timedOut, truncated, durationMs}")
    .option(
      "--dry-run",
      "print what would run (argv, script, stdin, env names, cwd, scope); run nothing",
    )
    .addHelpText(
      "after",
      `
Exit codes: 0 ok, 1 the tool failed, 2 usage (unknown tool, bad JSON), 5 denied.

Examples:
  $ harness tools call echo --args '{"message":"hi"}'
  $ echo '{"message":"hi"}' | harness tools call echo -
  $ harness tools call k8s_pods --args '{"namespace":"default"}' --dry-run`,
    )
    .action(async (name, dash, opts, command) =>
      await act(async () => (await import("./cmd_call.ts")).callCommand(name, dash, opts))(command)
    );

  program.command("doctor").description(
    "what this machine enforces: Deno grant, Landlock, namespaces",
  )
    .option("--json", "print JSON")
    .addHelpText("after", "\nExamples:\n  $ harness doctor\n  $ harness doctor --json")
    .action(async (opts, command) =>
      await act(async () => (await import("./cmd_doctor.ts")).doctorCommand(opts))(command)
    );

  // deno-lint-ignore no-explicit-any
  const runOptions = <A extends any[]>(c: Command<A>) => {
    for (const spec of SESSION_FLAGS) c.addOption(optionOf(spec));
    return c;
  };

  const runCommand = runOptions(
    program.command("run").description("run the agent on one prompt and exit")
      .argument("[prompt]", "the prompt; - or nothing reads standard input"),
  );
  for (const spec of RUN_ONLY_FLAGS) runCommand.addOption(optionOf(spec));
  runCommand
    .addHelpText(
      "after",
      `
Exit codes: 0 ok, 1 work failed, 2 usage/config, 3 provider, 4 budget (turns, tokens, time), 5 denied, 130 interrupted.

Examples:
  $ harness run "fix the failing test"
  $ git diff | harness run - --system @review.md --approval plan
  $ harness run --json --approval never-ask --transcript t.jsonl "update the changelog"
  $ harness -C examples/demo run --replay examples/demo/session.jsonl "What is left to do in notes.txt?"`,
    )
    .action(run);

  runOptions(program.command("chat").description("an interactive session on a terminal"))
    .addHelpText(
      "after",
      `
Commands inside the session: /tools, /clear, /exit.

Examples:
  $ harness chat --model gpt-4.1-mini
  $ harness chat --base-url http://localhost:11434/v1 --model qwen3`,
    )
    .action(async (opts, command) =>
      await act(async () => (await import("./cmd_chat.ts")).chatCommand(opts as RunOptions))(
        command,
      )
    );

  program.command("init").description(
    "write a commented harness.jsonc and one example tool per format",
  )
    .option("--force", "overwrite existing files")
    .addHelpText("after", "\nExamples:\n  $ harness init\n  $ harness init --force")
    .action(async (opts, command) =>
      await act(async () => (await import("./cmd_init.ts")).initCommand(opts))(command)
    );

  program.command("completions").description("print a shell completion script")
    .addArgument(new Argument("<shell>", "the shell").choices(["bash", "zsh", "fish"]))
    .addHelpText(
      "after",
      `
Examples:
  $ harness completions bash > ~/.local/share/bash-completion/completions/harness
  $ harness completions zsh > "\${fpath[1]}/_harness"
  $ harness completions fish > ~/.config/fish/completions/harness.fish`,
    )
    .action(async (shell, _opts, command) =>
      await act(async () =>
        (await import("./cmd_completions.ts")).completionsCommand(shell, program)
      )(command)
    );
}
