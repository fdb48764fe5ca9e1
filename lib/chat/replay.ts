/**
 * Record and replay model calls at the HTTP layer.
 *
 * A recording is JSONL, one exchange per line, appended as each response body ends:
 * `{n, request: {url, body}, response: {status, headers, body, cut?}}`, or
 * `{n, request, error}` when the request itself failed. `body` is the raw response text
 * (SSE or JSON), so a replay goes through the same SSE parser and assembler and every
 * quirk replays identically. Request headers are not recorded: the API key never lands
 * in the file. Response headers are reduced to `content-type`, `retry-after` and
 * `retry-after-ms`.
 *
 * A replay serves the exchanges in order, offline, and checks each live request against
 * the recorded one on what decides the conversation's shape:
 * - `model` and `stream`;
 * - `messages.length` and every `messages[i].role`;
 * - on assistant messages: the number of `tool_calls`, each `tool_calls[j].id` and
 *   `tool_calls[j].function.name`;
 * - on tool messages: `tool_call_id`;
 * - `tools`: their number, and each `tools[k].function.name` (function tools) or
 *   `tools[k].type` (provider-native tools).
 *
 * Text is NOT compared (user, assistant and tool message content, tool arguments,
 * descriptions, schemas), nor sampling settings: tool output may legitimately vary
 * between runs (timestamps, paths).
 *
 * @module
 */

import { ExitCode, HarnessError } from "../errors.ts";
import type { ModelPort } from "./port.ts";
import { createRecorder, type Exchange, parseJson } from "./_recorder.ts";
import { createOpenAIProvider, type OpenAISettings, type ProviderDeps } from "./provider.ts";

export { createRecorder, type Exchange };

/** A replayed run sent a request that differs from the recording. */
export class ReplayMismatchError extends HarnessError {
  /** 1-based exchange number. */
  readonly exchange: number;
  /** JSON path of the first difference, e.g. "messages[3].tool_calls[0].id". */
  readonly path: string;
  /** The value in this run. */
  readonly live: unknown;
  /** The value in the recording. */
  readonly recorded: unknown;

  /**
   * @param file The recording.
   * @param exchange 1-based exchange number.
   * @param path JSON path of the difference.
   * @param live The value in this run.
   * @param recorded The value in the recording.
   */
  constructor(file: string, exchange: number, path: string, live: unknown, recorded: unknown) {
    super(
      `Replay of "${file}" diverged at exchange ${exchange}: ${path} is ` +
        `${JSON.stringify(live)} in this run but ${JSON.stringify(recorded)} in the recording`,
      ExitCode.Failed,
      { hint: "the conversation changed since it was recorded: record it again" },
    );
    this.name = "ReplayMismatchError";
    this.exchange = exchange;
    this.path = path;
    this.live = live;
    this.recorded = recorded;
  }
}

/** A replayed run made more model calls than the recording holds. */
export class ReplayExhaustedError extends HarnessError {
  /**
   * @param file The recording.
   * @param exchange The 1-based number of the request that found no exchange.
   */
  constructor(file: string, exchange: number) {
    super(
      `Replay of "${file}" has no exchange ${exchange}: the recording holds ${exchange - 1}`,
      ExitCode.Failed,
      { hint: "the run made more model calls than were recorded: record it again" },
    );
    this.name = "ReplayExhaustedError";
  }
}

/**
 * A provider that records every exchange to `file` while talking to the real server
 * (the same as the `recordTo` setting).
 *
 * @param settings Provider settings.
 * @param file The JSONL recording to write.
 * @param deps Provider deps; `deps.fetch` is the real transport.
 * @returns The recording model port.
 */
export function createRecordingProvider(
  settings: OpenAISettings,
  file: string,
  deps: ProviderDeps = {},
): ModelPort {
  return createOpenAIProvider({ ...settings, recordTo: file }, deps);
}

/**
 * Reads a recording.
 *
 * @param file The JSONL file.
 * @returns Its exchanges, in order.
 * @throws {SyntaxError} When a line is not JSON (naming the line).
 */
export function readRecording(file: string): Exchange[] {
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? "the file does not exist"
      : (e as Error).message;
    throw new HarnessError(`Cannot read recording "${file}": ${why}`, ExitCode.Usage, {
      hint: "record one first with --record FILE, or fix the --replay path",
    });
  }
  const out: Exchange[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      out.push(JSON.parse(line));
    } catch (e) {
      throw new HarnessError(
        `Cannot read recording "${file}": line ${i + 1} is not JSON: ${(e as Error).message}`,
        ExitCode.Usage,
        { hint: "the recording is damaged: record it again with --record FILE" },
      );
    }
  });
  return out;
}

/**
 * A model port that replays a recording offline through the real provider code.
 *
 * `model`, `baseUrl` and `stream` come from the first recorded request; pass the
 * `maxRetries` used when recording if it was not the default. Waits between retries are
 * skipped.
 *
 * @param file The JSONL recording.
 * @param settings Overrides of the provider settings.
 * @returns The replaying port; `stream()` throws {@link ReplayMismatchError} or
 *   {@link ReplayExhaustedError} when the run departs from the recording.
 * @throws {Deno.errors.NotFound} When the file does not exist.
 */
export function createReplayProvider(
  file: string,
  settings: Partial<OpenAISettings> = {},
): ModelPort {
  const exchanges = readRecording(file);
  const first = exchanges[0]?.request;
  const firstBody = (first?.body ?? {}) as Record<string, unknown>;
  let next = 0;
  const replayFetch = (_input: string | URL | Request, init?: RequestInit) => {
    const n = next + 1;
    const ex = exchanges[next++];
    if (ex === undefined) return Promise.reject(new ReplayExhaustedError(file, n));
    const live = parseJson(typeof init?.body === "string" ? init.body : "");
    const diff = compareRequests(live, ex.request.body);
    if (diff !== undefined) {
      return Promise.reject(new ReplayMismatchError(file, n, diff.path, diff.live, diff.recorded));
    }
    if (ex.error !== undefined) return Promise.reject(toError(ex.error));
    const r = ex.response!;
    const bytes = new TextEncoder().encode(r.body);
    let sent = bytes.length === 0;
    // Pull-based: erroring in the same call as the enqueue would discard the bytes.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(bytes);
        } else if (r.cut) controller.error(toError(r.cut));
        else controller.close();
      },
    }, { highWaterMark: 0 });
    return Promise.resolve(new Response(body, { status: r.status, headers: r.headers }));
  };
  return createOpenAIProvider(
    {
      baseUrl: first?.url ?? "http://replay.invalid/v1",
      model: typeof firstBody.model === "string" ? firstBody.model : "replay",
      stream: firstBody.stream !== false,
      ...settings,
    },
    {
      fetch: replayFetch,
      sleep: (_ms, signal) => signal.aborted ? Promise.reject(signal.reason) : Promise.resolve(),
      random: () => 0,
    },
  );
}

/** A difference between two request bodies. */
export interface RequestDiff {
  /** JSON path, e.g. "messages[2].tool_call_id". */
  path: string;
  /** Value in the live request. */
  live: unknown;
  /** Value in the recorded request. */
  recorded: unknown;
}

/**
 * Compares a live request body with a recorded one on what matters (see the module doc).
 *
 * @param live The body sent in this run.
 * @param recorded The body in the recording.
 * @returns The first difference, or undefined when they match.
 */
export function compareRequests(live: unknown, recorded: unknown): RequestDiff | undefined {
  const a = obj(live);
  const b = obj(recorded);
  const checks: [string, unknown, unknown][] = [["model", a.model, b.model], [
    "stream",
    a.stream,
    b.stream,
  ]];
  const am = arr(a.messages);
  const bm = arr(b.messages);
  checks.push(["messages.length", am.length, bm.length]);
  for (let i = 0; i < Math.min(am.length, bm.length); i++) {
    const x = obj(am[i]);
    const y = obj(bm[i]);
    const at = `messages[${i}]`;
    checks.push([`${at}.role`, x.role, y.role]);
    if (x.role === "tool") checks.push([`${at}.tool_call_id`, x.tool_call_id, y.tool_call_id]);
    const xc = arr(x.tool_calls);
    const yc = arr(y.tool_calls);
    checks.push([`${at}.tool_calls.length`, xc.length, yc.length]);
    for (let j = 0; j < Math.min(xc.length, yc.length); j++) {
      checks.push([`${at}.tool_calls[${j}].id`, obj(xc[j]).id, obj(yc[j]).id]);
      checks.push([
        `${at}.tool_calls[${j}].function.name`,
        obj(obj(xc[j]).function).name,
        obj(obj(yc[j]).function).name,
      ]);
    }
  }
  const at = arr(a.tools);
  const bt = arr(b.tools);
  checks.push(["tools.length", at.length, bt.length]);
  for (let k = 0; k < Math.min(at.length, bt.length); k++) {
    const [path, x] = toolKey(at[k], k);
    const [, y] = toolKey(bt[k], k);
    checks.push([path, x, y]);
  }
  for (const [path, x, y] of checks) {
    if (x !== y) return { path, live: x, recorded: y };
  }
  return undefined;
}

function toolKey(tool: unknown, k: number): [string, unknown] {
  const t = obj(tool);
  return t.type === "function"
    ? [`tools[${k}].function.name`, obj(t.function).name]
    : [`tools[${k}].type`, t.type];
}

function obj(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? v as Record<string, unknown>
    : {};
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function toError(rec: { name: string; message: string }): Error {
  return rec.name === "TypeError"
    ? new TypeError(rec.message)
    : new DOMException(rec.message, rec.name);
}
