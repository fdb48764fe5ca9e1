/**
 * `count_stats`: lines, words and bytes of a file, like `wc`
 * (Contenox `local_fs` `count_stats`, same output: `Lines: 3, Words: 12, Bytes: 80`).
 *
 * The file is streamed, so any size works. As in the original, a last line without a
 * trailing newline counts as a line (`wc -l` would not count it). Words are runs of
 * bytes other than ASCII white space (space, `\t`, `\n`, `\v`, `\f`, `\r`).
 *
 * @module
 */
import { resolveInProject } from "./_paths.ts";
import { ioFailure, NotRegularFile } from "./_io.ts";
import {
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  fail,
  isResult,
  NO_OPTIONS_SCHEMA,
  ok,
  stringArg,
} from "./_types.ts";

/** Counts of one file. */
export interface Counts {
  /** Newlines, plus one for a last line without a newline. */
  lines: number;
  /** Runs of non-white-space bytes. */
  words: number;
  /** Size in bytes. */
  bytes: number;
}

/** The `count_stats` built-in tool. */
export const countStatsTool: BuiltinTool = {
  name: "count_stats",
  description: "Count lines, words, and bytes in a file in the project (like wc).",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path to the file, relative to the project root" },
    },
    required: ["path"],
    additionalProperties: false,
  },
  approval: "never",
  readOnly: true,
  optionsSchema: { ...NO_OPTIONS_SCHEMA },
  permissions: ({ projectDir }) => ({ read: [projectDir] }),
  execute: countStats,
};

/**
 * Counts lines, words and bytes of a byte stream.
 *
 * @param chunks The bytes, in order.
 * @returns The counts.
 */
export async function countBytes(chunks: AsyncIterable<Uint8Array>): Promise<Counts> {
  let lines = 0;
  let words = 0;
  let bytes = 0;
  let inWord = false;
  let last = -1;
  for await (const chunk of chunks) {
    for (const b of chunk) {
      if (b === 0x0a) lines++;
      const space = b === 0x20 || (b >= 0x09 && b <= 0x0d);
      if (!space && !inWord) words++;
      inWord = !space;
    }
    bytes += chunk.length;
    if (chunk.length > 0) last = chunk[chunk.length - 1];
  }
  if (bytes > 0 && last !== 0x0a) lines++;
  return { lines, words, bytes };
}

async function countStats(
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<BuiltinResult> {
  const path = stringArg(args, "path");
  if (isResult(path)) return path;
  const target = await resolveInProject(ctx.projectDir, path, { mustExist: true });
  if (!target.ok) return fail(target.message);
  try {
    const info = await Deno.stat(target.path);
    if (info.isDirectory) throw new Deno.errors.IsADirectory(target.path);
    if (!info.isFile) throw new NotRegularFile(target.path);
    using file = await Deno.open(target.path, { read: true });
    const { lines, words, bytes } = await countBytes(file.readable);
    return ok(`Lines: ${lines}, Words: ${words}, Bytes: ${bytes}`);
  } catch (err) {
    return fail(ioFailure("count", target.relative, err));
  }
}
