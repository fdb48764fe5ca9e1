/**
 * Deterministic text mutations for the loaders' fuzz tests.
 *
 * Private to the loader tests.
 *
 * @module
 */
import type { CodeInfo, LoadResult } from "../../types.ts";

/**
 * A small seeded pseudo-random generator (mulberry32).
 *
 * @param seed Any 32-bit integer.
 * @returns A function giving numbers in [0, 1).
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Applies one to five random mutations to a text: a character replaced, a line
 * deleted or duplicated, or a snippet inserted.
 *
 * @param text A valid file.
 * @param random The generator.
 * @param snippets Texts worth inserting (tags, brackets, quotes, Unicode, CRLF).
 * @returns The mutated text.
 */
export function mutate(text: string, random: () => number, snippets: readonly string[]): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  let out = text;
  const count = 1 + Math.floor(random() * 5);
  for (let k = 0; k < count; k++) {
    const at = Math.floor(random() * (out.length + 1));
    const lines = out.split("\n");
    const line = Math.floor(random() * lines.length);
    switch (Math.floor(random() * 4)) {
      case 0:
        out = out.slice(0, at) + String.fromCharCode(Math.floor(random() * 0x3000)) +
          out.slice(at + 1);
        break;
      case 1:
        lines.splice(line, 1);
        out = lines.join("\n");
        break;
      case 2:
        lines.splice(line, 0, lines[line] ?? "");
        out = lines.join("\n");
        break;
      default:
        out = out.slice(0, at) + pick(snippets) + out.slice(at);
    }
  }
  return out;
}

/**
 * Asserts that a load result is well formed: serializable tools with a name, the
 * file as source and a positive timeout, and diagnostics whose code is in the catalogue with its severity,
 * whose message is non-empty, and whose line and column are positive integers.
 *
 * @param result What a loader returned.
 * @param path The path it was given.
 * @param codes The loader's catalogue.
 */
export function assertWellFormed(
  result: LoadResult,
  path: string,
  codes: readonly CodeInfo[],
): void {
  const severities = new Map(codes.map((c) => [c.code, c.severity]));
  if (!Array.isArray(result.tools) || !Array.isArray(result.diagnostics)) {
    throw new Error("tools and diagnostics must be arrays");
  }
  for (const d of result.diagnostics) {
    const expected = severities.get(d.code);
    if (expected !== d.severity) {
      throw new Error(`code ${d.code} has severity ${d.severity}, catalogue says ${expected}`);
    }
    if (typeof d.message !== "string" || d.message === "" || d.message.endsWith(".")) {
      throw new Error(`bad message for ${d.code}: ${JSON.stringify(d.message)}`);
    }
    if (d.file !== path) throw new Error(`diagnostic file ${d.file} is not ${path}`);
    for (const n of [d.line, d.column]) {
      if (n !== undefined && !(Number.isInteger(n) && n >= 1)) {
        throw new Error(`bad position ${n} for ${d.code}`);
      }
    }
  }
  for (const tool of result.tools) {
    if (typeof tool.name !== "string" || tool.name === "") throw new Error("tool without a name");
    if (tool.source.path !== path) throw new Error("tool source is not the file");
    if (!(tool.timeoutMs > 0)) throw new Error(`bad timeout ${tool.timeoutMs}`);
    JSON.stringify(tool);
  }
}
