/**
 * `harness chat`: an interactive session on a terminal, with history and the commands
 * `/tools`, `/clear` and `/exit`.
 *
 * @module
 */
import { makeApprovalPolicy, offeredInMode } from "../chat/approval.ts";
import type { ChatMessage } from "../chat/port.ts";
import { noTranscript, openTranscript } from "../chat/transcript.ts";
import { ExitCode, UsageError } from "../errors.ts";
import type { CommandContext } from "./context.ts";
import {
  executeRun,
  openModel,
  recordingPolicy,
  type RunOptions,
  runSettings,
  terminalPrompt,
} from "./cmd_run.ts";
import { openSession } from "./session.ts";

/** Builds the `chat` action. */
export function chatCommand(opts: RunOptions) {
  return async (ctx: CommandContext): Promise<void> => {
    if (!ctx.io.isTerminal.stdin) {
      throw new UsageError("harness chat needs a terminal", {
        hint: 'for scripts and CI use: harness run "…" (or pipe the prompt: … | harness run -)',
      });
    }
    const config = await ctx.config();
    const settings = await runSettings(config, opts, ctx.io.cwd());
    const model = await openModel(ctx, config, opts);
    const transcript = opts.transcript !== undefined
      ? openTranscript(opts.transcript)
      : noTranscript;
    const policy = makeApprovalPolicy(settings.approval, terminalPrompt(ctx));
    const session = await openSession(ctx, recordingPolicy(policy, transcript));
    const base: ChatMessage[] = settings.system
      ? [{ role: "system", content: settings.system }]
      : [];
    let history = [...base];
    ctx.io.err(
      ctx.err.dim(
        `harness chat · ${model.info.model} at ${model.info.baseUrl} · ${settings.approval} mode · /tools /clear /exit\n`,
      ),
    );
    let exitCode: number = ExitCode.Ok;
    try {
      while (true) {
        ctx.io.err(ctx.err.bold("› "));
        const line = await ctx.io.readLine();
        if (line === null || line.trim() === "/exit") break;
        const text = line.trim();
        if (text === "") continue;
        if (text === "/clear") {
          history = [...base];
          ctx.io.err(ctx.err.dim("history cleared\n"));
          continue;
        }
        if (text === "/tools") {
          const snapshot = await session.refresh();
          for (const t of snapshot.tools.filter((t) => offeredInMode(t, settings.approval))) {
            ctx.io.err(
              `  ${ctx.err.bold(t.name)} ${
                ctx.err.dim(`(${t.source.format}, approval ${t.approval})`)
              } ${(t.description ?? "").split("\n")[0]}\n`,
            );
          }
          continue;
        }
        if (text.startsWith("/")) {
          ctx.io.err(`${ctx.err.yellow("unknown command")} ${text}: use /tools, /clear or /exit\n`);
          continue;
        }
        const outcome = await executeRun(ctx, {
          config,
          settings,
          model,
          messages: [...history, { role: "user", content: text }],
          mode: "tty",
          opts,
          session,
          transcript,
        });
        history = outcome.history;
        exitCode = outcome.exitCode;
        if (exitCode === ExitCode.Interrupted) break;
      }
    } finally {
      await session.close();
      transcript.close();
    }
    ctx.setExitCode(exitCode === ExitCode.Interrupted ? exitCode : ExitCode.Ok);
  };
}
