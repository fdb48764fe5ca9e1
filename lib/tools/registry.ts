/**
 * The registry: discovers tool files of every format, loads them through the pure
 * loaders, merges them by precedence and remembers what each tool shadows.
 *
 * Precedence, highest first (a name defined twice is taken from the higher source):
 * 1. built-in tools enabled in `harness.jsonc`;
 * 2. agentcli manifests: `<project>/tools.json`, then `tools.manifests`;
 * 3. project Nanocoder tools: `<project>/.nanocoder/tools`, then `tools.nanocoderDirs`;
 * 4. personal Nanocoder tools (`$NANOCODER_CONFIG_DIR/tools`, …);
 * 5. Octomind scripts: `<project>/.agents/tools`, then `tools.octomindDirs` — lowest,
 *    as in Octomind, so a script cannot hijack another tool's name.
 *
 * `refresh()` runs every turn; a file whose mtime, size and mode are unchanged is not
 * read again.
 *
 * @module
 */
import type { Config, ToolOverride } from "../config/load.ts";
import type {
  Diagnostic,
  LoadContext,
  LoadResult,
  ToolDefinition,
  ToolFormat,
  ToolSource,
} from "../types.ts";
import { mapConcurrent } from "../_concurrent.ts";
import { builtinDefinitions } from "./builtins.ts";
import { personalNanocoderDir } from "./personal.ts";

/** One place tools come from. */
export interface ToolSourceSpec {
  format: Exclude<ToolFormat, "builtin">;
  /** A directory to scan (Octomind, Nanocoder) or a file (always, for manifests). */
  path: string;
  /** Whether `path` is one file rather than a directory. */
  file: boolean;
  /** Whether the place is the default one (a missing default is not worth a warning). */
  implicit: boolean;
  /** For Nanocoder duplicates: which directory kind the message names. */
  scope: "project" | "personal";
}

/** What the registry knows after a refresh. */
export interface RegistrySnapshot {
  /** The tools the model sees, in precedence order. */
  tools: ToolDefinition[];
  /** The same, by name. */
  byName: Map<string, ToolDefinition>;
  /** For each tool name, the definitions it shadows (lower precedence, same name). */
  shadows: Map<string, ToolSource[]>;
  /** Everything found wrong, in discovery order. */
  diagnostics: Diagnostic[];
  /** Files that define no tool, with the reason. */
  skipped: { path: string; reason: string }[];
  /** Per-tool settings from `harness.jsonc`, by name. */
  overrides: Record<string, ToolOverride>;
}

type Loader = (path: string, text: string, ctx: LoadContext) => LoadResult;

interface CacheEntry {
  stamp: string;
  result: LoadResult;
}

/** The file-system facts the registry needs; injectable for tests. */
export interface RegistryFs {
  readDir(path: string): Promise<string[]>;
  stat(path: string): Promise<Deno.FileInfo>;
  readFile(path: string): Promise<Uint8Array>;
}

const realFs: RegistryFs = {
  async readDir(path) {
    const names: string[] = [];
    for await (const entry of Deno.readDir(path)) names.push(entry.name);
    return names;
  },
  stat: (path) => Deno.stat(path),
  readFile: (path) => Deno.readFile(path),
};

const loaders: Record<ToolSourceSpec["format"], () => Promise<Loader>> = {
  octomind: async () => (await import("./loaders/octomind.ts")).loadOctomind,
  nanocoder: async () => (await import("./loaders/nanocoder.ts")).loadNanocoder,
  manifest: async () => (await import("./loaders/manifest.ts")).loadManifest,
};

/** The sources of a project, in precedence order (built-ins excluded). */
export function projectSources(
  config: Config,
  getEnv: (name: string) => string | undefined,
): ToolSourceSpec[] {
  const p = config.projectDir;
  const list: ToolSourceSpec[] = [
    { format: "manifest", path: `${p}/tools.json`, file: true, implicit: true, scope: "project" },
    ...config.tools.manifests.map((path) => ({
      format: "manifest" as const,
      path,
      file: true,
      implicit: false,
      scope: "project" as const,
    })),
    {
      format: "nanocoder",
      path: `${p}/.nanocoder/tools`,
      file: false,
      implicit: true,
      scope: "project",
    },
    ...config.tools.nanocoderDirs.map((path) => ({
      format: "nanocoder" as const,
      path,
      file: false,
      implicit: false,
      scope: "project" as const,
    })),
  ];
  const personal = config.tools.personal ? personalNanocoderDir(getEnv, Deno.build.os) : undefined;
  if (personal) {
    list.push({
      format: "nanocoder",
      path: personal,
      file: false,
      implicit: true,
      scope: "personal",
    });
  }
  list.push(
    {
      format: "octomind",
      path: `${p}/.agents/tools`,
      file: false,
      implicit: true,
      scope: "project",
    },
    ...config.tools.octomindDirs.map((path) => ({
      format: "octomind" as const,
      path,
      file: false,
      implicit: false,
      scope: "project" as const,
    })),
  );
  return list;
}

/** Discovers and loads tools; keeps a stat cache between refreshes. */
export class ToolRegistry {
  #cache = new Map<string, CacheEntry>();
  #config: Config;
  #sources: ToolSourceSpec[];
  #fs: RegistryFs;
  #includeBuiltins: boolean;

  /**
   * @param config The project's configuration.
   * @param sources Where to look, in precedence order (see {@linkcode projectSources}).
   * @param options `fs`: file access (tests); `builtins`: include built-in tools (default true).
   */
  constructor(
    config: Config,
    sources: ToolSourceSpec[],
    options: { fs?: RegistryFs; builtins?: boolean } = {},
  ) {
    this.#config = config;
    this.#sources = sources;
    this.#fs = options.fs ?? realFs;
    this.#includeBuiltins = options.builtins ?? true;
  }

  /** Scans every source again, re-reading only changed files. */
  async refresh(): Promise<RegistrySnapshot> {
    const diagnostics: Diagnostic[] = [];
    const skipped: { path: string; reason: string }[] = [];
    const candidates: ToolDefinition[] = [];
    if (this.#includeBuiltins) candidates.push(...builtinDefinitions(this.#config));
    // The sources load concurrently (this runs every turn: one I/O round trip, not one per
    // source) and fold in their order, so precedence and diagnostics stay the same.
    const loaded = await Promise.all(this.#sources.map(async (source) => {
      const own = { diagnostics: [] as Diagnostic[], skipped: [] as typeof skipped };
      return { own, found: await this.#loadSource(source, own.diagnostics, own.skipped) };
    }));
    for (const { own, found } of loaded) {
      diagnostics.push(...own.diagnostics);
      skipped.push(...own.skipped);
      candidates.push(...found);
    }
    return merge(candidates, this.#config, diagnostics, skipped);
  }

  async #loadSource(
    source: ToolSourceSpec,
    diagnostics: Diagnostic[],
    skipped: { path: string; reason: string }[],
  ): Promise<ToolDefinition[]> {
    if (source.file) {
      const result = await this.#loadFile(source, source.path, diagnostics);
      if (result) record(result, source.path, diagnostics, skipped);
      return result?.tools ?? [];
    }
    let names: string[];
    try {
      names = await this.#fs.readDir(source.path);
    } catch (error) {
      if (!source.implicit) {
        diagnostics.push({
          severity: "warning",
          code: "registry/missing-directory",
          message: `Tool directory "${source.path}" from harness.jsonc cannot be read: ${
            (error as Error).message
          }: create it or remove it from the config`,
          file: this.#config.file ?? source.path,
        });
      }
      return [];
    }
    names.sort(); // readdirSync is strcmp-sorted on Unix; Deno's readDir is not.
    const paths = names
      .filter((name) =>
        source.format === "nanocoder" ? name.endsWith(".md") : !name.startsWith(".")
      )
      .map((name) => `${source.path}/${name}`);
    // Stat and read the files concurrently (one at a time costs an I/O round trip per
    // file); fold the results in sorted order, so "first wins" and diagnostics keep it.
    const loaded = await mapConcurrent(paths, FILE_CONCURRENCY, async (path) => {
      const own: Diagnostic[] = [];
      return { path, own, result: await this.#loadFile(source, path, own) };
    });
    const tools: ToolDefinition[] = [];
    const seen = new Map<string, string>();
    for (const { path, own, result } of loaded) {
      diagnostics.push(...own);
      if (!result) continue;
      const kept: ToolDefinition[] = [];
      for (const tool of result.tools) {
        const first = seen.get(tool.name);
        if (first !== undefined && source.format === "nanocoder") {
          diagnostics.push({
            severity: "warning",
            code: "nanocoder/duplicate-name",
            // Nanocoder's text, verbatim; `file` names the duplicate that is dropped.
            message:
              `Duplicate tool name "${tool.name}" in ${source.scope} tools directory — keeping the first.`,
            file: path,
            line: 1,
            tool: tool.name,
          });
          continue;
        }
        seen.set(tool.name, path);
        kept.push(tool);
      }
      record({ tools: kept, diagnostics: result.diagnostics }, path, diagnostics, skipped);
      tools.push(...kept);
    }
    return tools;
  }

  async #loadFile(
    source: ToolSourceSpec,
    path: string,
    diagnostics: Diagnostic[],
  ): Promise<LoadResult | undefined> {
    let info: Deno.FileInfo;
    try {
      info = await this.#fs.stat(path);
    } catch (error) {
      if (source.file && !source.implicit) {
        diagnostics.push({
          severity: "error",
          code: `${source.format}/not-found`,
          message: source.format === "manifest"
            ? `read manifest: open ${path}: no such file or directory: fix the path`
            : `Tool file "${path}" does not exist: fix the path`,
          file: path,
        });
      } else if (!(error instanceof Deno.errors.NotFound)) {
        diagnostics.push(unreadable(source, path, error));
      }
      return undefined;
    }
    if (!info.isFile) return undefined; // directories are skipped silently, as the originals do
    const stamp = `${info.mtime?.getTime()}:${info.size}:${info.mode}`;
    const cached = this.#cache.get(path);
    if (cached && cached.stamp === stamp) return cached.result;
    let bytes: Uint8Array;
    try {
      bytes = await this.#fs.readFile(path);
    } catch (error) {
      const result = { tools: [], diagnostics: [unreadable(source, path, error)] };
      this.#cache.set(path, { stamp, result });
      return result;
    }
    let text: string;
    try {
      // ignoreBOM keeps a byte order mark, as the originals do (it then breaks the file there too).
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      const result: LoadResult = {
        tools: [],
        diagnostics: [{
          severity: "error",
          code: `${source.format}/not-utf8`,
          message: `Tool file "${path}" is skipped: it is not valid UTF-8: save it as UTF-8 text`,
          file: path,
        }],
      };
      this.#cache.set(path, { stamp, result });
      return result;
    }
    const load = await loaders[source.format]();
    const ctx: LoadContext = {
      mode: info.mode,
      projectDir: this.#config.projectDir,
      defaults: {
        approval: this.#config.tools.defaults.approval,
        timeoutMs: source.format === "octomind"
          ? this.#config.tools.defaults.octomindTimeoutMs
          : this.#config.tools.defaults.manifestTimeoutMs,
      },
    };
    const result = load(path, text, ctx);
    this.#cache.set(path, { stamp, result });
    return result;
  }
}

/** Files of one directory stat'ed and read at once. */
const FILE_CONCURRENCY = 32;

function unreadable(source: ToolSourceSpec, path: string, error: unknown): Diagnostic {
  return {
    severity: "error",
    code: `${source.format}/unreadable`,
    message: `Tool file "${path}" is skipped: cannot read it: ${
      (error as Error).message
    }: check its permissions`,
    file: path,
  };
}

function record(
  result: LoadResult,
  path: string,
  diagnostics: Diagnostic[],
  skipped: { path: string; reason: string }[],
): void {
  diagnostics.push(...result.diagnostics);
  if (result.tools.length === 0) {
    const error = result.diagnostics.find((d) => d.severity === "error");
    if (error) skipped.push({ path, reason: error.message });
  }
}

/** Merges candidates by precedence: the first of a name wins, the rest are shadowed. */
function merge(
  candidates: ToolDefinition[],
  config: Config,
  diagnostics: Diagnostic[],
  skipped: { path: string; reason: string }[],
): RegistrySnapshot {
  const byName = new Map<string, ToolDefinition>();
  const shadows = new Map<string, ToolSource[]>();
  const disabled = new Set(config.tools.disabled);
  for (const tool of candidates) {
    if (disabled.has(tool.name)) continue;
    const winner = byName.get(tool.name);
    if (!winner) {
      byName.set(tool.name, applyOverride(tool, config.tools.overrides[tool.name]));
      continue;
    }
    shadows.set(tool.name, [...(shadows.get(tool.name) ?? []), tool.source]);
    diagnostics.push(shadowDiagnostic(tool, winner));
  }
  return {
    tools: [...byName.values()],
    byName,
    shadows,
    diagnostics,
    skipped,
    overrides: config.tools.overrides,
  };
}

function shadowDiagnostic(loser: ToolDefinition, winner: ToolDefinition): Diagnostic {
  const where = `${winner.source.format} tool "${winner.source.path}"${
    winner.source.line ? `:${winner.source.line}` : ""
  }`;
  const message = loser.source.format === "nanocoder" &&
      (winner.source.format === "builtin" || winner.source.format === "manifest")
    ? `Tool name "${loser.name}" collides with a built-in or MCP tool — skipping. (shadowed by ${where}: rename one of them)`
    : `Tool "${loser.name}" is shadowed by the ${where}, which takes precedence: rename one of them`;
  const d: Diagnostic = {
    severity: "warning",
    code: "registry/shadowed",
    message,
    file: loser.source.path,
    tool: loser.name,
  };
  if (loser.source.line !== undefined) d.line = loser.source.line;
  return d;
}

function applyOverride(tool: ToolDefinition, override: ToolOverride | undefined): ToolDefinition {
  if (!override) return tool;
  const out = { ...tool };
  if (override.approval !== undefined) out.approval = override.approval;
  if (override.readOnly !== undefined) out.readOnly = override.readOnly;
  if (override.timeoutMs !== undefined) out.timeoutMs = override.timeoutMs;
  return out;
}
