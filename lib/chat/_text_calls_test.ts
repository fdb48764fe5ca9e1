import assert from "node:assert/strict";
import { detectTextToolCall } from "./_text_calls.ts";

Deno.test("detectTextToolCall() recognises each text style with the matching parser", () => {
  const cases: [string, RegExp][] = [
    ['<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>', /parser hermes/],
    ['[TOOL_CALLS][{"name": "ls", "arguments": {}}]', /parser mistral/],
    ['<|python_tag|>{"name": "ls", "parameters": {}}', /parser llama3_json/],
    ['{"name": "ls", "arguments": {"dir": "."}}', /parser hermes/],
    ['```json\n[{"name": "ls", "parameters": {}}]\n```', /parser hermes/],
  ];
  for (const [text, hint] of cases) {
    const hit = detectTextToolCall(text);
    assert.ok(hit, text);
    assert.match(hit.hint, hint);
    assert.match(hit.hint, /--jinja/);
  }
});

Deno.test("detectTextToolCall() leaves ordinary text and JSON alone", () => {
  for (
    const text of [
      "Here is the answer.",
      '{"name": "Ada"}',
      '{"result": 4}',
      "[]",
      "The tool is called with a name and arguments.",
    ]
  ) {
    assert.equal(detectTextToolCall(text), undefined, text);
  }
});
