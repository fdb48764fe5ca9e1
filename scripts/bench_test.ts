import assert from "node:assert/strict";
import { table } from "./bench.ts";

Deno.test("table() judges a row by its absolute target", () => {
  const out = table([
    { name: "fast", value: 1.5, unit: "ms", target: 2 },
    { name: "slow", value: 3, unit: "ms", target: 2 },
    { name: "throughput", value: 40, unit: "MB/s", target: 50, higherIsBetter: true },
  ]).split("\n");
  assert.match(out[2], /^\| fast \| 1\.50 ms \| < 2 ms \| – \| – \| yes \|$/);
  assert.match(out[3], /^\| slow \| 3\.00 ms \| < 2 ms \| – \| – \| \*\*no\*\* \|$/);
  assert.match(out[4], /\| > 50 MB\/s \| .* \| \*\*no\*\* \|$/);
});

Deno.test("table() judges a row with maxRatio by its ratio and still shows the absolute verdict", () => {
  const base = { name: "minimal", value: 100 };
  const [ok, over] = table([
    { name: "a", value: 250, unit: "ms", target: 100, maxRatio: 3, baseline: base },
    { name: "b", value: 301, unit: "ms", target: 100, maxRatio: 3, baseline: base },
  ]).split("\n").slice(2);
  assert.match(ok, /\| 2\.50× \| yes \(absolute: no\) \|$/);
  assert.match(ok, /≤ 3× baseline \(< 100 ms on the issue's machine\)/);
  assert.match(over, /\| 3\.01× \| \*\*no\*\* \(absolute: no\) \|$/);
});
