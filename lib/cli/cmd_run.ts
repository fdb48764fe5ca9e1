/**
 * `harness run [PROMPT]`: one agent run, with the exit codes of the CI contract.
 *
 * @module
 */
import {
  APPROVAL_MODES,
  type ApprovalMode,
  makeApprovalPolicy,
  offeredInMode,
  type PromptAnswer,
} from "../chat/approval.ts";
import type { LoopEvent, TurnTools } from "../chat/loop.ts";
import type { ChatMessage, ModelPort } from "../chat/port.ts";
import { noTranscript, openTranscript, type Transcript } from "../chat/transcript.ts";
import type { Config } from "../config/load.ts";
import type { ApprovalPolicy } from "../exec/call_types.ts";
import { ExitCode, UsageError } from "../errors.ts";
import type { ToolDefinition } from "../types.ts";
import type { CommandContext } from "./context.ts";
import { toolsPayload } from "./cmd_tools.ts";
import { jsonEvent, Renderer, type RenderMode, summarizeArguments } from "./render.ts";
import { openSession, type Session } from "./session.ts";
import { after } from "../_timers.ts";

/** Options shared by `run` and `chat`. */
export interface RunOptions {
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  system?: string;
  maxTurns?: string;
  timeout?: string;
  approval?: string;
  onDenied?: string;
  transcript?: string;
  record?: string;
  replay?: string;
  json?: boolean;
  outputLastMessage?: string;
}

/** Default maximum model calls of a run. */
export const DEFAULT_MAX_TURNS = 20;
/** Default read-only calls of one turn that run at once. */
export const DEFAULT_PARALLELISM = 4;

/**
 * Parses a duration: `90s`, `10m`, `1h`, `1500ms` or plain seconds.
 *
 * @throws {UsageError} For anything else.
 */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) {
    throw new UsageError(`Invalid ${flag} "${text}"`, {
      hint: "use a duration such as 90s, 10m or 1h",
    });
  }
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  return Math.round(n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit]!);
}

function positiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`Invalid ${flag} "${text}": expected a whole number ≥ 1`);
  }
  return n;
}

/** The settings of a run after merging flags over config. */
export interface RunSettings {
  approval: ApprovalMode;
  onDenied: "stop" | "continue";
  maxTurns: number;
  timeoutMs?: number;
  tokenBudget?: number;
  system?: string;
  parallelism: number;
}

/**
 * Merges flags over `harness.jsonc`.
 *
 * @throws {UsageError} For bad values.
 */
export async function runSettings(
  config: Config,
  opts: RunOptions,
  baseDir: string,
): Promise<RunSettings> {
  const approval = (opts.approval ?? config.run.approval ?? "ask") as ApprovalMode;
  if (!APPROVAL_MODES.includes(approval)) throw new UsageError(`Invalid --approval "${approval}"`);
  const settings: RunSettings = {
    approval,
    onDenied: (opts.onDenied ?? config.run.onDenied ?? "stop") as "stop" | "continue",
    maxTurns: opts.maxTurns !== undefined
      ? positiveInt(opts.maxTurns, "--max-turns")
      : config.run.maxTurns ?? DEFAULT_MAX_TURNS,
    parallelism: config.run.parallelism ?? DEFAULT_PARALLELISM,
  };
  const timeout = opts.timeout !== undefined
    ? parseDuration(opts.timeout, "--timeout")
    : config.run.timeoutMs;
  if (timeout !== undefined) settings.timeoutMs = timeout;
  if (config.run.maxTokens !== undefined) settings.tokenBudget = config.run.maxTokens;
  const system = opts.system ?? config.run.system;
  if (system !== undefined) settings.system = await readTextArg(system, baseDir, "--system");
  return settings;
}

/** `TEXT` or `@FILE`. */
async function readTextArg(value: string, baseDir: string, flag: string): Promise<string> {
  if (!value.startsWith("@")) return value;
  const path = value.slice(1).startsWith("/") ? value.slice(1) : `${baseDir}/${value.slice(1)}`;
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw new UsageError(`Cannot read ${flag} file "${path}": ${(error as Error).message}`);
  }
}

/**
 * Builds the model port of a run: the live provider, a replay of a recording, and
 * optionally a recorder around the live one.
 *
 * @throws {UsageError} When no model is configured, or the API key is missing for a hosted API.
 */
export async function openModel(
  ctx: CommandContext,
  config: Config,
  opts: RunOptions,
): Promise<ModelPort> {
  const baseDir = ctx.io.cwd();
  if (opts.replay !== undefined) {
    const { createReplayProvider } = await import("../chat/replay.ts");
    return await createReplayProvider(
      opts.replay.startsWith("/") ? opts.replay : `${baseDir}/${opts.replay}`,
    );
  }
  const baseUrl = (opts.baseUrl ?? config.provider.baseUrl).replace(/\/+$/, "");
  const model = opts.model ?? config.provider.model;
  if (!model) {
    throw new UsageError("No model is configured", {
      hint: "pass --model NAME, set HARNESS_MODEL, or set provider.model in harness.jsonc",
    });
  }
  const keyEnv = opts.apiKeyEnv ?? config.provider.apiKeyEnv;
  const apiKey = ctx.io.getEnv(keyEnv);
  if (
    !apiKey && /api\.openai\.com|openrouter\.ai|api\.deepseek\.com|api\.mistral\.ai/.test(baseUrl)
  ) {
    throw new UsageError(`${keyEnv} is not set, and ${baseUrl} needs an API key`, {
      hint: `export ${keyEnv}=… (or pick another variable with --api-key-env)`,
    });
  }
  const { createOpenAIProvider } = await import("../chat/provider.ts");
  const p = config.provider;
  const settings = {
    baseUrl,
    model,
    ...(apiKey ? { apiKey } : {}),
    ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
    ...(p.topP !== undefined ? { topP: p.topP } : {}),
    ...(p.maxTokens !== undefined ? { maxTokens: p.maxTokens } : {}),
    stream: p.stream,
    headers: p.headers,
    extraBody: p.extraBody,
    ...(p.parallelToolCalls !== undefined ? { parallelToolCalls: p.parallelToolCalls } : {}),
    ...(p.requestTimeoutMs !== undefined ? { requestTimeoutMs: p.requestTimeoutMs } : {}),
    ...(p.maxRetries !== undefined ? { maxRetries: p.maxRetries } : {}),
    ...(p.retryBaseMs !== undefined ? { retryBaseMs: p.retryBaseMs } : {}),
    ...(p.toolCallIdFormat === "mistral9" ? { toolCallIdFormat: "mistral9" as const } : {}),
    ...(p.toolCallIdFormat === "none" ? { toolCallIdFormat: "none" as const } : {}),
    ...(opts.record !== undefined
      ? { recordTo: opts.record.startsWith("/") ? opts.record : `${baseDir}/${opts.record}` }
      : {}),
  };
  return createOpenAIProvider(settings);
}

/** The tools of one turn, filtered by the approval mode. */
export function turnTools(session: Session, mode: ApprovalMode): () => Promise<TurnTools> {
  return async () => {
    const snapshot = await session.refresh();
    const offered = snapshot.tools.filter((t) => offeredInMode(t, mode));
    return {
      payload: toolsPayload(offered, session.config.nativeTools),
      names: offered.map((t) => t.name),
      readOnly: new Set(offered.filter((t) => t.readOnly).map((t) => t.name)),
    };
  };
}

/** Asks on the terminal: yes, no, or always for this tool this session. */
export function terminalPrompt(
  ctx: CommandContext,
): (tool: ToolDefinition, args: Record<string, unknown>) => Promise<PromptAnswer> {
  return async (tool, args) => {
    const e = ctx.err;
    ctx.io.err(
      `\n${e.yellow("?")} Allow ${e.bold(tool.name)} ${
        e.dim(summarizeArguments(JSON.stringify(args)))
      }  [y]es / [n]o / [a]lways: `,
    );
    const line = ((await ctx.io.readLine()) ?? "n").trim().toLowerCase();
    return line === "a" || line === "always"
      ? "always"
      : line === "y" || line === "yes"
      ? "yes"
      : "no";
  };
}

/**
 * Wraps an approval policy so every decision is written to the transcript, and a
 * denial is also reported through `onDenied` (the CLI shows it).
 */
export function recordingPolicy(
  policy: ApprovalPolicy,
  transcript: Transcript,
  onDenied?: (record: Record<string, unknown>, text: string) => void,
): ApprovalPolicy {
  return async (tool, args, id) => {
    const decision = await policy(tool, args, id);
    const record = { type: "approval", id: id ?? null, tool: tool.name, ...decision };
    transcript.write(record);
    if (!decision.approved) onDenied?.(record, `denied ${tool.name}: ${decision.reason}`);
    return decision;
  };
}

/** Builds the `run` action. */
export function runCommand(promptArg: string | undefined, opts: RunOptions) {
  return async (ctx: CommandContext): Promise<void> => {
    let prompt = promptArg;
    if (prompt === undefined || prompt === "-") {
      if (prompt === undefined && ctx.io.isTerminal.stdin) {
        throw new UsageError("No prompt given", {
          hint: 'harness run "your task", or pipe it: echo "task" | harness run -',
        });
      }
      prompt = await ctx.io.readStdin();
    }
    if (prompt.trim() === "") throw new UsageError("The prompt is empty");
    const config = await ctx.config();
    const settings = await runSettings(config, opts, ctx.io.cwd());
    const model = await openModel(ctx, config, opts);
    const messages: ChatMessage[] = [];
    if (settings.system) messages.push({ role: "system", content: settings.system });
    messages.push({ role: "user", content: prompt });
    const mode: RenderMode = opts.json ? "json" : ctx.io.isTerminal.stdout ? "tty" : "plain";
    const exit = await executeRun(ctx, { config, settings, model, messages, mode, opts });
    ctx.setExitCode(exit.exitCode);
  };
}

/** What a finished run leaves behind. */
export interface RunOutcome {
  exitCode: number;
  history: ChatMessage[];
}

/**
 * Runs the loop once with rendering, transcript, approvals, timeout and Ctrl-C.
 * Shared by `run` and each message of `chat`.
 */
export async function executeRun(
  ctx: CommandContext,
  run: {
    config: Config;
    settings: RunSettings;
    model: ModelPort;
    messages: ChatMessage[];
    mode: RenderMode;
    opts: RunOptions;
    session?: Session;
    transcript?: Transcript;
  },
): Promise<RunOutcome> {
  const { config, settings, model, mode } = run;
  const interactive = ctx.io.isTerminal.stdin && ctx.io.isTerminal.stderr && mode !== "json";
  const policy = makeApprovalPolicy(
    settings.approval,
    interactive ? terminalPrompt(ctx) : undefined,
  );
  const renderer = new Renderer(ctx.io, mode, { err: ctx.err });
  let transcript = run.transcript ?? noTranscript;
  if (!run.transcript && run.opts.transcript !== undefined) {
    try {
      transcript = openTranscript(
        run.opts.transcript.startsWith("/")
          ? run.opts.transcript
          : `${ctx.io.cwd()}/${run.opts.transcript}`,
      );
    } catch (error) {
      throw new UsageError(
        `Cannot open the transcript "${run.opts.transcript}": ${(error as Error).message}`,
      );
    }
  }
  const session = run.session ?? await openSession(
    ctx,
    recordingPolicy(policy, transcript, (record, text) => renderer.info(record, text)),
  );
  const controller = new AbortController();
  const cancelTimeout = settings.timeoutMs !== undefined
    ? after(settings.timeoutMs, () => controller.abort("timeout"))
    : undefined;
  const onSigint = () => controller.abort("interrupted");
  Deno.addSignalListener("SIGINT", onSigint);
  const { runChat } = await import("../chat/loop.ts");
  const start = {
    type: "run_start",
    model: model.info.model,
    baseUrl: model.info.baseUrl,
    approval: settings.approval,
    sandbox: config.sandbox,
    project: config.projectDir,
  };
  transcript.write(start);
  for (const m of run.messages.slice(-2)) transcript.write({ type: "message", message: m });
  if (mode === "json") ctx.io.out(JSON.stringify(start) + "\n");
  let exitCode: number = ExitCode.Failed;
  let history: ChatMessage[] = run.messages;
  try {
    const events = runChat({
      model,
      messages: run.messages,
      tools: turnTools(session, settings.approval),
      nativeTools: config.nativeTools,
      execute: (call, signal) => session.calls.call(call, signal),
      maxTurns: settings.maxTurns,
      ...(settings.tokenBudget !== undefined ? { tokenBudget: settings.tokenBudget } : {}),
      parallelism: settings.parallelism,
      onDenied: settings.onDenied,
      signal: controller.signal,
    });
    while (true) {
      const next = await events.next();
      if (next.done) {
        history = next.value;
        break;
      }
      const e: LoopEvent = next.value;
      if (e.type === "tool_call_started") {
        // Start the tool's Worker as soon as its name arrives: it boots while the model
        // streams the arguments. Only called tools pay a Worker (memory).
        const tool = session.current().byName.get(e.name);
        if (tool) session.calls.warm(tool);
      }
      if (e.type !== "text_delta" && e.type !== "reasoning_delta") {
        transcript.write(jsonEvent(e));
      }
      renderer.event(e);
      if (e.type === "done") {
        exitCode = e.exitCode;
        if (run.opts.outputLastMessage !== undefined) {
          // Relative to where the user ran harness, like --transcript and --record.
          const file = run.opts.outputLastMessage.startsWith("/")
            ? run.opts.outputLastMessage
            : `${ctx.io.cwd()}/${run.opts.outputLastMessage}`;
          try {
            await Deno.writeTextFile(file, e.finalText);
          } catch (error) {
            throw new UsageError(
              `Cannot write --output-last-message "${file}": ${(error as Error).message}`,
            );
          }
        }
      }
    }
  } finally {
    cancelTimeout?.();
    Deno.removeSignalListener("SIGINT", onSigint);
    if (!run.session) await session.close();
    if (!run.transcript) transcript.close();
  }
  return { exitCode, history };
}
