/**
 * The OpenAI-compatible model provider: `POST {baseUrl}/chat/completions`, streamed or not,
 * with retries, timeouts, abort and actionable errors.
 *
 * Retries (exponential backoff with full jitter, or the server's `Retry-After` /
 * `retry-after-ms`, capped at 60 s) cover network errors, timeouts before the first body
 * byte, and HTTP 408, 409, 429 and 5xx. **Nothing is retried once a body byte was
 * consumed**: the caller may already have shown or acted on the text, and a retry would
 * produce a different answer, so a stream that breaks mid-way is a `stream-cut` error
 * the loop decides about. Known "tools not supported" answers are never retried, even as
 * HTTP 500 (llama.cpp).
 *
 * Two request fields are dropped for the provider's lifetime when a server rejects them
 * with HTTP 400/422 naming them: `stream_options` and `parallel_tool_calls`; the request
 * is then repeated at once (not counted as a retry) and a `warning` is emitted.
 *
 * @module
 */

import { backoffMs, buildBody, isRetryableStatus, retryAfterMs } from "./_request.ts";
import { assembleResponse, chunkError, StreamAssembler } from "./assemble.ts";
import { aborted, Attempt } from "./_attempt.ts";
import { createRecorder } from "./_recorder.ts";
import { httpError, isToolsUnsupported, ProviderError } from "./errors.ts";
import type { ChatCompletionChunk } from "./messages.ts";
import type { ModelEvent, ModelPort, ModelRequest } from "./port.ts";
import { SseParser } from "./sse.ts";
import { sleep as abortableSleep } from "../_timers.ts";

/** Default time to first byte, and longest silence between chunks. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** Default number of retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 3;
/** Default base of the exponential backoff. */
export const DEFAULT_RETRY_BASE_MS = 500;

/** Settings of {@link createOpenAIProvider}. */
export interface OpenAISettings {
  /** Server base URL, e.g. "http://localhost:11434/v1" (trailing slashes are fine). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  /** Model name. */
  model: string;
  /** Sampling temperature. */
  temperature?: number;
  /** Sent as `max_tokens`. */
  maxTokens?: number;
  /** Sent as `top_p`. */
  topP?: number;
  /** Stream the response. @default true */
  stream?: boolean;
  /** Extra request headers (they override the defaults). */
  headers?: Record<string, string>;
  /** Deep-merged into every request body last; a `null` removes a field. */
  extraBody?: Record<string, unknown>;
  /** Sent as `parallel_tool_calls` only when set (and there are tools). */
  parallelToolCalls?: boolean;
  /** Time to first byte AND longest silence between chunks. @default 120000 */
  requestTimeoutMs?: number;
  /** Retries after the first attempt. @default 3 */
  maxRetries?: number;
  /** Backoff base. @default 500 */
  retryBaseMs?: number;
  /** Tool call id format: "mistral9" rewrites ids to `^[a-zA-Z0-9]{9}$` (automatic for hosts
   * ending in "mistral.ai"); "none" turns the automatic choice off. */
  toolCallIdFormat?: "mistral9" | "none";
  /** Record every HTTP exchange to this JSONL file (see `replay.ts`). */
  recordTo?: string;
}

/** Injectable effects, for tests and replay. */
export interface ProviderDeps {
  /** The HTTP client. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Waits `ms`, rejecting when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1), for jitter. @default Math.random */
  random?: () => number;
  /** Current time in ms since the epoch, for HTTP-date `Retry-After`. @default Date.now */
  now?: () => number;
}

/**
 * Creates a model port for an OpenAI-compatible Chat Completions server.
 *
 * @param settings Server, model and request settings.
 * @param deps Injected fetch, sleep, random and clock.
 * @returns The port; `stream()` throws {@link ProviderError}.
 * @example
 * ```ts
 * import { createOpenAIProvider } from "./provider.ts";
 * const port = createOpenAIProvider({ baseUrl: "http://127.0.0.1:8080/v1/", model: "m" });
 * if (port.info.baseUrl !== "http://127.0.0.1:8080/v1") throw new Error("not normalised");
 * ```
 */
export function createOpenAIProvider(settings: OpenAISettings, deps: ProviderDeps = {}): ModelPort {
  const baseUrl = settings.baseUrl.trim().replace(/\/+$/, "").replace(/\/chat\/completions$/, "");
  const url = `${baseUrl}/chat/completions`;
  const transport = deps.fetch ?? globalThis.fetch;
  const fetchFn = settings.recordTo ? createRecorder(transport, settings.recordTo) : transport;
  const sleep = deps.sleep ?? abortableSleep;
  const random = deps.random ?? Math.random;
  const now = deps.now ?? Date.now;
  const streaming = settings.stream ?? true;
  const timeoutMs = settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxRetries = settings.maxRetries ?? DEFAULT_MAX_RETRIES;
  const retryBaseMs = settings.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  const mistralIds = settings.toolCallIdFormat === "mistral9" ||
    (settings.toolCallIdFormat === undefined && isMistralHost(baseUrl));
  // Remembered for the provider's lifetime once a server rejects them.
  let sendStreamOptions = true;
  let sendParallel = settings.parallelToolCalls !== undefined;

  async function* stream(req: ModelRequest, opts: { signal: AbortSignal }) {
    const { signal } = opts;
    let retries = 0;
    for (;;) {
      if (signal.aborted) throw aborted(url, signal);
      const body = buildBody({
        model: settings.model,
        messages: req.messages,
        tools: req.tools,
        stream: streaming,
        streamOptions: sendStreamOptions,
        temperature: settings.temperature,
        maxTokens: settings.maxTokens,
        topP: settings.topP,
        parallelToolCalls: sendParallel ? settings.parallelToolCalls : undefined,
        mistralIds,
        extraBody: settings.extraBody,
      });
      const attempt = new Attempt(signal, timeoutMs, url);
      let failure: { reason: string; error: ProviderError; res?: Response };
      try {
        const res = await attempt.guard(fetchFn(url, {
          method: "POST",
          headers: headersFor(settings, streaming),
          body: JSON.stringify(body),
          signal: attempt.signal,
        }));
        if (res.ok) {
          yield* readResponse(res, attempt, streaming, {
            toolCallIdFormat: mistralIds ? "mistral9" : undefined,
            seed: String(req.messages.length),
          });
          return;
        }
        const text = await attempt.text(res);
        const rejected = res.status === 400 || res.status === 422;
        if (rejected && sendStreamOptions && body.stream_options && /stream_options/.test(text)) {
          sendStreamOptions = false;
          yield warn("stream-options-unsupported", "stream_options", url);
          continue;
        }
        if (
          rejected && sendParallel && "parallel_tool_calls" in body &&
          /parallel_tool_calls/.test(text)
        ) {
          sendParallel = false;
          yield warn("parallel-tool-calls-unsupported", "parallel_tool_calls", url);
          continue;
        }
        const error = httpError(url, res.status, text, req.tools.length > 0);
        if (!isRetryableStatus(res.status) || isToolsUnsupported(text)) throw error;
        failure = { reason: `HTTP ${res.status}`, error, res };
      } catch (e) {
        const error = attempt.classify(e);
        if (error.kind !== "network" && error.kind !== "timeout") throw error;
        if (attempt.consumed) throw error; // never retry after the first body byte
        failure = { reason: error.kind === "timeout" ? "timeout" : "network error", error };
      } finally {
        attempt.dispose();
      }
      if (retries >= maxRetries) throw failure.error;
      const asked = failure.res ? retryAfterMs(failure.res.headers, now()) : undefined;
      const delayMs = asked ?? backoffMs(retries, retryBaseMs, random());
      retries++;
      yield { type: "retry", attempt: retries, delayMs, reason: failure.reason } as ModelEvent;
      try {
        await sleep(delayMs, signal);
      } catch {
        throw aborted(url, signal);
      }
    }
  }

  return { stream, info: { model: settings.model, baseUrl } };
}

async function* readResponse(
  res: Response,
  attempt: Attempt,
  streaming: boolean,
  opts: { toolCallIdFormat?: "mistral9"; seed: string },
): AsyncGenerator<ModelEvent> {
  const type = res.headers.get("content-type") ?? "";
  const isSse = type.includes("text/event-stream") || (streaming && !type.includes("json"));
  if (!isSse) {
    const text = await attempt.text(res);
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text);
    } catch {
      throw attempt.badResponse(`the body is not JSON: ${text.slice(0, 200)}`);
    }
    const said = chunkError(json as ChatCompletionChunk);
    if (said !== undefined) throw attempt.streamError(said);
    try {
      yield* assembleResponse(json, opts);
    } catch (e) {
      throw attempt.badResponse((e as Error).message);
    }
    return;
  }
  const assembler = new StreamAssembler(opts);
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  let done = false;
  try {
    while (!done) {
      const piece = await attempt.read(reader);
      const events = piece === undefined
        ? [...parser.feed(decoder.decode()), ...parser.end()]
        : parser.feed(decoder.decode(piece, { stream: true }));
      for (const ev of events) {
        if (ev.data === "[DONE]") {
          done = true;
          break;
        }
        let chunk: ChatCompletionChunk;
        try {
          chunk = JSON.parse(ev.data);
        } catch {
          throw attempt.badResponse(`a stream event is not JSON: ${ev.data.slice(0, 200)}`);
        }
        const said = chunkError(chunk);
        if (said !== undefined) throw attempt.streamError(said);
        yield* assembler.push(chunk);
      }
      if (piece === undefined) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (!done && !assembler.finished) {
    throw new ProviderError(
      "stream-cut",
      `The stream from "${attempt.url}" ended before the response was complete (no ` +
        `finish_reason, no [DONE])`,
      { hint: "the server or a proxy closed the connection: check its logs and try again" },
    );
  }
  yield* assembler.finish();
}

function warn(code: string, field: string, url: string): ModelEvent {
  return {
    type: "warning",
    code,
    message: `The server at "${url}" rejected "${field}": it is no longer sent to this server`,
  };
}

function headersFor(s: OpenAISettings, streaming: boolean): Record<string, string> {
  const h: Record<string, string> = {
    "content-type": "application/json",
    accept: streaming ? "text/event-stream" : "application/json",
  };
  if (s.apiKey) h.authorization = `Bearer ${s.apiKey}`;
  for (const [k, v] of Object.entries(s.headers ?? {})) h[k.toLowerCase()] = v;
  return h;
}

function isMistralHost(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname.endsWith("mistral.ai");
  } catch {
    return false;
  }
}
