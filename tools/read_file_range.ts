/**
 * `read_file_range`: lines `start_line` to `end_line` (1-based, inclusive) of a text file
 * (Contenox `local_fs` `read_file_range`).
 *
 * The file is streamed, so any size works; only the requested lines are kept. Unlike
 * the original, which silently returns nothing or clamps, a `start_line` below 1 or past
 * the end and an `end_line` before `start_line` are errors that say the file's length;
 * an `end_line` past the end reads to the end. Output is capped at
 * {@linkcode READ_FILE_RANGE_MAX_BYTES}.
 *
 * @module
 */
import { resolveInProject } from "./_paths.ts";
import { BINARY_SNIFF_BYTES, ioFailure, NotRegularFile } from "./_io.ts";
import {
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  fail,
  integerArg,
  isResult,
  NO_OPTIONS_SCHEMA,
  ok,
  stringArg,
  UTF8,
} from "./_types.ts";

/** The most bytes of text `read_file_range` returns (100 KiB). */
export const READ_FILE_RANGE_MAX_BYTES = 100 * 1024;

/** The `read_file_range` built-in tool. */
export const readFileRangeTool: BuiltinTool = {
  name: "read_file_range",
  description:
    "Read lines start_line to end_line (1-based, inclusive) of a text file in the project. An end_line past the end reads to the end.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path to the file, relative to the project root" },
      start_line: { type: "integer", minimum: 1, description: "First line to read (1-based)" },
      end_line: { type: "integer", minimum: 1, description: "Last line to read (inclusive)" },
    },
    required: ["path", "start_line", "end_line"],
    additionalProperties: false,
  },
  approval: "never",
  readOnly: true,
  optionsSchema: { ...NO_OPTIONS_SCHEMA },
  permissions: ({ projectDir }) => ({ read: [projectDir] }),
  execute: readFileRange,
};

async function readFileRange(
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<BuiltinResult> {
  const path = stringArg(args, "path");
  if (isResult(path)) return path;
  const start = integerArg(args, "start_line");
  if (isResult(start)) return start;
  const end = integerArg(args, "end_line");
  if (isResult(end)) return end;
  if (start < 1) return fail(`start_line ${start} is out of range: lines are numbered from 1`);
  if (end < start) {
    return fail(`end_line ${end} is before start_line ${start}: pass end_line >= start_line`);
  }
  const target = await resolveInProject(ctx.projectDir, path, { mustExist: true });
  if (!target.ok) return fail(target.message);

  const kept: string[] = [];
  let keptBytes = 0;
  let lineNo = 0;
  let capped = false;
  let sniffed = 0;
  try {
    const info = await Deno.stat(target.path);
    if (info.isDirectory) throw new Deno.errors.IsADirectory(target.path);
    if (!info.isFile) throw new NotRegularFile(target.path);
    using file = await Deno.open(target.path, { read: true });
    const decoder = new TextDecoder("utf-8", { fatal: false });
    let pending = "";
    const take = (line: string): boolean => {
      lineNo++;
      if (lineNo < start) return true;
      if (lineNo > end) return false;
      const size = UTF8.encode(line).length + 1;
      if (keptBytes + size > READ_FILE_RANGE_MAX_BYTES) {
        capped = true;
        return false;
      }
      kept.push(line);
      keptBytes += size;
      return true;
    };
    const buf = new Uint8Array(64 * 1024);
    reading: for (;;) {
      ctx.signal?.throwIfAborted();
      const n = await file.read(buf);
      if (n === null) break;
      const chunk = buf.subarray(0, n);
      if (
        sniffed < BINARY_SNIFF_BYTES && chunk.subarray(0, BINARY_SNIFF_BYTES - sniffed).includes(0)
      ) {
        return fail(`Cannot read "${target.relative}": it is a binary file`);
      }
      sniffed += n;
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (!take(line)) break reading;
    }
    if (!capped && lineNo < end) {
      pending += decoder.decode();
      if (pending !== "") take(pending);
    }
  } catch (err) {
    if (ctx.signal?.aborted) return fail(`Reading "${target.relative}" was cancelled`);
    return fail(ioFailure("read", target.relative, err));
  }
  if (lineNo === 0) return fail(`"${target.relative}" is empty: there are no lines to read`);
  if (lineNo < start) {
    return fail(
      `start_line ${start} is out of range: "${target.relative}" has ${lineNo} line${
        lineNo === 1 ? "" : "s"
      }: pass a start_line from 1 to ${Math.max(lineNo, 1)}`,
    );
  }
  const text = kept.join("\n");
  if (!capped) return ok(text);
  const last = start + kept.length - 1;
  return ok(
    `${text}\n[truncated: output is limited to ${READ_FILE_RANGE_MAX_BYTES} bytes: showed lines ${start}-${last}: read again from line ${
      last + 1
    }]`,
  );
}
