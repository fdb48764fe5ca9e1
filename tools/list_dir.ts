/**
 * `list_dir`: the entries of a directory in the project, one per line
 * (Contenox `local_fs` `list_dir`).
 *
 * Entries are sorted by name (code-point order); directories end in `/` as in the
 * original, and symbolic links end in `@` (as `ls -F`), since whether a link leads to a
 * directory is not checked (its target may be outside the project). At most
 * {@linkcode LIST_DIR_MAX_ENTRIES} entries are listed, with a note when there are more.
 *
 * @module
 */
import { resolveInProject } from "./_paths.ts";
import { ioFailure } from "./_io.ts";
import {
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  fail,
  isResult,
  NO_OPTIONS_SCHEMA,
  ok,
  optionalStringArg,
} from "./_types.ts";

/** The most entries `list_dir` returns. */
export const LIST_DIR_MAX_ENTRIES = 1000;

/** The `list_dir` built-in tool. */
export const listDirTool: BuiltinTool = {
  name: "list_dir",
  description:
    "List the entries of a directory in the project, sorted; directories end in / and symbolic links in @.",
  parameters: {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: "Directory path relative to the project root (default: .)",
      },
    },
    required: [],
    additionalProperties: false,
  },
  approval: "never",
  readOnly: true,
  optionsSchema: { ...NO_OPTIONS_SCHEMA },
  permissions: ({ projectDir }) => ({ read: [projectDir] }),
  execute: listDir,
};

async function listDir(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult> {
  const path = optionalStringArg(args, "path");
  if (isResult(path)) return path;
  const target = await resolveInProject(ctx.projectDir, path || ".", { mustExist: true });
  if (!target.ok) return fail(target.message);
  const entries: string[] = [];
  try {
    const info = await Deno.stat(target.path);
    if (!info.isDirectory) {
      return fail(`Cannot list "${target.relative}": it is a file: use read_file or stat_file`);
    }
    for await (const entry of Deno.readDir(target.path)) {
      entries.push(entry.name + (entry.isDirectory ? "/" : entry.isSymlink ? "@" : ""));
    }
  } catch (err) {
    return fail(ioFailure("list", target.relative, err));
  }
  if (entries.length === 0) return ok(`(empty directory "${target.relative}")`);
  entries.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length <= LIST_DIR_MAX_ENTRIES) return ok(entries.join("\n"));
  return ok(
    `${
      entries.slice(0, LIST_DIR_MAX_ENTRIES).join("\n")
    }\n[truncated: showed ${LIST_DIR_MAX_ENTRIES} of ${entries.length} entries]`,
  );
}
