/**
 * Provider errors: one typed error with a `kind`, a message naming the URL, the status and
 * the server's own words, and a hint that says what to change.
 *
 * @module
 */

import { ExitCode, HarnessError } from "../errors.ts";
import type { CodeInfo } from "../types.ts";

/** Why a model call failed. */
export type ProviderErrorKind =
  | "http"
  | "network"
  | "timeout"
  | "stream-cut"
  | "stream-error"
  | "aborted"
  | "tools-unsupported"
  | "bad-response";

/**
 * A failed model call. Exit code 3 (provider error), or 130 when the call was aborted.
 *
 * @example
 * ```ts
 * import { ProviderError } from "./errors.ts";
 * const e = new ProviderError("timeout", "Request to \"http://x/v1/chat/completions\" timed out");
 * if (e.exitCode !== 3 || e.kind !== "timeout") throw new Error("unexpected");
 * ```
 */
export class ProviderError extends HarnessError {
  /** The failure class; callers branch on it. */
  readonly kind: ProviderErrorKind;
  /** The HTTP status, for `http` and `tools-unsupported`. */
  readonly status?: number;
  /** The response body text (truncated to 4 KiB), when there was one. */
  readonly body?: string;

  /**
   * @param kind The failure class.
   * @param message What failed, naming the URL, status and server message.
   * @param options `status`, `body`, `hint` (the fix), `cause`.
   */
  constructor(
    kind: ProviderErrorKind,
    message: string,
    options: { status?: number; body?: string; hint?: string; cause?: unknown } = {},
  ) {
    super(message, kind === "aborted" ? ExitCode.Interrupted : ExitCode.Provider, options);
    this.name = "ProviderError";
    this.kind = kind;
    if (options.status !== undefined) this.status = options.status;
    if (options.body !== undefined) this.body = options.body.slice(0, 4096);
  }
}

/** Warning codes the provider emits as `warning` events. */
export const PROVIDER_CODES: readonly CodeInfo[] = [
  {
    code: "text-tool-call",
    severity: "warning",
    summary: "the model wrote a tool call as text; the server's tool parser is not enabled",
  },
  {
    code: "finish-reason-mismatch",
    severity: "warning",
    summary: "finish_reason disagrees with what arrived; decided by the tool calls received",
  },
  {
    code: "stream-options-unsupported",
    severity: "warning",
    summary: "the server rejected stream_options; usage may be missing",
  },
  {
    code: "parallel-tool-calls-unsupported",
    severity: "warning",
    summary: "the server rejected parallel_tool_calls; it is no longer sent",
  },
];

/**
 * Extracts the server's error message from a response body: `{error: {message}}`
 * (OpenAI, llama.cpp, Ollama), `{error: "text"}`, `{message}` (vLLM `object: "error"`),
 * `{detail}`; otherwise the text itself, shortened.
 *
 * @param body The response body text.
 * @returns One line, at most 500 characters.
 */
export function serverMessage(body: string): string {
  let text = body.trim();
  try {
    const json = JSON.parse(text) as unknown;
    const found = messageOf(json);
    if (found !== undefined) text = found;
  } catch {
    // not JSON: use the text
  }
  text = text.replace(/\s+/g, " ");
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function messageOf(json: unknown): string | undefined {
  if (typeof json === "string") return json;
  if (typeof json !== "object" || json === null) return undefined;
  const o = json as Record<string, unknown>;
  if (o.error !== undefined) {
    const inner = messageOf(o.error);
    if (inner !== undefined) return inner;
  }
  for (const key of ["message", "detail", "msg"]) {
    if (typeof o[key] === "string") return o[key] as string;
  }
  return undefined;
}

/** Known "this server cannot do tools" answers, most specific first. */
const TOOL_ERRORS: { test: RegExp; hint: string }[] = [
  {
    test: /enable-auto-tool-choice/,
    hint:
      "start vLLM with `--enable-auto-tool-choice --tool-call-parser <name>` (the parser that " +
      "matches the model: hermes, mistral, llama3_json, qwen3_coder, …)",
  },
  {
    test: /--jinja|unsupported param: tools/i,
    hint: "start llama-server with `--jinja` (and a chat template that supports tools)",
  },
  {
    test: /does not support tools/i,
    hint: 'pick an Ollama model with tool support (`ollama list`, the model page shows a "tools" ' +
      "tag), or run without tools",
  },
  {
    test:
      /tools?\b.*\b(not supported|unsupported|not enabled)|(not support|unsupported).*\btools?\b/i,
    hint:
      "this server or model does not accept `tools`: enable tool calling in the server, pick a " +
      "model that supports it, or run without tools",
  },
];

/**
 * Turns a non-2xx response into a `ProviderError` with a hint.
 *
 * @param url The request URL.
 * @param status The HTTP status.
 * @param body The response body text.
 * @param sentTools Whether the request carried tools (tool errors are recognised only then).
 * @returns The error, `tools-unsupported` when a known "no tools" answer was recognised.
 */
export function httpError(
  url: string,
  status: number,
  body: string,
  sentTools: boolean,
): ProviderError {
  const said = serverMessage(body);
  const message = `Request to "${url}" failed with HTTP ${status}: ${said || "(empty body)"}`;
  if (sentTools) {
    const known = TOOL_ERRORS.find((t) => t.test.test(body));
    if (known !== undefined) {
      return new ProviderError("tools-unsupported", message, { status, body, hint: known.hint });
    }
  }
  return new ProviderError("http", message, { status, body, hint: statusHint(status, body) });
}

/** True when a response body names a tool-support problem (never retried, even on 5xx). */
export function isToolsUnsupported(body: string): boolean {
  return TOOL_ERRORS.some((t) => t.test.test(body));
}

function statusHint(status: number, body: string): string {
  if (status === 401 || status === 403) {
    return "check the API key (the provider's apiKey setting) and that it may use this model";
  }
  if (status === 404) {
    return 'check baseUrl (OpenAI-compatible servers usually end in "/v1") and the model name';
  }
  if (status === 413 || /context|too long|maximum.*tokens/i.test(body)) {
    return "the conversation is too long for the model: lower maxTokens or shorten the history";
  }
  if (status === 429) {
    return "rate limited after retries: wait, raise maxRetries or use another key";
  }
  if (status >= 500) return "the server failed after retries: check its logs, or try again later";
  return "check the model name and the request settings (extraBody, temperature, maxTokens)";
}
