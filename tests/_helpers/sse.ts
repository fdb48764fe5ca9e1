/**
 * Builds OpenAI-style SSE response bodies for end-to-end tests and recordings: tool
 * calls streamed as deltas (id and name once, arguments in fragments), text, usage.
 *
 * @module
 */

/** One tool call to stream. */
export interface SseCall {
  id: string;
  name: string;
  args: unknown;
}

function chunk(
  id: string,
  delta: unknown,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  return `data: ${
    JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created: 1_763_800_000,
      model: "demo-model",
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    })
  }\n\n`;
}

const USAGE = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 };

/** A streamed assistant turn that calls tools (arguments split in two fragments each). */
export function sseToolCalls(responseId: string, calls: SseCall[], text = ""): string {
  let out = chunk(responseId, { role: "assistant", content: text || null });
  calls.forEach((c, index) => {
    const args = JSON.stringify(c.args);
    const cut = Math.floor(args.length / 2);
    out += chunk(responseId, {
      tool_calls: [{
        index,
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: args.slice(0, cut) },
      }],
    });
    out += chunk(responseId, { tool_calls: [{ index, function: { arguments: args.slice(cut) } }] });
  });
  out += chunk(responseId, {}, "tool_calls");
  out += `data: ${
    JSON.stringify({ id: responseId, object: "chat.completion.chunk", choices: [], usage: USAGE })
  }\n\n`;
  return out + "data: [DONE]\n\n";
}

/** A streamed assistant turn with a final text answer, in word-sized deltas. */
export function sseText(responseId: string, text: string): string {
  let out = chunk(responseId, { role: "assistant", content: "" });
  for (const piece of text.match(/\S+\s*/g) ?? [text]) out += chunk(responseId, { content: piece });
  out += chunk(responseId, {}, "stop");
  out += `data: ${
    JSON.stringify({ id: responseId, object: "chat.completion.chunk", choices: [], usage: USAGE })
  }\n\n`;
  return out + "data: [DONE]\n\n";
}

/** A `Response` with an SSE body. */
export function sseResponse(body: string): Response {
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}
