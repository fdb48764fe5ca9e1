/**
 * Built-in tools as {@linkcode ToolDefinition}s: which are enabled, with which
 * options, and the scope each declares for them.
 *
 * @module
 */
import { BUILTIN_TOOLS } from "../../tools/mod.ts";
import type { Config } from "../config/load.ts";
import type { JsonObject, JsonValue, ToolDefinition } from "../types.ts";

/** Built-ins enabled when `tools.builtins` is absent: the file tools. */
export const DEFAULT_BUILTINS: readonly string[] = [
  "read_file",
  "read_file_range",
  "list_dir",
  "grep",
  "stat_file",
  "count_stats",
  "write_file",
  "edit",
];

/** The enabled built-ins and their options, in catalogue order. */
export function enabledBuiltins(config: Config): { name: string; options: JsonObject }[] {
  const settings = config.tools.builtins;
  const out: { name: string; options: JsonObject }[] = [];
  for (const name of Object.keys(BUILTIN_TOOLS)) {
    const setting = settings === undefined
      ? DEFAULT_BUILTINS.includes(name)
      : settings[name] ?? false;
    if (setting === false) continue;
    out.push({ name, options: setting === true ? {} : setting });
  }
  return out;
}

/** The module path of a built-in, for `source.path`. */
export function builtinPath(name: string): string {
  return `builtin:${name}`;
}

/**
 * Definitions of the enabled built-ins.
 *
 * @param config The project's configuration.
 */
export function builtinDefinitions(config: Config): ToolDefinition[] {
  return enabledBuiltins(config).map(({ name, options }) => {
    const tool = BUILTIN_TOOLS[name];
    return {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as unknown as JsonValue,
      source: { format: "builtin", path: builtinPath(name) },
      runner: { kind: "module", url: name },
      permissions: tool.permissions({ projectDir: config.projectDir, options }),
      approval: tool.approval,
      readOnly: tool.readOnly,
      timeoutMs: typeof options.timeoutMs === "number" ? options.timeoutMs : 60_000,
    };
  });
}
