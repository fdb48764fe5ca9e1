/**
 * Wire types of the OpenAI Chat Completions API, as far as harness relies on them.
 *
 * Every interface keeps an index signature: servers add fields (`reasoning_content`,
 * `reasoning_details`, `annotations`, `extra_content`, …) that harness must carry back
 * verbatim, so nothing here closes an object.
 *
 * @module
 */

/** One message of the conversation history. */
export interface ChatMessage {
  /** Who speaks. */
  role: "system" | "user" | "assistant" | "tool";
  /** Text, `null` (assistant with tool calls), or content parts (images, provider parts). */
  content?: string | null | unknown[];
  /** The calls an assistant message asks for. */
  tool_calls?: ToolCall[];
  /** On a `tool` message: the id of the call it answers. */
  tool_call_id?: string;
  /** Optional participant or tool name. */
  name?: string;
  /** Fields harness does not interpret, kept verbatim. */
  [extra: string]: unknown;
}

/** A function call requested by the model. */
export interface ToolCall {
  /** The id the `tool` message answers with. */
  id: string;
  /** Always "function" for calls harness executes. */
  type: "function";
  /** The function name and its arguments as a JSON text. */
  function: { name: string; arguments: string; [k: string]: unknown };
  /** Fields harness does not interpret (e.g. Gemini's `extra_content`), kept verbatim. */
  [extra: string]: unknown;
}

/** Token counts, as the server reports them (extra fields kept). */
export interface Usage {
  /** Tokens in the prompt. */
  prompt_tokens?: number;
  /** Tokens generated. */
  completion_tokens?: number;
  /** Their sum. */
  total_tokens?: number;
  /** Details such as `prompt_tokens_details`, `cost`. */
  [extra: string]: unknown;
}

/** A tool-call fragment inside a streamed delta. Every field may be missing. */
export interface ToolCallDelta {
  /** Position of the call in the message (missing on some servers). */
  index?: number;
  /** Call id, usually only on the first fragment. */
  id?: string;
  /** "function", usually only on the first fragment. */
  type?: string;
  /** Name and argument fragments. */
  function?: { name?: string; arguments?: string | Record<string, unknown>; [k: string]: unknown };
  /** Other fields, merged into the call. */
  [extra: string]: unknown;
}

/** The `delta` of one streamed choice. */
export interface ChoiceDelta {
  /** "assistant" on the first chunk. */
  role?: string;
  /** A text fragment, or (Mistral) an array of content parts. */
  content?: string | null | unknown[];
  /** DeepSeek / vLLM reasoning fragment. */
  reasoning_content?: string | null;
  /** OpenRouter reasoning fragment. */
  reasoning?: string | null;
  /** Tool-call fragments. */
  tool_calls?: ToolCallDelta[] | null;
  /** Other fields, merged into the assistant message. */
  [extra: string]: unknown;
}

/** One streamed choice. */
export interface ChunkChoice {
  /** Choice index; harness uses choice 0. */
  index?: number;
  /** The fragment. */
  delta?: ChoiceDelta;
  /** Set on the last chunk of the choice. */
  finish_reason?: string | null;
  /** Other fields (logprobs, native_finish_reason, stop_reason, …). */
  [extra: string]: unknown;
}

/** One `data:` payload of a streamed response. */
export interface ChatCompletionChunk {
  /** Response id, the same on every chunk. */
  id?: string;
  /** Choices; empty on the usage-only last chunk. */
  choices?: ChunkChoice[];
  /** Token counts, usually on the last chunk. */
  usage?: Usage | null;
  /** An error reported inside an HTTP 200 stream. */
  error?: unknown;
  /** Other fields (model, created, citations, …). */
  [extra: string]: unknown;
}

/** The request body harness sends (`tests/chat_request.schema.json` is its contract). */
export interface ChatRequestBody {
  /** Model name. */
  model: string;
  /** The conversation. */
  messages: ChatMessage[];
  /** Function and provider-native tools, verbatim; omitted when empty. */
  tools?: unknown[];
  /** Streaming on or off. */
  stream: boolean;
  /** `{include_usage: true}` when streaming, unless the server rejected it. */
  stream_options?: { include_usage: boolean };
  /** Sampling temperature. */
  temperature?: number;
  /** Output token limit. */
  max_tokens?: number;
  /** Nucleus sampling. */
  top_p?: number;
  /** Sent only when set, and dropped once a server rejects it. */
  parallel_tool_calls?: boolean;
  /** `extraBody` fields. */
  [extra: string]: unknown;
}
