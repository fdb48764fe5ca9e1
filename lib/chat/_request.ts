/**
 * Request-side helpers of the OpenAI-compatible provider: the body, `extraBody` merging,
 * Mistral id rewriting of the history, and retry timing.
 *
 * @module
 */

import { toMistralId } from "./_ids.ts";
import type { ChatMessage, ChatRequestBody } from "./messages.ts";

/** Longest wait harness accepts from `Retry-After` / `retry-after-ms`. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** Cap of the exponential backoff before jitter. */
export const MAX_BACKOFF_MS = 30_000;

/** What shapes a request body. */
export interface BodyOptions {
  model: string;
  messages: ChatMessage[];
  tools: unknown[];
  stream: boolean;
  streamOptions: boolean;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  parallelToolCalls?: boolean;
  mistralIds: boolean;
  extraBody?: Record<string, unknown>;
}

/**
 * Builds the JSON body of `POST /chat/completions`.
 *
 * `tools` and `parallel_tool_calls` are sent only when there are tools (servers reject
 * both otherwise). `extraBody` is deep-merged last; a `null` in it removes the field.
 *
 * @param o The settings and the request.
 * @returns The body object.
 */
export function buildBody(o: BodyOptions): ChatRequestBody {
  const body: ChatRequestBody = {
    model: o.model,
    messages: o.mistralIds ? o.messages.map(mistralMessage) : o.messages,
    stream: o.stream,
  };
  if (o.tools.length > 0) body.tools = o.tools;
  if (o.stream && o.streamOptions) body.stream_options = { include_usage: true };
  if (o.temperature !== undefined) body.temperature = o.temperature;
  if (o.maxTokens !== undefined) body.max_tokens = o.maxTokens;
  if (o.topP !== undefined) body.top_p = o.topP;
  if (o.parallelToolCalls !== undefined && o.tools.length > 0) {
    body.parallel_tool_calls = o.parallelToolCalls;
  }
  return o.extraBody ? deepMerge(body, o.extraBody) as ChatRequestBody : body;
}

/**
 * Deep-merges `extra` into `base`: objects merge key by key, anything else replaces,
 * `null` deletes the key.
 *
 * @param base The object to start from (not mutated).
 * @param extra The overrides.
 * @returns A new object.
 */
export function deepMerge(
  base: Record<string, unknown>,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    if (v === null) delete out[k];
    else if (isPlainObject(v) && isPlainObject(out[k])) {
      out[k] = deepMerge(out[k] as Record<string, unknown>, v);
    } else out[k] = v;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Rewrites the tool call ids of a history message to Mistral's 9-character format. */
function mistralMessage(m: ChatMessage): ChatMessage {
  if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
    return { ...m, tool_calls: m.tool_calls.map((tc) => ({ ...tc, id: toMistralId(tc.id) })) };
  }
  if (m.role === "tool" && typeof m.tool_call_id === "string") {
    return { ...m, tool_call_id: toMistralId(m.tool_call_id) };
  }
  return m;
}

/**
 * Reads the server's requested wait: `retry-after-ms` (milliseconds), else `Retry-After`
 * (seconds or an HTTP date), capped at {@link MAX_RETRY_AFTER_MS}.
 *
 * @param headers The response headers.
 * @param now The current time in ms since the epoch (for HTTP dates).
 * @returns The wait in ms, or undefined when the server asked for none.
 */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) {
    return clamp(Number(ms));
  }
  const ra = headers.get("retry-after");
  if (ra === null || ra.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return clamp(Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : clamp(date - now);
}

function clamp(ms: number): number {
  return Math.round(Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms)));
}

/**
 * Exponential backoff with full jitter: a uniform wait in `[0, min(cap, base·2^attempt))`.
 *
 * @param attempt 0 for the first retry.
 * @param baseMs The base delay.
 * @param random A number in [0, 1).
 * @returns The wait in ms.
 */
export function backoffMs(attempt: number, baseMs: number, random: number): number {
  return Math.round(random * Math.min(MAX_BACKOFF_MS, baseMs * 2 ** attempt));
}

/** HTTP statuses worth retrying. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
