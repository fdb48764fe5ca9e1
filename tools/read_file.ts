/**
 * `read_file`: the full text of one file in the project (Contenox `local_fs` `read_file`).
 *
 * Improvements over the original: output is capped at {@linkcode READ_FILE_MAX_BYTES}
 * with a note naming `read_file_range`, binary files are refused instead of dumped, and
 * symbolic links out of the project are refused.
 *
 * @module
 */
import { resolveInProject } from "./_paths.ts";
import { decodeText, ioFailure, looksBinary, readCapped, wholeChars } from "./_io.ts";
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

/** The most bytes of a file `read_file` returns (100 KiB). */
export const READ_FILE_MAX_BYTES = 100 * 1024;

/** The `read_file` built-in tool. */
export const readFileTool: BuiltinTool = {
  name: "read_file",
  description:
    "Read the full content of a text file in the project. Large files are truncated: use read_file_range for the rest.",
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
  execute: readFile,
};

async function readFile(
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<BuiltinResult> {
  const path = stringArg(args, "path");
  if (isResult(path)) return path;
  const target = await resolveInProject(ctx.projectDir, path, { mustExist: true });
  if (!target.ok) return fail(target.message);
  let read;
  try {
    read = await readCapped(target.path, READ_FILE_MAX_BYTES);
  } catch (err) {
    return fail(ioFailure("read", target.relative, err));
  }
  if (looksBinary(read.bytes)) {
    return fail(
      `Cannot read "${target.relative}": it is a binary file (${read.size} bytes): use stat_file for its size`,
    );
  }
  const text = decodeText(read.truncated ? wholeChars(read.bytes) : read.bytes);
  if (!read.truncated) return ok(text);
  return ok(
    `${text}\n[truncated: showed the first ${read.bytes.length} of ${read.size} bytes: use read_file_range to read the rest]`,
  );
}
