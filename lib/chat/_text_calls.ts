/**
 * Detects tool calls a model wrote as plain text because the server's tool parser is off.
 * harness never runs them; the provider warns with the server flag that fixes it.
 *
 * @module
 */

/** A recognised text tool call: which style, and the fix. */
export interface TextToolCall {
  /** The marker or shape that was recognised. */
  style: string;
  /** What to change on the server. */
  hint: string;
}

const HINT_TAIL = "llama.cpp: start llama-server with `--jinja`; Ollama: use a model whose " +
  "template supports tools";

/**
 * Looks for a tool call written as text in assistant content.
 *
 * @param text The assistant's text content.
 * @returns The recognised style and hint, or undefined.
 * @example
 * ```ts
 * import { detectTextToolCall } from "./_text_calls.ts";
 * const hit = detectTextToolCall('<tool_call>{"name":"ls","arguments":{}}</tool_call>');
 * if (hit?.style !== "<tool_call> (Hermes/Qwen)") throw new Error("not detected");
 * ```
 */
export function detectTextToolCall(text: string): TextToolCall | undefined {
  if (text.includes("<tool_call>")) return found("<tool_call> (Hermes/Qwen)", "hermes");
  if (text.includes("[TOOL_CALLS]")) return found("[TOOL_CALLS] (Mistral)", "mistral");
  if (text.includes("<|python_tag|>")) return found("<|python_tag|> (Llama)", "llama3_json");
  if (isBareJsonCall(text)) return found('a bare JSON {"name", "arguments"} object', "hermes");
  return undefined;
}

function found(style: string, parser: string): TextToolCall {
  return {
    style,
    hint:
      `vLLM: start with \`--enable-auto-tool-choice --tool-call-parser ${parser}\`; ${HINT_TAIL}`,
  };
}

function isBareJsonCall(text: string): boolean {
  const trimmed = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, "$1");
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return false;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return false;
  }
  const items = Array.isArray(value) ? value : [value];
  return items.length > 0 &&
    items.every((v) =>
      typeof v === "object" && v !== null &&
      typeof (v as Record<string, unknown>).name === "string" &&
      ("arguments" in v || "parameters" in v)
    );
}
