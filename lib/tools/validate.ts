/**
 * `harness tools validate`: every reason an original would skip a file, plus the
 * rules that span formats (OpenAI's function-calling limits, JSON Schema validity,
 * templates, interpreters and commands on disk, shadowing).
 *
 * @module
 */
import { compareStrings } from "../_compare.ts";
import { UsageError } from "../errors.ts";
import type { Config } from "../config/load.ts";
import { resolvePath } from "../_path.ts";
import type { CodeInfo, Diagnostic, ToolDefinition } from "../types.ts";
import { lintSchema } from "./lint_schema.ts";
import { lintOnDisk } from "./lint_disk.ts";
import {
  projectSources,
  type RegistrySnapshot,
  ToolRegistry,
  type ToolSourceSpec,
} from "./registry.ts";

/** OpenAI's rule for function names. */
export const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** OpenAI's limit on the number of tools in one request. */
export const OPENAI_MAX_TOOLS = 128;

/** Codes emitted by this module and the registry. */
export const CROSS_FORMAT_CODES: readonly CodeInfo[] = [
  {
    code: "openai/invalid-name",
    severity: "error",
    summary:
      "Tool name does not match ^[a-zA-Z0-9_-]{1,64}$, which OpenAI-compatible servers require",
  },
  {
    code: "openai/too-many-tools",
    severity: "error",
    summary: "More than 128 tools: OpenAI rejects the request",
  },
  {
    code: "registry/shadowed",
    severity: "warning",
    summary: "Two tools share a name; the one of higher precedence wins",
  },
  {
    code: "registry/missing-directory",
    severity: "warning",
    summary: "A tool directory listed in harness.jsonc cannot be read",
  },
  {
    code: "nanocoder/duplicate-name",
    severity: "warning",
    summary: "Two files in one Nanocoder directory define the same name; the first (sorted) wins",
  },
  {
    code: "manifest/not-found",
    severity: "error",
    summary: "A manifest listed in harness.jsonc does not exist",
  },
  {
    code: "octomind/not-found",
    severity: "error",
    summary: "A file given to tools validate does not exist",
  },
  {
    code: "nanocoder/not-found",
    severity: "error",
    summary: "A file given to tools validate does not exist",
  },
  { code: "octomind/unreadable", severity: "error", summary: "A tool file cannot be read" },
  { code: "nanocoder/unreadable", severity: "error", summary: "A tool file cannot be read" },
  { code: "manifest/unreadable", severity: "error", summary: "A manifest cannot be read" },
  {
    code: "octomind/not-utf8",
    severity: "error",
    summary: "A tool file is not valid UTF-8 (Octomind skips it)",
  },
  { code: "nanocoder/not-utf8", severity: "error", summary: "A tool file is not valid UTF-8" },
  { code: "manifest/not-utf8", severity: "error", summary: "A manifest is not valid UTF-8" },
];

/** The outcome of a lint run. */
export interface LintReport {
  /** How many tools were loaded. */
  tools: number;
  diagnostics: Diagnostic[];
  snapshot: RegistrySnapshot;
}

/**
 * Lints a project, or only the given files and directories.
 *
 * @param config The configuration (its project directory is linted when `paths` is empty).
 * @param paths Files or directories, relative to the project directory.
 * @param getEnv Reads the environment (personal directory, PATH).
 * @returns Every diagnostic, sorted by file and line.
 */
export async function lintTools(
  config: Config,
  paths: string[],
  getEnv: (name: string) => string | undefined,
): Promise<LintReport> {
  const sources = paths.length === 0
    ? projectSources(config, getEnv)
    : await sourcesForPaths(paths.map((p) => resolvePath(config.projectDir, p)), config, getEnv);
  const registry = new ToolRegistry(config, sources, { builtins: paths.length === 0 });
  const snapshot = await registry.refresh();
  const diagnostics = [...snapshot.diagnostics];
  const all = [...snapshot.tools];
  for (const tool of all) diagnostics.push(...lintTool(tool));
  if (all.length > OPENAI_MAX_TOOLS) {
    // Name the one file that defines them all (a manifest given on the command line).
    const files = [...new Set(all.map((t) => t.source.path))];
    diagnostics.push({
      severity: "error",
      code: "openai/too-many-tools",
      message:
        `${all.length} tools are loaded but OpenAI accepts at most ${OPENAI_MAX_TOOLS} in one request: disable some with "tools.disabled" in harness.jsonc`,
      file: files.length === 1 ? files[0] : config.file ?? config.projectDir,
    });
  }
  diagnostics.push(...await lintOnDisk(all, getEnv));
  return { tools: all.length, diagnostics: sortDiagnostics(dedupe(diagnostics)), snapshot };
}

/** Rules about one loaded tool that hold for every format. */
export function lintTool(tool: ToolDefinition): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = {
    file: tool.source.path,
    tool: tool.name,
    ...(tool.source.line ? { line: tool.source.line } : {}),
  };
  if (!OPENAI_NAME.test(tool.name)) {
    out.push({
      severity: "error",
      code: "openai/invalid-name",
      message:
        `Tool name "${tool.name}" does not match ^[a-zA-Z0-9_-]{1,64}$, so OpenAI-compatible servers reject the request: rename it using letters, digits, "_" and "-"`,
      ...at,
    });
  }
  if (tool.source.format !== "builtin") out.push(...lintSchema(tool, at));
  return out;
}

async function sourcesForPaths(
  paths: string[],
  config: Config,
  getEnv: (name: string) => string | undefined,
): Promise<ToolSourceSpec[]> {
  const out: ToolSourceSpec[] = [];
  for (const path of paths) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch (error) {
      const why = error instanceof Deno.errors.NotFound
        ? "it does not exist"
        : (error as Error).message;
      throw new UsageError(`Cannot lint "${path}": ${why}`, {
        hint: "pass existing files or directories, or nothing to lint the whole project",
      });
    }
    if (info.isDirectory) out.push(...await sourcesForDirectory(path, config, getEnv));
    else {out.push({
        format: formatOfFile(path),
        path,
        file: true,
        implicit: false,
        scope: "project",
      });}
  }
  return out;
}

/** The format of a file given on the command line, by its name. */
export function formatOfFile(path: string): ToolSourceSpec["format"] {
  if (path.endsWith(".md")) return "nanocoder";
  if (path.endsWith(".json")) return "manifest";
  return "octomind";
}

async function sourcesForDirectory(
  dir: string,
  config: Config,
  getEnv: (name: string) => string | undefined,
): Promise<ToolSourceSpec[]> {
  const parts = dir.split("/");
  const parent = parts.at(-2);
  if (parts.at(-1) === "tools" && (parent === ".agents" || parent === ".nanocoder")) {
    const format = parent === ".agents" ? "octomind" : "nanocoder";
    return [{ format, path: dir, file: false, implicit: false, scope: "project" }];
  }
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  const isProject = names.some((n) => n === ".agents" || n === ".nanocoder" || n === "tools.json");
  if (isProject) {
    return projectSources({
      ...config,
      projectDir: dir,
      tools: { ...config.tools, personal: false },
    }, getEnv);
  }
  names.sort();
  const out: ToolSourceSpec[] = [];
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const path = `${dir}/${name}`;
    if ((await Deno.stat(path)).isFile) {
      out.push({ format: formatOfFile(path), path, file: true, implicit: false, scope: "project" });
    }
  }
  return out;
}

function dedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Sorts diagnostics by file, line, column, then code. */
export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return [...list].sort((a, b) =>
    compareStrings(a.file, b.file) || (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) || compareStrings(a.code, b.code)
  );
}
