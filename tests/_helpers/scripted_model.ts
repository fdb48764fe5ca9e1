/**
 * A scripted fake {@link ModelPort} for tests of the chat loop: one step per expected model
 * call. Each step may check the request it receives (messages, tools) and then streams a
 * list of events or throws an error. Every request is recorded as a deep copy, so a later
 * change to the loop's history never rewrites what the model was sent.
 *
 * The loop turns anything a port throws into a `provider_error`, so a failed check or a
 * call beyond the script is also kept in `failures`: `verify()` (or leaving a `using`
 * block) throws it, together with any step that was never reached.
 *
 * @example
 * ```ts
 * import { reply, scriptedModel } from "./scripted_model.ts";
 * using model = scriptedModel([{ events: [reply("hi")] }]);
 * const signal = new AbortController().signal;
 * const events = [];
 * for await (const e of model.stream({ messages: [], tools: [] }, { signal })) events.push(e);
 * if (model.requests.length !== 1 || events[0].type !== "completed") throw new Error("recorded");
 * ```
 *
 * @module
 */

import type {
  CallIssue,
  ChatMessage,
  CompletedEvent,
  ModelEvent,
  ModelPort,
  ModelRequest,
  ToolCall,
  Usage,
} from "../../lib/chat/port.ts";

/** One expected model call. */
export interface ScriptStep {
  /** Checks the request (throw, e.g. with `assert`, to fail); runs before anything streams. */
  expect?: (req: ModelRequest, callNumber: number) => void;
  /** The events to stream, in order (normally ending with `completed`). */
  events?: ModelEvent[];
  /** An error to throw after `events` (a provider failure). */
  error?: Error;
  /** Wait for the abort signal after `events`, then throw its reason (a hanging server). */
  hang?: true;
}

/** The fake port, with what it saw. */
export interface ScriptedModel extends ModelPort, Disposable {
  /** Deep copies of every request, unexpected ones included, in order. */
  readonly requests: ModelRequest[];
  /** Failed checks and calls beyond the script, as errors. */
  readonly failures: Error[];
  /**
   * Throws the first failure, or when a step of the script was never reached.
   *
   * @throws {Error} On a failed check, an unexpected call, or an unused step.
   */
  verify(): void;
}

/**
 * Makes a scripted model.
 *
 * @param steps One step per expected call, in order.
 * @returns The port; call `verify()` at the end, or declare it with `using`.
 */
export function scriptedModel(steps: ScriptStep[]): ScriptedModel {
  const requests: ModelRequest[] = [];
  const failures: Error[] = [];
  const verify = () => {
    if (failures.length > 0) throw failures[0];
    if (requests.length < steps.length) {
      throw new Error(
        `The scripted model was called ${requests.length} time(s) but the script has ` +
          `${steps.length} steps: step ${requests.length + 1} was never reached`,
      );
    }
  };
  return {
    info: { model: "scripted", baseUrl: "scripted:" },
    requests,
    failures,
    verify,
    [Symbol.dispose]: verify,
    async *stream(req, { signal }) {
      const callNumber = requests.length + 1;
      requests.push(structuredClone(req));
      const step = steps[callNumber - 1];
      if (step === undefined) {
        const last = req.messages.at(-1);
        const error = new Error(
          `Unexpected model call ${callNumber}: the script has ${steps.length} step(s); ` +
            `the last message was ${JSON.stringify(last)}`,
        );
        failures.push(error);
        throw error;
      }
      try {
        step.expect?.(structuredClone(req), callNumber);
      } catch (error) {
        const wrapped = error instanceof Error ? error : new Error(String(error));
        wrapped.message = `Model call ${callNumber}: ${wrapped.message}`;
        failures.push(wrapped);
        throw wrapped;
      }
      for (const event of step.events ?? []) {
        if (signal.aborted) throw abortError(signal);
        yield structuredClone(event);
      }
      if (step.error) throw step.error;
      if (step.hang) {
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener("abort", () => resolve(), { once: true });
        });
        throw abortError(signal);
      }
    },
  };
}

function abortError(signal: AbortSignal): Error {
  return new DOMException(`The model call was aborted: ${String(signal.reason)}`, "AbortError");
}

/** Options of a `completed` event made by {@link completed}. */
export interface CompletedOptions {
  /** @default "stop", or "tool_calls" when the message has calls */
  finishReason?: string | null;
  /** Token counts. */
  usage?: Usage;
  /** Problems with individual calls. */
  callIssues?: CallIssue[];
  /** Raw extras (annotations, unknown choice fields). */
  raw?: CompletedEvent["raw"];
}

/**
 * A `completed` event.
 *
 * @param message The assistant message.
 * @param options Finish reason, usage, call issues, raw extras.
 * @returns The event.
 */
export function completed(message: ChatMessage, options: CompletedOptions = {}): CompletedEvent {
  return {
    type: "completed",
    message,
    finishReason: options.finishReason !== undefined
      ? options.finishReason
      : message.tool_calls?.length
      ? "tool_calls"
      : "stop",
    ...(options.usage ? { usage: options.usage } : {}),
    callIssues: options.callIssues ?? [],
    raw: options.raw ?? {},
  };
}

/**
 * A final text answer.
 *
 * @param text The answer.
 * @param options See {@link completed}.
 * @returns The `completed` event of a message without calls.
 */
export function reply(text: string, options: CompletedOptions = {}): CompletedEvent {
  return completed({ role: "assistant", content: text }, options);
}

/**
 * A tool call.
 *
 * @param id The call id.
 * @param name The function name.
 * @param args The arguments: an object (serialized) or the exact text.
 * @returns The call.
 */
export function call(id: string, name: string, args: unknown = {}): ToolCall {
  return {
    id,
    type: "function",
    function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
  };
}

/**
 * An assistant message that asks for tool calls.
 *
 * @param calls The calls, in order.
 * @param options See {@link completed}.
 * @returns The `completed` event.
 */
export function callsReply(calls: ToolCall[], options: CompletedOptions = {}): CompletedEvent {
  return completed({ role: "assistant", content: null, tool_calls: calls }, options);
}
