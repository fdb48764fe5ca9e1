/**
 * Assembles streamed chat completion chunks into events and one assistant message,
 * surviving the quirks of real servers.
 *
 * Tool-call fragments are routed by `id` first, then `index`, then "the last call":
 * - an `id` seen before continues that call; a new `id` on an index that already holds
 *   a call with another id starts a second call (Ollama sends `index: 0` for every call);
 * - no `index` (older Ollama): the id decides, else the last call;
 * - no `id` (some local servers): a stable `call_<hash>` of response id, history length
 *   and position is synthesized;
 * - a name fragment equal to the name so far is a repeat and ignored; a different one
 *   before any argument is concatenated (split names); a new name after arguments on an
 *   id-less fragment starts a new call.
 *
 * At the end: `""` arguments become `"{}"`; arguments that do not parse become a
 * `malformed-json` issue (or `truncated` when `finish_reason` is "length"), never `{}`;
 * `finish_reason` is decided by what arrived (a warning says when it lied); tool calls
 * written as text are reported with a `text-tool-call` warning, never run; Mistral ids
 * are rewritten to 9 characters. Unknown fields of the message, of each call and of each
 * function are merged (see `_merge.ts`) and kept.
 *
 * @module
 */

import { syntheticCallId, toMistralId } from "./_ids.ts";
import { mergeDelta, mergeFields } from "./_merge.ts";
import { detectTextToolCall } from "./_text_calls.ts";
import type {
  ChatCompletionChunk,
  ChatMessage,
  ToolCall,
  ToolCallDelta,
  Usage,
} from "./messages.ts";
import type { CallIssue, ModelEvent } from "./port.ts";

/** Options of a {@link StreamAssembler}. */
export interface AssembleOptions {
  /** `"mistral9"`: rewrite tool call ids to `^[a-zA-Z0-9]{9}$`. */
  toolCallIdFormat?: "mistral9";
  /** Distinguishes synthesized ids between turns (use the history length). @default "" */
  seed?: string;
  /** Keep `null` fields (a non-streaming message is taken as it is). @default false */
  keepNulls?: boolean;
}

interface CallState {
  serverId?: string;
  id: string;
  index?: number;
  name: string;
  args: string;
  extras: Record<string, unknown>;
  fnExtras: Record<string, unknown>;
  started: boolean;
}

const DELTA_KNOWN = new Set(["role", "content", "tool_calls"]);
const CALL_KNOWN = new Set(["index", "id", "type", "function"]);
const FN_KNOWN = new Set(["name", "arguments"]);
const CHOICE_KNOWN = new Set(["index", "delta", "message", "finish_reason"]);
const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

/**
 * Returns the error message carried by a chunk (`{"error": {...}}` in an HTTP 200 stream,
 * or vLLM's `{"object": "error", "message": ...}`), or undefined for a normal chunk.
 *
 * @param chunk A parsed `data:` payload.
 * @returns The server's message, or undefined.
 */
export function chunkError(chunk: ChatCompletionChunk): string | undefined {
  const e = chunk.error;
  if (e !== undefined && e !== null) {
    if (typeof e === "string") return e;
    const m = (e as Record<string, unknown>).message;
    return typeof m === "string" ? m : JSON.stringify(e);
  }
  if (chunk.object === "error") {
    return typeof chunk.message === "string" ? chunk.message : JSON.stringify(chunk);
  }
  return undefined;
}

/**
 * Accumulates chunks of one response.
 *
 * @example
 * ```ts
 * import { StreamAssembler } from "./assemble.ts";
 * const a = new StreamAssembler();
 * a.push({ choices: [{ delta: { content: "Hi" } }] });
 * a.push({ choices: [{ delta: {}, finish_reason: "stop" }] });
 * const done = a.finish().at(-1);
 * if (done?.type !== "completed" || done.message.content !== "Hi") throw new Error("bad");
 * ```
 */
export class StreamAssembler {
  #opts: AssembleOptions;
  #responseId = "";
  #text = "";
  #parts: unknown[] | undefined;
  #extras: Record<string, unknown> = {};
  #calls: CallState[] = [];
  #byServerId = new Map<string, CallState>();
  #byIndex = new Map<number, CallState>();
  #finishReason: string | null = null;
  #usage: Usage | undefined;
  #citations: unknown;
  #choiceExtras: Record<string, unknown> = {};

  /** @param opts Id format, id seed, null handling. */
  constructor(opts: AssembleOptions = {}) {
    this.#opts = opts;
  }

  /** True once a chunk carried a `finish_reason`. */
  get finished(): boolean {
    return this.#finishReason !== null;
  }

  /**
   * Takes one parsed chunk (choice 0 only).
   *
   * @param chunk A `data:` payload (check {@link chunkError} first).
   * @returns The text, reasoning and tool-call-start events it produced.
   */
  push(chunk: ChatCompletionChunk): ModelEvent[] {
    const out: ModelEvent[] = [];
    if (typeof chunk.id === "string" && chunk.id !== "") this.#responseId = chunk.id;
    if (chunk.usage) this.#usage = chunk.usage;
    if (chunk.citations !== undefined) this.#citations = chunk.citations;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = choices.find((c) => (c.index ?? 0) === 0) ?? choices[0];
    if (choice === undefined) return out;
    for (const [k, v] of Object.entries(choice)) {
      if (!CHOICE_KNOWN.has(k) && v !== null && v !== undefined) this.#choiceExtras[k] = v;
    }
    if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (delta === undefined || delta === null) return out;
    this.#content(delta.content, out);
    for (const field of REASONING_FIELDS) {
      const r = delta[field];
      if (typeof r === "string" && r !== "") out.push({ type: "reasoning_delta", text: r });
    }
    mergeFields(this.#extras, delta, DELTA_KNOWN, this.#opts.keepNulls);
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) this.#fragment(fragment, out);
    }
    return out;
  }

  /**
   * Ends the response.
   *
   * @returns Pending `tool_call_started` events, warnings, then `completed`.
   */
  finish(): ModelEvent[] {
    const out: ModelEvent[] = [];
    this.#startPending(out);
    let finishReason = this.#finishReason;
    const hasCalls = this.#calls.length > 0;
    if (hasCalls && finishReason !== "tool_calls" && finishReason !== "length") {
      if (finishReason !== null && finishReason !== "function_call") {
        out.push(mismatch(`"${finishReason}" with ${this.#calls.length} tool call(s)`));
      }
      finishReason = "tool_calls";
    } else if (!hasCalls && finishReason === "tool_calls") {
      out.push(mismatch(`"tool_calls" without any tool call`));
      finishReason = "stop";
    }
    const callIssues: CallIssue[] = [];
    const toolCalls = this.#calls.map((c) => this.#finalCall(c, finishReason, callIssues));
    const text = this.#parts === undefined ? this.#text : textOfParts(this.#parts);
    if (!hasCalls) {
      const hit = detectTextToolCall(text);
      if (hit !== undefined) {
        out.push({
          type: "warning",
          code: "text-tool-call",
          message: `The model wrote a tool call as text (${hit.style}) and it was not run: ` +
            `enable the server's tool-call parser (${hit.hint})`,
        });
      }
    }
    const content = this.#parts ?? (text !== "" ? text : hasCalls ? null : "");
    const message: ChatMessage = { role: "assistant", content, ...this.#extras };
    if (hasCalls) message.tool_calls = toolCalls;
    const annotations = this.#extras.annotations ?? this.#citations;
    out.push({
      type: "completed",
      message,
      finishReason,
      ...(this.#usage ? { usage: this.#usage } : {}),
      callIssues,
      raw: {
        ...(annotations !== undefined ? { annotations } : {}),
        ...(Object.keys(this.#choiceExtras).length > 0
          ? { extraChoiceFields: this.#choiceExtras }
          : {}),
      },
    });
    return out;
  }

  #content(content: unknown, out: ModelEvent[]): void {
    if (typeof content === "string") {
      if (content === "") return;
      out.push({ type: "text_delta", text: content });
      if (this.#parts === undefined) this.#text += content;
      else appendPart(this.#parts, { type: "text", text: content });
    } else if (Array.isArray(content)) {
      // Content parts (Mistral streams `thinking` and `text` parts): keep them as parts.
      if (this.#parts === undefined) {
        this.#parts = this.#text === "" ? [] : [{ type: "text", text: this.#text }];
      }
      for (const part of content) {
        const p = part as Record<string, unknown>;
        if (p?.type === "text" && typeof p.text === "string" && p.text !== "") {
          out.push({ type: "text_delta", text: p.text });
        } else if (p?.type === "thinking") {
          const t = textOfParts(Array.isArray(p.thinking) ? p.thinking : []);
          if (t !== "") out.push({ type: "reasoning_delta", text: t });
        }
        appendPart(this.#parts, structuredClone(part));
      }
    }
  }

  #fragment(f: ToolCallDelta, out: ModelEvent[]): void {
    const id = typeof f.id === "string" && f.id !== "" ? f.id : undefined;
    const index = typeof f.index === "number" ? f.index : undefined;
    const name = typeof f.function?.name === "string" ? f.function.name : "";
    let call = id !== undefined ? this.#byServerId.get(id) : undefined;
    if (call === undefined) {
      const candidate = index !== undefined ? this.#byIndex.get(index) : this.#calls.at(-1);
      if (candidate !== undefined) {
        if (id === undefined) {
          // An id-less fragment continues the call, unless it names a new function after
          // the call already has arguments.
          const newName = name !== "" && name !== candidate.name && candidate.args !== "";
          if (!newName) call = candidate;
        } else if (candidate.serverId === undefined && candidate.args === "") {
          call = candidate; // the id arrived after the first fragment
          call.serverId = id;
          call.id = id;
          this.#byServerId.set(id, call);
        }
      }
    }
    if (call === undefined) call = this.#newCall(id, index, out);
    if (name !== "" && name !== call.name) {
      if (call.name === "" || call.args === "") call.name += name;
    }
    const args = f.function?.arguments;
    if (typeof args === "string") call.args += args;
    else if (typeof args === "object" && args !== null) call.args = JSON.stringify(args);
    if (f.function) mergeFields(call.fnExtras, f.function, FN_KNOWN, this.#opts.keepNulls);
    mergeFields(call.extras, f, CALL_KNOWN, this.#opts.keepNulls);
    if (!call.started && call.args !== "") this.#startPending(out);
  }

  #newCall(id: string | undefined, index: number | undefined, out: ModelEvent[]): CallState {
    this.#startPending(out);
    const position = this.#calls.length;
    const call: CallState = {
      id: id ?? syntheticCallId(this.#responseId, this.#opts.seed ?? "", position),
      name: "",
      args: "",
      extras: {},
      fnExtras: {},
      started: false,
    };
    if (id !== undefined) {
      call.serverId = id;
      this.#byServerId.set(id, call);
    }
    if (index !== undefined) {
      call.index = index;
      this.#byIndex.set(index, call);
    }
    this.#calls.push(call);
    return call;
  }

  /** Emits `tool_call_started` for every call not yet announced. */
  #startPending(out: ModelEvent[]): void {
    this.#calls.forEach((c, i) => {
      if (c.started) return;
      c.started = true;
      out.push({ type: "tool_call_started", index: i, id: this.#finalId(c), name: c.name });
    });
  }

  #finalId(c: CallState): string {
    return this.#opts.toolCallIdFormat === "mistral9" ? toMistralId(c.id) : c.id;
  }

  #finalCall(c: CallState, finishReason: string | null, issues: CallIssue[]): ToolCall {
    const id = this.#finalId(c);
    const args = c.args.trim() === "" ? "{}" : c.args;
    if (c.name === "") {
      issues.push({ id, kind: "empty-name", detail: "the tool call has no function name" });
    }
    const problem = jsonObjectProblem(args);
    if (problem !== undefined) {
      const truncated = finishReason === "length";
      issues.push({
        id,
        kind: truncated ? "truncated" : "malformed-json",
        detail: truncated
          ? `the arguments were cut off by the output token limit (finish_reason "length"): ${problem}`
          : `the arguments are not a JSON object: ${problem}`,
      });
    }
    return {
      id,
      type: "function",
      ...c.extras,
      function: { name: c.name, arguments: args, ...c.fnExtras },
    } as ToolCall;
  }
}

function jsonObjectProblem(args: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch (e) {
    return (e as Error).message;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `expected an object, got ${Array.isArray(value) ? "an array" : typeof value}`;
  }
  return undefined;
}

function mismatch(what: string): ModelEvent {
  return {
    type: "warning",
    code: "finish-reason-mismatch",
    message: `The server sent finish_reason ${what}: decided by the tool calls received`,
  };
}

function appendPart(parts: unknown[], part: unknown): void {
  const last = parts.at(-1) as Record<string, unknown> | undefined;
  const p = part as Record<string, unknown>;
  if (last?.type === "text" && p?.type === "text" && typeof p.text === "string") {
    last.text = String(last.text ?? "") + p.text;
  } else if (
    last?.type === "thinking" && p?.type === "thinking" && Array.isArray(last.thinking) &&
    Array.isArray(p.thinking)
  ) {
    for (const inner of p.thinking) appendPart(last.thinking, inner);
  } else {
    parts.push(mergeDelta(undefined, part, "content"));
  }
}

function textOfParts(parts: unknown[]): string {
  let text = "";
  for (const part of parts) {
    const p = part as Record<string, unknown>;
    if (p?.type === "text" && typeof p.text === "string") text += p.text;
  }
  return text;
}

/**
 * Converts a non-streaming response (`{choices: [{message, finish_reason}], usage}`) into
 * the same events a stream would give, through the same assembly (ids, issues, warnings).
 * `null` fields of the message are kept.
 *
 * @param response The parsed JSON body.
 * @param opts Id format and seed, as for a stream.
 * @returns The events, `completed` last.
 * @throws {TypeError} When the body has no `choices[0].message`.
 */
export function assembleResponse(
  response: Record<string, unknown>,
  opts: AssembleOptions = {},
): ModelEvent[] {
  const choices = Array.isArray(response.choices) ? response.choices : [];
  const choice = choices[0] as Record<string, unknown> | undefined;
  const message = choice?.message as Record<string, unknown> | undefined;
  if (typeof message !== "object" || message === null) {
    throw new TypeError("The response has no choices[0].message");
  }
  const { message: _m, ...choiceRest } = choice as Record<string, unknown>;
  const toolCalls = Array.isArray(message.tool_calls)
    ? message.tool_calls.map((tc, index) => ({ index, ...(tc as Record<string, unknown>) }))
    : message.tool_calls;
  const a = new StreamAssembler({ ...opts, keepNulls: true });
  const events = a.push({
    ...response,
    choices: [{ ...choiceRest, delta: { ...message, tool_calls: toolCalls } }],
  } as ChatCompletionChunk);
  return [...events, ...a.finish()];
}
