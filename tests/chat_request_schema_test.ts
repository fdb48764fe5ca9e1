import assert from "node:assert/strict";
import { chatRequestErrors } from "./chat_request_schema.ts";

const GOOD = {
  model: "qwen3",
  stream: true,
  stream_options: { include_usage: true },
  temperature: 0.2,
  max_tokens: 100,
  top_p: 1,
  parallel_tool_calls: false,
  top_k: 20,
  tools: [
    {
      type: "function",
      function: { name: "read_file", description: "d", parameters: { type: "object" } },
    },
    { type: "web_search_preview" },
  ],
  messages: [
    { role: "system", content: "s" },
    { role: "user", content: [{ type: "text", text: "hi" }] },
    {
      role: "assistant",
      content: null,
      reasoning_content: "kept verbatim",
      tool_calls: [{
        id: "c1",
        type: "function",
        function: { name: "read_file", arguments: "{}" },
        extra_content: {},
      }],
    },
    { role: "tool", tool_call_id: "c1", content: "text" },
  ],
};

Deno.test("chatRequestErrors() accepts a full request with extra fields", () => {
  assert.deepEqual(chatRequestErrors(GOOD), []);
});

Deno.test("chatRequestErrors() rejects what servers reject", () => {
  const bad = (f: (b: Record<string, unknown>) => void) => {
    const b = structuredClone(GOOD) as Record<string, unknown>;
    f(b);
    return chatRequestErrors(b).join("; ");
  };
  assert.match(bad((b) => delete b.model), /must have required property 'model'/);
  assert.match(bad((b) => b.messages = []), /fewer than 1 items/);
  assert.match(bad((b) => b.tools = []), /\/tools: must NOT have fewer than 1 items/);
  assert.match(
    bad((b) => (b.tools as { function: { name: string } }[])[0].function.name = "read file"),
    /pattern/,
  );
  assert.match(
    bad((b) => delete (b.messages as Record<string, unknown>[])[3].tool_call_id),
    /tool_call_id/,
  );
  assert.match(bad((b) => b.stream = false), /stream_options/);
  assert.match(bad((b) => delete b.tools), /property tools when property parallel_tool_calls/);
  assert.match(bad((b) => b.max_tokens = 0), /max_tokens/);
  assert.match(
    bad((b) =>
      (b.messages as Record<string, unknown>[])[2].tool_calls = [{
        id: "c",
        type: "function",
        function: { name: "x", arguments: {} },
      }]
    ),
    /arguments: must be string/,
  );
});
