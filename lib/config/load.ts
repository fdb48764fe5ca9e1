/**
 * Finds, parses and validates `harness.jsonc`, and merges the environment over it.
 *
 * The file is looked up in the project directory and its parents, stopping at the
 * git root (the first directory holding `.git`). It is JSONC (comments and trailing
 * commas allowed), validated against `lib/config/harness.schema.json`, which ships in
 * the repository so editors complete it through `"$schema"`.
 *
 * @module
 */
import { type Node, type ParseError, parseTree, printParseErrorCode } from "../_jsonc.ts";
import validateConfig from "../_generated/config_validator.js";
import { ConfigError } from "../errors.ts";
import { dirname, resolvePath } from "../_path.ts";
import { compileMini } from "../exec/mini_schema.ts";
import { parsePermissionObject } from "../tools/permissions.ts";
import { BUILTIN_TOOLS } from "../../tools/mod.ts";
import type { Approval, JsonObject, PermissionScope } from "../types.ts";
import { describeSchemaError, didYouMean, locate } from "./_positions.ts";

/** The name of the config file. */
export const CONFIG_FILE = "harness.jsonc";

/** Default Octomind script timeout: Octomind's fixed 5 minutes. */
export const DEFAULT_OCTOMIND_TIMEOUT_MS = 300_000;
/** Default agentcli timeout for entries without `timeoutSec`. */
export const DEFAULT_MANIFEST_TIMEOUT_MS = 30_000;
/** Default output captured per stream of a tool process. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1_048_576;

/** Per-tool settings from `tools.overrides`. */
export interface ToolOverride {
  approval?: Approval;
  readOnly?: boolean;
  timeoutMs?: number;
  /** Narrows the tool's scope; never widens it. */
  permissions?: PermissionScope;
}

/** The provider settings after merging the environment. */
export interface ProviderConfig {
  baseUrl: string;
  model?: string;
  /** The variable holding the API key (its value is read at the edge). */
  apiKeyEnv: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stream: boolean;
  parallelToolCalls?: boolean;
  headers: Record<string, string>;
  extraBody: JsonObject;
  requestTimeoutMs?: number;
  maxRetries?: number;
  retryBaseMs?: number;
  toolCallIdFormat: "auto" | "mistral9" | "none";
}

/** Defaults of `harness run` and `harness chat`. */
export interface RunConfig {
  system?: string;
  maxTurns?: number;
  timeoutMs?: number;
  maxTokens?: number;
  approval?: "ask" | "auto-edit" | "yolo" | "plan" | "never-ask";
  onDenied?: "stop" | "continue";
  parallelism?: number;
}

/** The validated configuration, with every default applied and paths made absolute. */
export interface Config {
  /** The config file, when one was found. */
  file?: string;
  /** The project directory (`-C`, or where the command ran). */
  projectDir: string;
  sandbox: "auto" | "strict";
  /** The ceiling per kind; a missing kind is limited only by the process grant. */
  ceiling: PermissionScope;
  tools: {
    octomindDirs: string[];
    nanocoderDirs: string[];
    manifests: string[];
    personal: boolean;
    defaults: {
      approval: Approval;
      octomindTimeoutMs: number;
      manifestTimeoutMs: number;
      maxOutputBytes: number;
    };
    overrides: Record<string, ToolOverride>;
    /** Enabled built-ins and their options; `undefined` means the documented default set. */
    builtins?: Record<string, boolean | JsonObject>;
    disabled: string[];
  };
  provider: ProviderConfig;
  nativeTools: JsonObject[];
  run: RunConfig;
}

/** Where to look for the config, and the environment to merge over it. */
export interface LoadConfigOptions {
  /** The project directory, absolute. */
  projectDir: string;
  /** An explicit `--config FILE` (absolute or relative to the project directory). */
  configFile?: string;
  /** Reads an environment variable (injected so tests need no globals). */
  getEnv: (name: string) => string | undefined;
}

/** The default provider when neither config nor environment names one. */
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * Loads the configuration of a project.
 *
 * @param options Where to look and how to read the environment.
 * @returns The configuration with defaults applied.
 * @throws {ConfigError} When the file cannot be read, parsed or validated (exit 2).
 */
export async function loadConfig(options: LoadConfigOptions): Promise<Config> {
  const file = options.configFile !== undefined
    ? resolvePath(options.projectDir, options.configFile)
    : await findConfigFile(options.projectDir);
  let value: JsonObject = {};
  if (file !== undefined) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      const why = error instanceof Deno.errors.NotFound
        ? "file not found: check the --config path"
        : `cannot read the file: ${(error as Error).message}`;
      throw new ConfigError(file, why);
    }
    value = parseConfigText(file, text);
  }
  return buildConfig(value, file, options);
}

/**
 * Looks for `harness.jsonc` in `dir` and its parents, stopping at the git root.
 *
 * @returns The absolute path of the file, or `undefined`.
 */
export async function findConfigFile(dir: string): Promise<string | undefined> {
  let current = dir;
  while (true) {
    const candidate = join(current, CONFIG_FILE);
    if (await exists(candidate)) return candidate;
    if (await exists(join(current, ".git"))) return undefined;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * Parses and validates the text of a config file.
 *
 * @param file The path, for messages.
 * @param text The JSONC text.
 * @returns The parsed object.
 * @throws {ConfigError} With `file:line:column` and the fix.
 */
export function parseConfigText(file: string, text: string): JsonObject {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0];
    const { line, column } = locate(text, first.offset);
    throw new ConfigError(
      file,
      `invalid JSONC: ${humanParseError(printParseErrorCode(first.error))}: fix the syntax`,
      { line, column },
    );
  }
  if (root === undefined || root.type !== "object") {
    throw new ConfigError(file, 'the config must be a JSON object, e.g. {"sandbox": "auto"}', {
      line: 1,
      column: 1,
    });
  }
  const value = nodeValue(root) as JsonObject;
  if (!validateConfig(value)) {
    const errors = validateConfig.errors ?? [];
    // For a "oneOf" (e.g. a built-in setting: true, false or options), the branch errors
    // say less than the oneOf itself.
    const error = errors.find((e) => e.keyword === "oneOf") ?? errors[0];
    const { message, offset } = describeSchemaError(root, error);
    const { line, column } = locate(text, offset);
    throw new ConfigError(file, message, { line, column });
  }
  for (const [where, scope] of permissionSections(value)) {
    const { problems } = parsePermissionObject(scope);
    if (problems.length > 0) {
      const path = [...where, ...problems[0].path];
      const node = findNode(root, path);
      const { line, column } = locate(text, node?.offset ?? 0);
      // The problem message starts with "permissions…"; prefix the keys above it.
      const above = where.slice(0, -1).map((s) => `${s}.`).join("");
      throw new ConfigError(file, `${above}${problems[0].message}`, { line, column });
    }
  }
  checkBuiltinOptions(file, text, root, value);
  return value;
}

/** Checks the options of each built-in tool against the tool's own options schema. */
function checkBuiltinOptions(file: string, text: string, root: Node, value: JsonObject): void {
  const builtins = (value.tools as JsonObject | undefined)?.builtins as JsonObject | undefined;
  for (const [name, setting] of Object.entries(builtins ?? {})) {
    const tool = BUILTIN_TOOLS[name];
    if (!tool || setting === null || typeof setting !== "object") continue;
    const errors = compileMini(tool.optionsSchema)?.(setting) ?? [];
    if (errors.length === 0) continue;
    const e = errors[0];
    const sub = e.instancePath.split("/").slice(1);
    const path = ["tools", "builtins", name, ...sub];
    const known = Object.keys((tool.optionsSchema.properties ?? {}) as object);
    const extra = e.params.additionalProperty;
    const hint = extra !== undefined ? didYouMean(String(extra), known) : undefined;
    const where = extra !== undefined
      ? `unknown option "${String(extra)}" of the built-in "${name}": ${
        hint
          ? `did you mean "${hint}"?`
          : `expected one of ${known.map((k) => `"${k}"`).join(", ")}`
      }`
      : `"${path.join(".")}" ${e.message}`;
    const node = findNode(root, path);
    const { line, column } = locate(text, node?.offset ?? 0);
    throw new ConfigError(file, where, { line, column });
  }
}

function permissionSections(value: JsonObject): [(string | number)[], unknown][] {
  const out: [(string | number)[], unknown][] = [];
  if (value.permissions !== undefined) out.push([["permissions"], value.permissions]);
  const overrides = (value.tools as JsonObject | undefined)?.overrides as JsonObject | undefined;
  for (const [name, o] of Object.entries(overrides ?? {})) {
    const p = (o as JsonObject).permissions;
    if (p !== undefined) out.push([["tools", "overrides", name, "permissions"], p]);
  }
  return out;
}

function humanParseError(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [key, val] = prop.children ?? [];
        if (key && val) out[key.value as string] = nodeValue(val);
      }
      return out;
    }
    case "array":
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

/** Finds the node at a key path (a small `findNodeAtLocation` that tolerates bad paths). */
export function findNode(root: Node, path: (string | number)[]): Node | undefined {
  let node: Node | undefined = root;
  for (const segment of path) {
    if (!node) return undefined;
    if (node.type === "object" && typeof segment === "string") {
      const prop: Node | undefined = node.children?.find((p) => p.children?.[0]?.value === segment);
      node = prop?.children?.[1];
    } else if (node.type === "array" && typeof segment === "number") {
      node = node.children?.[segment];
    } else return undefined;
  }
  return node;
}

function buildConfig(
  value: JsonObject,
  file: string | undefined,
  options: LoadConfigOptions,
): Config {
  const base = file !== undefined ? dirname(file) : options.projectDir;
  const tools = (value.tools ?? {}) as JsonObject;
  const defaults = (tools.defaults ?? {}) as JsonObject;
  const provider = (value.provider ?? {}) as JsonObject;
  const paths = (key: string) => ((tools[key] ?? []) as string[]).map((p) => resolvePath(base, p));
  const overrides: Record<string, ToolOverride> = {};
  for (const [name, o] of Object.entries((tools.overrides ?? {}) as JsonObject)) {
    const override = { ...(o as ToolOverride) };
    if (override.permissions) override.permissions = resolveScopePaths(override.permissions, base);
    overrides[name] = override;
  }
  const config: Config = {
    projectDir: options.projectDir,
    sandbox: (value.sandbox as Config["sandbox"] | undefined) ?? "auto",
    ceiling: resolveScopePaths((value.permissions ?? {}) as PermissionScope, base),
    tools: {
      octomindDirs: paths("octomindDirs"),
      nanocoderDirs: paths("nanocoderDirs"),
      manifests: paths("manifests"),
      personal: (tools.personal as boolean | undefined) ?? true,
      defaults: {
        approval: (defaults.approval as Approval | undefined) ?? "always",
        octomindTimeoutMs: (defaults.octomindTimeoutMs as number | undefined) ??
          DEFAULT_OCTOMIND_TIMEOUT_MS,
        manifestTimeoutMs: (defaults.manifestTimeoutMs as number | undefined) ??
          DEFAULT_MANIFEST_TIMEOUT_MS,
        maxOutputBytes: (defaults.maxOutputBytes as number | undefined) ??
          DEFAULT_MAX_OUTPUT_BYTES,
      },
      overrides,
      disabled: (tools.disabled ?? []) as string[],
    },
    provider: {
      baseUrl: trimSlash(
        options.getEnv("OPENAI_BASE_URL") || (provider.baseUrl as string | undefined) ||
          DEFAULT_BASE_URL,
      ),
      apiKeyEnv: (provider.apiKeyEnv as string | undefined) ?? "OPENAI_API_KEY",
      stream: (provider.stream as boolean | undefined) ?? true,
      headers: (provider.headers ?? {}) as Record<string, string>,
      extraBody: (provider.extraBody ?? {}) as JsonObject,
      toolCallIdFormat: (provider.toolCallIdFormat as ProviderConfig["toolCallIdFormat"]) ??
        "auto",
    },
    nativeTools: (value.nativeTools ?? []) as JsonObject[],
    run: (value.run ?? {}) as RunConfig,
  };
  if (file !== undefined) config.file = file;
  if (tools.builtins !== undefined) {
    config.tools.builtins = tools.builtins as Record<string, boolean | JsonObject>;
  }
  const model = options.getEnv("HARNESS_MODEL") || (provider.model as string | undefined);
  if (model) config.provider.model = model;
  for (
    const key of [
      "temperature",
      "topP",
      "maxTokens",
      "requestTimeoutMs",
      "maxRetries",
      "retryBaseMs",
    ] as const
  ) {
    if (typeof provider[key] === "number") config.provider[key] = provider[key] as number;
  }
  if (typeof provider.parallelToolCalls === "boolean") {
    config.provider.parallelToolCalls = provider.parallelToolCalls;
  }
  return config;
}

/** Makes the `read` and `write` paths of a scope in the config absolute (against the file). */
function resolveScopePaths(scope: PermissionScope, base: string): PermissionScope {
  const out: PermissionScope = { ...scope };
  if (out.read) out.read = out.read.map((p) => resolvePath(base, p));
  if (out.write) out.write = out.write.map((p) => resolvePath(base, p));
  return out;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Joins two path parts with `/`. */
function join(a: string, b: string): string {
  return a.endsWith("/") ? a + b : `${a}/${b}`;
}
