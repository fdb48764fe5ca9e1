import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { omittedMarker, OutputCapture } from "./capture.ts";

const enc = new TextEncoder();

Deno.test("OutputCapture.finish() keeps everything within the budget", () => {
  const c = new OutputCapture(10);
  c.push(enc.encode("abc"));
  c.push(enc.encode("defg"));
  assertEquals(c.finish(), { text: "abcdefg", omitted: 0 });
});

Deno.test("OutputCapture.finish() keeps exactly the budget without a marker", () => {
  const c = new OutputCapture(6);
  c.push(enc.encode("abcdef"));
  assertEquals(c.finish(), { text: "abcdef", omitted: 0 });
});

Deno.test("OutputCapture.finish() keeps head and tail around a marker", () => {
  const c = new OutputCapture(6);
  for (const ch of "abcdefghijklmnop") c.push(enc.encode(ch));
  assertEquals(c.finish(), { text: "abc" + omittedMarker(10) + "nop", omitted: 10 });
});

Deno.test("OutputCapture.finish() handles chunks larger than the tail", () => {
  const c = new OutputCapture(4);
  c.push(enc.encode("0123456789"));
  c.push(enc.encode("x"));
  assertEquals(c.finish(), { text: "01" + omittedMarker(7) + "9x", omitted: 7 });
  assertEquals(c.total, 11);
});

Deno.test("OutputCapture.finish() ring wraps across pushes", () => {
  const c = new OutputCapture(8);
  c.push(enc.encode("HHHH"));
  c.push(enc.encode("abc"));
  c.push(enc.encode("def"));
  c.push(enc.encode("gh"));
  assertEquals(c.finish().text, "HHHH" + omittedMarker(4) + "efgh");
});

Deno.test("OutputCapture.finish() does not split UTF-8 characters at the cuts", () => {
  const c = new OutputCapture(8);
  c.push(enc.encode("aaaé" + "x".repeat(20) + "€bc"));
  const { text, omitted } = c.finish();
  ok(!text.includes("\uFFFD"), text);
  assertEquals(text, "aaa" + omittedMarker(omitted) + "bc");
  assertEquals(omitted, 30 - 5);
});

Deno.test("OutputCapture.finish() decodes invalid UTF-8 lossily", () => {
  const c = new OutputCapture(100);
  c.push(new Uint8Array([0x61, 0xff, 0x62]));
  assertEquals(c.finish().text, "a\uFFFDb");
});

Deno.test("OutputCapture.finish() with a zero budget only counts", () => {
  const c = new OutputCapture(0);
  c.push(enc.encode("abc"));
  assertEquals(c.finish(), { text: omittedMarker(3), omitted: 3 });
});
