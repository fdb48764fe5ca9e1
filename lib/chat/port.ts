/**
 * The model port: what the chat loop needs from a model, and the events it streams.
 *
 * `createOpenAIProvider()` (provider.ts) and `createReplayProvider()` (replay.ts)
 * implement it.
 *
 * @module
 */

import type { ChatMessage, Usage } from "./messages.ts";

export type { ChatMessage, ToolCall, Usage } from "./messages.ts";

/** One model call: the history and the tools offered. */
export interface ModelRequest {
  /** The conversation so far. */
  messages: ChatMessage[];
  /** Function tools AND provider-native tools, sent verbatim (omitted when empty). */
  tools: unknown[];
}

/**
 * A problem with one tool call of a completed message. The loop answers the call with an
 * error result instead of running it; it never repairs the arguments.
 */
export interface CallIssue {
  /** The (final) id of the call. */
  id: string;
  /** `malformed-json`: arguments do not parse; `truncated`: cut by the token limit;
   * `empty-name`: the call has no function name. */
  kind: "malformed-json" | "truncated" | "empty-name";
  /** What is wrong, for the tool result the model receives. */
  detail: string;
}

/** Events of one model call, in order; `completed` is always last. */
export type ModelEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "tool_call_started"; index: number; id: string; name: string }
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | { type: "warning"; code: string; message: string }
  | {
    type: "completed";
    /** The assistant message to append to history, unknown fields kept verbatim. */
    message: ChatMessage;
    /** The finish reason, corrected to what arrived (see the `finish-reason-mismatch` warning). */
    finishReason: string | null;
    /** Token counts, when the server sent them. */
    usage?: Usage;
    /** Problems with individual tool calls. */
    callIssues: CallIssue[];
    /** Raw extras: annotations/citations, and unknown fields of the choice. */
    raw: { annotations?: unknown; extraChoiceFields?: Record<string, unknown> };
  };

/** The event that ends a successful call. */
export type CompletedEvent = Extract<ModelEvent, { type: "completed" }>;

/** A model behind an OpenAI-compatible API (or a recording of one). */
export interface ModelPort {
  /**
   * Streams one model call.
   *
   * @param req The history and tools.
   * @param opts `signal` aborts the call at any await.
   * @returns The events; the last one is `completed`.
   * @throws {ProviderError} On transport, HTTP or stream errors (after retries).
   */
  stream(req: ModelRequest, opts: { signal: AbortSignal }): AsyncIterable<ModelEvent>;
  /** What the port talks to. */
  readonly info: { model: string; baseUrl: string };
}
