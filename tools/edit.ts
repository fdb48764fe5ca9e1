/**
 * `edit`: replaces every occurrence of an exact string in a file and says how many
 * (Contenox `local_fs` `sed`, which replaces all occurrences of a literal string and
 * answers `ok`).
 *
 * Improvements: zero matches is an error result that tells the model to read the file
 * again (the original wrote the file unchanged and said `ok`); an empty `search` is
 * refused; binary files, files that are not valid UTF-8 (rewriting them would
 * damage them) and files over {@linkcode EDIT_MAX_FILE_BYTES} are refused.
 *
 * @module
 */
import { resolveInProject } from "./_paths.ts";
import { ioFailure, looksBinary, readCapped } from "./_io.ts";
import {
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  fail,
  isResult,
  NO_OPTIONS_SCHEMA,
  ok,
  stringArg,
  UTF8,
} from "./_types.ts";

/** Files larger than this many bytes (5 MiB) are not edited. */
export const EDIT_MAX_FILE_BYTES = 5 * 1024 * 1024;

/** The `edit` built-in tool. */
export const editTool: BuiltinTool = {
  name: "edit",
  description:
    "Replace every occurrence of an exact string (not a regular expression) in a file of the project. Copy the search text exactly from the file, including white space. Reports how many occurrences were replaced.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path to the file, relative to the project root" },
      search: { type: "string", description: "The exact text to replace" },
      replacement: { type: "string", description: "The text to put in its place" },
    },
    required: ["path", "search", "replacement"],
    additionalProperties: false,
  },
  approval: "destructive",
  readOnly: false,
  optionsSchema: { ...NO_OPTIONS_SCHEMA },
  permissions: ({ projectDir }) => ({ read: [projectDir], write: [projectDir] }),
  execute: edit,
};

async function edit(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult> {
  const path = stringArg(args, "path");
  if (isResult(path)) return path;
  const search = stringArg(args, "search");
  if (isResult(search)) return search;
  const replacement = stringArg(args, "replacement");
  if (isResult(replacement)) return replacement;
  if (search === "") return fail(`Search text is empty: pass the exact text to replace`);
  const target = await resolveInProject(ctx.projectDir, path, { mustExist: true, forWrite: true });
  if (!target.ok) return fail(target.message);
  let read;
  try {
    read = await readCapped(target.path, EDIT_MAX_FILE_BYTES);
  } catch (err) {
    return fail(ioFailure("edit", target.relative, err));
  }
  if (read.truncated) {
    return fail(
      `Cannot edit "${target.relative}": it is larger than ${EDIT_MAX_FILE_BYTES} bytes`,
    );
  }
  if (looksBinary(read.bytes)) return fail(`Cannot edit "${target.relative}": it is a binary file`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(read.bytes);
  } catch {
    return fail(
      `Cannot edit "${target.relative}": it is not valid UTF-8 text, and rewriting it would damage it`,
    );
  }
  const parts = text.split(search);
  const count = parts.length - 1;
  if (count === 0) {
    return fail(
      `No match for the search text in "${target.relative}": nothing was changed: read the file again and copy the exact text, including white space and line breaks`,
    );
  }
  const updated = parts.join(replacement);
  try {
    await Deno.writeFile(target.path, UTF8.encode(updated));
  } catch (err) {
    return fail(ioFailure("write", target.relative, err));
  }
  return ok(
    `Replaced ${count} occurrence${count === 1 ? "" : "s"} in "${target.relative}"`,
  );
}
