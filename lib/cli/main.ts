/**
 * The command line: parses arguments with commander, runs the command, maps errors to
 * the documented exit codes. Command implementations are imported only when their
 * command runs, so `harness tools list` never loads the chat loop.
 *
 * @module
 */
import { Argument, Command, CommanderError, Option } from "@commander-js/extra-typings";
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
  $ harness -C examples/demo run --replay examples/demo/session.jsonl "What is left to do in notes.txt?"

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

  registerMore(program, tools, act);
}

/**
 * Registers the commands added by later modules (call, doctor, run, chat, init,
 * completions). Kept separate so this file stays one screen of wiring.
 */
function registerMore(program: Command, tools: Command, act: Act): void {
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
  const runOptions = <A extends any[]>(c: Command<A>) =>
    c.option("--model <name>", "model name (also HARNESS_MODEL, provider.model)")
      .option("--base-url <url>", "OpenAI-compatible base URL (also OPENAI_BASE_URL)")
      .option("--api-key-env <name>", "variable holding the API key (default OPENAI_API_KEY)")
      .option("--system <text>", "system prompt, or @FILE")
      .option("--max-turns <n>", "maximum model calls (default 20)")
      .option("--timeout <duration>", "wall-clock limit, e.g. 90s, 10m (exit 4)")
      .addOption(
        new Option("--approval <mode>", "approval mode").choices([
          "ask",
          "auto-edit",
          "yolo",
          "plan",
          "never-ask",
        ]),
      )
      .addOption(
        new Option("--on-denied <what>", "after a denied call: stop (exit 5) or continue")
          .choices(["stop", "continue"]),
      )
      .option("--transcript <file>", "append every event as JSONL, as the run goes")
      .option("--record <file>", "record every provider exchange (JSONL)")
      .option("--replay <file>", "serve provider exchanges from a recording (offline)");

  runOptions(
    program.command("run").description("run the agent on one prompt and exit")
      .argument("[prompt]", "the prompt; - or nothing reads standard input"),
  )
    .option("--json", "one JSON event per line on stdout (the machine interface for CI)")
    .option("--output-last-message <file>", "write the final answer to a file")
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
    .action(async (prompt, opts, command) =>
      await act(async () => (await import("./cmd_run.ts")).runCommand(prompt, opts))(command)
    );

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
      await act(async () => (await import("./cmd_chat.ts")).chatCommand(opts))(command)
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
