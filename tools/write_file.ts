/**
 * `write_file`: writes text to a file in the project, creating parent directories and
 * overwriting an existing file (Contenox `local_fs` `write_file`).
 *
 * Instead of the original's `ok`, the result says how many bytes were written and
 * whether the file was created or overwritten. A path that names a directory, leaves
 * the project, or goes through a symbolic link that leads outside is refused before
 * anything is written. Writing through a link that stays inside writes its target.
 *
 * @module
 */
import { dirname, resolveInProject } from "./_paths.ts";
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
  UTF8,
} from "./_types.ts";

/** The `write_file` built-in tool. */
export const writeFileTool: BuiltinTool = {
  name: "write_file",
  description:
    "Write content to a file in the project. Overwrites an existing file; creates parent directories as needed.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "Path to the file, relative to the project root" },
      content: { type: "string", description: "The complete new content of the file" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  approval: "destructive",
  readOnly: false,
  optionsSchema: { ...NO_OPTIONS_SCHEMA },
  permissions: ({ projectDir }) => ({ read: [projectDir], write: [projectDir] }),
  execute: writeFile,
};

async function writeFile(
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<BuiltinResult> {
  const path = stringArg(args, "path");
  if (isResult(path)) return path;
  const content = stringArg(args, "content");
  if (isResult(content)) return content;
  const target = await resolveInProject(ctx.projectDir, path, { forWrite: true });
  if (!target.ok) return fail(target.message);
  const bytes = UTF8.encode(content);
  try {
    if (target.exists) {
      const info = await Deno.stat(target.path);
      if (info.isDirectory) {
        return fail(`Cannot write "${target.relative}": it is a directory: name a file`);
      }
    } else {
      await Deno.mkdir(dirname(target.path), { recursive: true });
    }
    await Deno.writeFile(target.path, bytes);
  } catch (err) {
    return fail(ioFailure("write", target.relative, err));
  }
  const verb = target.exists ? "Overwrote" : "Created";
  return ok(`${verb} "${target.relative}" (${bytes.length} bytes)`);
}
