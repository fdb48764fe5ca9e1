import assert from "node:assert/strict";
import { parseSseText, SseParser } from "./sse.ts";

const STREAM = ': keepalive\n\nevent: message\nid: 3\nretry: 100\ndata: {"a":1}\n\n' +
  "data: line1\ndata: line2\n\ndata:\n\ndata:no-space\n\ndata: [DONE]\n\n";
const EXPECTED = [
  { event: "message", data: '{"a":1}' },
  { event: "message", data: "line1\nline2" },
  { event: "message", data: "no-space" },
  { event: "message", data: "[DONE]" },
];

Deno.test("parseSseText() skips comments and blank data, joins data lines", () => {
  assert.deepEqual(parseSseText(STREAM), EXPECTED);
});

Deno.test("SseParser.feed() gives the same events for any split of the text", () => {
  for (const text of [STREAM, STREAM.replaceAll("\n", "\r\n"), STREAM.replaceAll("\n", "\r")]) {
    for (const size of [1, 2, 3, 7, 64]) {
      const p = new SseParser();
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...p.feed(text.slice(i, i + size)));
      events.push(...p.end());
      assert.deepEqual(events, EXPECTED, `split ${size} of ${JSON.stringify(text.slice(0, 20))}`);
    }
  }
});

Deno.test("SseParser.end() dispatches a last event without its blank line", () => {
  const p = new SseParser();
  assert.deepEqual(p.feed('data: {"x":1}\n\ndata: [DONE]'), [{
    event: "message",
    data: '{"x":1}',
  }]);
  assert.deepEqual(p.end(), [{ event: "message", data: "[DONE]" }]);
});

Deno.test("SseParser.feed() keeps the event name", () => {
  assert.deepEqual(parseSseText("event: error\ndata: {}\n\n"), [{ event: "error", data: "{}" }]);
});
