/**
 * The agent loop: send → stream → run tool calls → append results → repeat, as an
 * async generator of typed events. The loop decides nothing about printing; the CLI
 * renders the events and writes them to the transcript.
 *
 * @module
 */
import type { CallRequest, CallResult } from "../exec/call_types.ts";
import type { ChatMessage, ModelEvent, ModelPort, ToolCall, Usage } from "./port.ts";
import { mapConcurrent } from "../_concurrent.ts";
import { canonicalCall, nativeToolNames } from "./_calls.ts";

/** Why a run ended, and the exit code it maps to. */
export type StopReason =
  | "stop" // the model answered without tool calls (0)
  | "max_turns" // --max-turns reached while the model still wanted tools (4)
  | "token_budget" // the token budget was exhausted (4)
  | "timeout" // --timeout elapsed (4)
  | "denied" // a call was denied and --on-denied is stop (5)
  | "repeat_guard" // the same call three times (1)
  | "bad_calls" // malformed or cut-off arguments beyond the retry budget (1)
  | "provider_error" // the provider failed after retries (3)
  | "interrupted"; // SIGINT (130)

/** Exit code of each stop reason (DESIGN.md). */
export const STOP_EXIT: Record<StopReason, number> = {
  stop: 0,
  max_turns: 4,
  token_budget: 4,
  timeout: 4,
  denied: 5,
  repeat_guard: 1,
  bad_calls: 1,
  provider_error: 3,
  interrupted: 130,
};

/**
 * Events of a run, in order; `done` is always last. The model's streaming events
 * (text, reasoning, call starts, retries, warnings) pass through as they are.
 */
export type LoopEvent =
  | { type: "turn_start"; turn: number; tools: number }
  | Exclude<ModelEvent, { type: "completed" }>
  | {
    type: "assistant_message";
    turn: number;
    message: ChatMessage;
    finishReason: string | null;
    usage?: Usage;
    /** Unknown fields of the choice, kept for the transcript. */
    extra?: Record<string, unknown>;
  }
  | {
    type: "native_output";
    turn: number;
    annotations?: unknown;
    parts?: unknown[];
  }
  | { type: "tool_call"; turn: number; id: string; name: string; arguments: string }
  | { type: "tool_result"; turn: number; id: string; name: string; result: CallResult }
  | { type: "turn_end"; turn: number; usage: Usage | undefined; totalTokens: number }
  | {
    type: "done";
    reason: StopReason;
    exitCode: number;
    turns: number;
    totalTokens: number;
    finalText: string;
    error?: { message: string; hint?: string };
  };

/** The tools offered in one turn, refreshed every turn (hot reload). */
export interface TurnTools {
  /** The `tools` array sent to the provider (function tools, then native tools). */
  payload: unknown[];
  /** Names of the function tools harness can run. */
  names: string[];
  /** Which of them are read-only (may run in parallel). */
  readOnly: Set<string>;
}

/** What the loop needs. */
export interface LoopOptions {
  model: ModelPort;
  /** The starting history (system and user messages); the loop appends to a copy. */
  messages: ChatMessage[];
  /** Loads the tools of this turn. */
  tools: () => Promise<TurnTools>;
  /** Provider-native tool objects (to recognise a native tool called as a function). */
  nativeTools: unknown[];
  /** Runs one call through the call path (validation, approval, scope, runner). */
  execute: (call: CallRequest, signal: AbortSignal) => Promise<CallResult>;
  /** Maximum model calls. */
  maxTurns: number;
  /** Token budget over the run (prompt + completion as reported); undefined for none. */
  tokenBudget?: number;
  /** Read-only calls of one turn that run at once. */
  parallelism: number;
  /** What a denial does: end the run (exit 5) or tell the model and go on. */
  onDenied: "stop" | "continue";
  /** How many malformed or cut-off argument texts are answered before the run ends. */
  maxBadCalls?: number;
  /** Aborts the run; `signal.reason` "timeout" or "interrupted" picks the stop reason. */
  signal: AbortSignal;
}

/**
 * The count of identical calls (same name, same arguments, with no other call of a tool
 * that is not read-only between them) at which the guard stops the run; the last one is
 * not run.
 */
export const REPEAT_LIMIT = 3;
/** Default budget of malformed or cut-off argument texts. */
export const DEFAULT_MAX_BAD_CALLS = 3;

/**
 * Runs the loop.
 *
 * @param options What the loop needs.
 * @returns An async generator of events; the history is in the events.
 */
export async function* runChat(options: LoopOptions): AsyncGenerator<LoopEvent, ChatMessage[]> {
  const history = [...options.messages];
  const natives = nativeToolNames(options.nativeTools);
  const seen = new Map<string, number>();
  let badCalls = 0;
  let totalTokens = 0;
  let turn = 0;
  let finalText = "";
  const done = (reason: StopReason, error?: { message: string; hint?: string }): LoopEvent => ({
    type: "done",
    reason,
    exitCode: STOP_EXIT[reason],
    turns: turn,
    totalTokens,
    finalText,
    ...(error ? { error } : {}),
  });
  const aborted = (): StopReason | undefined =>
    options.signal.aborted
      ? (options.signal.reason === "timeout" ? "timeout" : "interrupted")
      : undefined;

  while (true) {
    if (aborted()) return yield done(aborted()!), history;
    if (turn >= options.maxTurns) {
      return yield done("max_turns", {
        message: `The model still wanted tools after ${options.maxTurns} turns`,
        hint: "raise --max-turns or narrow the task",
      }),
        history;
    }
    turn++;
    const tools = await options.tools();
    yield { type: "turn_start", turn, tools: tools.names.length };
    let completed: Extract<ModelEvent, { type: "completed" }> | undefined;
    try {
      for await (
        const event of options.model.stream({ messages: history, tools: tools.payload }, {
          signal: options.signal,
        })
      ) {
        if (event.type === "completed") completed = event;
        else yield event;
      }
    } catch (error) {
      if (aborted()) return yield done(aborted()!), history;
      const e = error as Error & { hint?: string };
      return yield done("provider_error", {
        message: e.message,
        ...(e.hint ? { hint: e.hint } : {}),
      }),
        history;
    }
    if (aborted()) return yield done(aborted()!), history;
    if (!completed) {
      return yield done("provider_error", {
        message: "The provider stream ended without a message",
      }),
        history;
    }
    const message = completed.message;
    history.push(message);
    totalTokens += completed.usage?.total_tokens ??
      ((completed.usage?.prompt_tokens ?? 0) + (completed.usage?.completion_tokens ?? 0));
    yield {
      type: "assistant_message",
      turn,
      message,
      finishReason: completed.finishReason,
      ...(completed.usage ? { usage: completed.usage } : {}),
      // Unknown fields of the choice (e.g. OpenRouter's native_finish_reason): kept, not shown.
      ...(completed.raw.extraChoiceFields ? { extra: completed.raw.extraChoiceFields } : {}),
    };
    const parts = Array.isArray(message.content) ? message.content : undefined;
    if (completed.raw.annotations !== undefined || parts) {
      yield {
        type: "native_output",
        turn,
        ...(completed.raw.annotations !== undefined
          ? { annotations: completed.raw.annotations }
          : {}),
        ...(parts ? { parts } : {}),
      };
    }
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      finalText = typeof message.content === "string" ? message.content : textOfParts(parts);
      yield { type: "turn_end", turn, usage: completed.usage, totalTokens };
      return yield done("stop"), history;
    }

    const issues = new Map(completed.callIssues.map((i) => [i.id, i]));
    const results = new Map<string, CallResult>();
    let stop: { reason: StopReason; error: { message: string; hint?: string } } | undefined;
    const pending: ToolCall[] = [];
    for (const call of calls) {
      yield {
        type: "tool_call",
        turn,
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      };
      const issue = issues.get(call.id);
      if (issue) {
        badCalls++;
        results.set(
          call.id,
          errorResult(
            `${issue.detail}. Send the call again with complete, valid JSON arguments.`,
            "invalid-arguments",
          ),
        );
        if (badCalls > (options.maxBadCalls ?? DEFAULT_MAX_BAD_CALLS)) {
          stop = {
            reason: "bad_calls",
            error: {
              message: `The model sent ${badCalls} calls with malformed or cut-off arguments`,
              hint: "use a model with reliable tool calling, or raise provider.maxTokens",
            },
          };
        }
        continue;
      }
      const name = call.function.name;
      if (!tools.names.includes(name)) {
        const content = natives.has(name)
          ? `"${name}" is a provider-native tool: the provider runs it, harness never runs it locally. Use it through the provider's own tool mechanism, not as a function call.`
          : `Unknown tool "${name}". Available tools: ${
            tools.names.join(", ") || "(none)"
          }. Call one of them instead.`;
        results.set(
          call.id,
          errorResult(content, natives.has(name) ? "native-tool" : "unknown-tool"),
        );
        continue;
      }
      const key = canonicalCall(name, call.function.arguments);
      const count = (seen.get(key) ?? 0) + 1;
      // A call that may change state (not read-only) makes earlier calls worth repeating:
      // the edit-and-rerun-the-tests cycle is not a loop.
      if (!tools.readOnly.has(name)) seen.clear();
      seen.set(key, count);
      if (count >= REPEAT_LIMIT) {
        results.set(
          call.id,
          errorResult(
            `This exact call of "${name}" was already made ${
              count - 1
            } times with the same arguments; harness stopped the run to avoid a loop.`,
            "refused",
          ),
        );
        stop = {
          reason: "repeat_guard",
          error: {
            message: `The model repeated the same call of "${name}" ${count} times`,
            hint: "rephrase the task or check the tool's output",
          },
        };
        continue;
      }
      pending.push(call);
    }

    if (!stop) {
      for await (const [call, result] of runCalls(pending, tools.readOnly, options)) {
        results.set(call.id, result);
        if (stopsRun(result, options) && !stop) {
          stop = {
            reason: "denied",
            error: {
              message: result.denied?.reason ?? `The call of "${call.function.name}" was denied`,
              ...(result.denied?.hint ? { hint: result.denied.hint } : {}),
            },
          };
        }
      }
    }
    for (const call of calls) {
      const result = results.get(call.id) ??
        errorResult("Not run: the run stopped before this call.", "refused");
      yield { type: "tool_result", turn, id: call.id, name: call.function.name, result };
      history.push({ role: "tool", tool_call_id: call.id, content: result.content });
    }
    yield { type: "turn_end", turn, usage: completed.usage, totalTokens };
    if (aborted()) return yield done(aborted()!), history;
    if (stop) return yield done(stop.reason, stop.error), history;
    if (options.tokenBudget !== undefined && totalTokens >= options.tokenBudget) {
      return yield done("token_budget", {
        message: `The run used ${totalTokens} tokens, over the budget of ${options.tokenBudget}`,
        hint: "raise run.maxTokens in harness.jsonc",
      }),
        history;
    }
  }
}

/**
 * Runs the calls of one turn in order: consecutive read-only calls run together
 * (at most `parallelism` at once), any other call runs alone. Yields results as
 * groups finish; the caller appends them in request order.
 */
async function* runCalls(
  calls: ToolCall[],
  readOnly: Set<string>,
  options: LoopOptions,
): AsyncGenerator<[ToolCall, CallResult]> {
  let i = 0;
  while (i < calls.length) {
    if (options.signal.aborted) return;
    const group: ToolCall[] = [];
    if (readOnly.has(calls[i].function.name)) {
      while (i < calls.length && readOnly.has(calls[i].function.name)) group.push(calls[i++]);
    } else group.push(calls[i++]);
    const out = await mapConcurrent(
      group,
      options.parallelism,
      async (call): Promise<[ToolCall, CallResult]> => [call, await executeSafely(call, options)],
    );
    yield* out;
    if (out.some(([, r]) => stopsRun(r, options))) return;
  }
}

/**
 * Whether a result ends the run: a denial by policy or permissions when `--on-denied`
 * is `stop`. A user who declines at the prompt does not end the run: the model is told.
 */
function stopsRun(result: CallResult, options: LoopOptions): boolean {
  return result.failure === "denied" && result.denied?.by !== "user" && options.onDenied === "stop";
}

/** Runs one call; a call path that throws becomes a failed result, never a crashed run. */
async function executeSafely(call: ToolCall, options: LoopOptions): Promise<CallResult> {
  try {
    return await options.execute({
      name: call.function.name,
      rawArguments: call.function.arguments,
      id: call.id,
    }, options.signal);
  } catch (error) {
    return errorResult(
      `The call of "${call.function.name}" failed inside harness: ${(error as Error).message}`,
      "tool-failed",
    );
  }
}

function errorResult(content: string, failure: CallResult["failure"]): CallResult {
  return {
    ok: false,
    content,
    exitCode: null,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 0,
    ...(failure ? { failure } : {}),
    warnings: [],
  };
}

function textOfParts(parts: unknown[] | undefined): string {
  if (!parts) return "";
  return parts.map((p) => {
    const part = p as { type?: string; text?: unknown };
    return part.type === "text" && typeof part.text === "string" ? part.text : "";
  }).join("");
}
