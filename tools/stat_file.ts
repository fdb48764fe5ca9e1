/**
 * `stat_file`: metadata of a file or directory in the project as a JSON object
 * `{"name", "size", "modified", "isDir"}` (Contenox `local_fs` `stat_file`, whose
 * `modTime` is called `modified` here: an ISO 8601 UTC timestamp, `null` when the file
 * system does not record it). A symbolic link inside the project is followed.
 *
 * @module
 */
import { basename, resolveInProject } from "./_paths.ts";
import { ioFailure } from "./_io.ts";
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

/** The `stat_file` built-in tool. */
export const statFileTool: BuiltinTool = {
  name: "stat_file",
  description:
    'Get metadata of a file or directory in the project as JSON: {"name", "size" (bytes), "modified" (ISO 8601), "isDir"}.',
  parameters: {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: "Path to the file or directory, relative to the project root",
      },
    },
    required: ["path"],
    additionalProperties: false,
  },
  approval: "never",
  readOnly: true,
  optionsSchema: { ...NO_OPTIONS_SCHEMA },
  permissions: ({ projectDir }) => ({ read: [projectDir] }),
  execute: statFile,
};

async function statFile(
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<BuiltinResult> {
  const path = stringArg(args, "path");
  if (isResult(path)) return path;
  const target = await resolveInProject(ctx.projectDir, path, { mustExist: true });
  if (!target.ok) return fail(target.message);
  try {
    const info = await Deno.stat(target.path);
    return ok(JSON.stringify({
      name: basename(target.path) || "/",
      size: info.size,
      modified: info.mtime?.toISOString() ?? null,
      isDir: info.isDirectory,
    }));
  } catch (err) {
    return fail(ioFailure("stat", target.relative, err));
  }
}
