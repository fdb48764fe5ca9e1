/**
 * SSE throughput benchmark: a realistic chat completion stream (text deltas, ~190 bytes
 * per event) decoded from 64 KiB network-sized pieces and framed by `SseParser`.
 *
 * Run: `deno run scripts/bench_sse.ts` (prints JSON). The target is over 50 MB/s.
 *
 * @module
 */

import { StreamAssembler } from "../lib/chat/assemble.ts";
import { SseParser } from "../lib/chat/sse.ts";

const PIECE = 64 * 1024;

function makeStream(sizeMb: number): Uint8Array[] {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < sizeMb * 1024 * 1024; i++) {
    const event =
      `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,` +
      `"model":"m","choices":[{"index":0,"delta":{"content":"token ${i} "},"finish_reason":null}]}\n\n`;
    parts.push(event);
    size += event.length;
  }
  const bytes = new TextEncoder().encode(parts.join(""));
  const pieces: Uint8Array[] = [];
  for (let o = 0; o < bytes.length; o += PIECE) pieces.push(bytes.subarray(o, o + PIECE));
  return pieces;
}

function time(pieces: Uint8Array[], each: (text: string) => void): number {
  const total = pieces.reduce((n, p) => n + p.byteLength, 0);
  const decoder = new TextDecoder();
  const start = performance.now();
  for (const p of pieces) each(decoder.decode(p, { stream: true }));
  const seconds = (performance.now() - start) / 1000;
  return total / (1024 * 1024) / seconds;
}

/**
 * Measures SSE framing throughput (decode + parse), best of three runs.
 *
 * @param sizeMb Stream size in MiB. @default 50
 * @returns The benchmark name and MiB per second.
 */
export async function benchSse(sizeMb = 50): Promise<{ name: string; mbPerSec: number }> {
  const pieces = makeStream(sizeMb);
  let best = 0;
  for (let run = 0; run < 3; run++) {
    const parser = new SseParser();
    let events = 0;
    best = Math.max(best, time(pieces, (text) => events += parser.feed(text).length));
    if (events === 0) throw new Error("The benchmark stream produced no events");
    await Promise.resolve();
  }
  return { name: "sse-parse", mbPerSec: Math.round(best) };
}

/**
 * Measures the whole streaming path: decode, SSE framing, `JSON.parse` of every event and
 * assembly, best of three runs.
 *
 * @param sizeMb Stream size in MiB. @default 50
 * @returns The benchmark name and MiB per second.
 */
export async function benchStreamAssembly(
  sizeMb = 50,
): Promise<{ name: string; mbPerSec: number }> {
  const pieces = makeStream(sizeMb);
  let best = 0;
  for (let run = 0; run < 3; run++) {
    const parser = new SseParser();
    const assembler = new StreamAssembler();
    best = Math.max(
      best,
      time(pieces, (text) => {
        for (const ev of parser.feed(text)) assembler.push(JSON.parse(ev.data));
      }),
    );
    await Promise.resolve();
  }
  return { name: "sse-parse+json+assemble", mbPerSec: Math.round(best) };
}

if (import.meta.main) {
  console.log(JSON.stringify([await benchSse(), await benchStreamAssembly()]));
}
