/**
 * The one normalized tool type and the diagnostics every part of harness speaks.
 *
 * Loaders turn files of the three supported formats (Octomind scripts, Nanocoder
 * Markdown tools, agentcli `tools.json` manifests) into {@linkcode ToolDefinition}s;
 * the registry, the linter, the call path and the chat loop only ever see this type.
 *
 * @module
 */

/** Where a tool definition comes from. */
export type ToolFormat = "octomind" | "nanocoder" | "manifest" | "builtin";

/** Any JSON value. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * The `function` object sent to the model for one tool, key order preserved:
 * `name`, then `description` and `parameters` when the original format sends them.
 */
export interface FunctionSpec {
  name: string;
  description?: string;
  parameters?: JsonValue;
}

/** The kinds of permission a tool can declare, in Deno's vocabulary. */
export type PermissionKind = "read" | "write" | "net" | "env" | "run";

/** Every permission kind, in the order harness prints them. */
export const PERMISSION_KINDS: readonly PermissionKind[] = ["read", "write", "net", "env", "run"];

/**
 * A permission scope in Deno's vocabulary. A missing kind means "nothing of that
 * kind"; paths are relative to the project directory unless absolute.
 */
export type PermissionScope = { [K in PermissionKind]?: string[] };

/** How a tool call executes. */
export type Runner =
  /** Octomind: argv `[program]`, stdin compact JSON, `OCTOMIND_*` environment. */
  | { kind: "script"; program: string }
  /** Nanocoder: the rendered body runs via `shell -c`, stdin from /dev/null. */
  | {
    kind: "template";
    /** `bash` or `sh` from the front matter; absent means bash if it exists, else sh. */
    shell?: "bash" | "sh";
    /** The trimmed Markdown body, a shell script with `{{ }}` placeholders. */
    body: string;
    /** The `cwd` front-matter value, before `${VAR}` expansion. */
    cwd?: string;
    /** The `env` front-matter mapping, values already `String(v)` (null → ""). */
    env?: Record<string, string>;
  }
  /** agentcli: argv without a shell, scrubbed environment, argument text on stdin. */
  | { kind: "argv"; argv: string[]; envPassthrough: string[] }
  /** A built-in TypeScript tool, run in a scoped Worker. */
  | { kind: "module"; url: string };

/** When a call of the tool needs the user's approval. */
export type Approval = "never" | "always" | "destructive";

/** Where a tool was defined. */
export interface ToolSource {
  format: ToolFormat;
  /** Absolute path of the defining file (for built-ins, the module path). */
  path: string;
  /** 1-based line of the definition inside the file, when it is not line 1. */
  line?: number;
}

/** One tool, normalized across formats. */
export interface ToolDefinition {
  /** The name the model sees. */
  name: string;
  /**
   * The description the model sees, exactly as the original sends it. `undefined`
   * means the key is omitted (agentcli omits an empty description).
   */
  description?: string;
  /**
   * The parameters JSON Schema, exactly as the original sends it, and the schema
   * arguments are validated with. `undefined` means the key is omitted (agentcli
   * omits an absent schema); agentcli may also send any other JSON value, even `null`.
   */
  parameters?: JsonValue;
  source: ToolSource;
  runner: Runner;
  /** The declared permission scope; `undefined` when the tool declares none. */
  permissions?: PermissionScope;
  approval: Approval;
  /** Read-only tools may run in parallel with each other. */
  readOnly: boolean;
  /** Per-call timeout in milliseconds. */
  timeoutMs: number;
}

/** How serious a diagnostic is. */
export type Severity = "error" | "warning" | "info";

/** One finding about a tool file, with a stable code (documented in the README). */
export interface Diagnostic {
  severity: Severity;
  /** Stable identifier such as `octomind/missing-description`. */
  code: string;
  /** Sentence case, no trailing period, values in quotes, ends with the fix where one exists. */
  message: string;
  /** Path of the file the finding is about. */
  file: string;
  /** 1-based line. */
  line?: number;
  /** 1-based column. */
  column?: number;
  /** The tool the finding is about, when known. */
  tool?: string;
}

/** What a loader makes of one file: the tools it defines and what it found wrong. */
export interface LoadResult {
  tools: ToolDefinition[];
  diagnostics: Diagnostic[];
}

/**
 * File facts a loader may need beyond the text: the Unix mode bits (`null` where the
 * platform has none, e.g. Windows) and the project directory that permission paths
 * are relative to.
 */
export interface LoadContext {
  /** `Deno.FileInfo.mode`, or `null` when unknown. */
  mode: number | null;
  /** Absolute path of the project directory. */
  projectDir: string;
  /**
   * Defaults for formats whose files do not set them (from `harness.jsonc`):
   * the timeout of an Octomind script or of a manifest entry without `timeoutSec`,
   * and the approval of Octomind and manifest tools.
   */
  defaults?: { timeoutMs?: number; approval?: Approval };
}

/** One stable diagnostic code, documented in the README. */
export interface CodeInfo {
  code: string;
  severity: Severity;
  /** One line: what the rule checks. */
  summary: string;
}

/**
 * A permission scope after intersection, ready to enforce: `true` means
 * unrestricted for that kind, a list means exactly those entries (an empty list
 * means none). Paths are absolute.
 */
export interface ResolvedScope {
  read: true | string[];
  write: true | string[];
  net: true | string[];
  env: true | string[];
  /** Programs the tool may start (absolute paths or names resolved through PATH). */
  run: string[];
}

/** The function-calling object for one tool, as sent in the `tools` array. */
export function toFunctionSpec(tool: ToolDefinition): FunctionSpec {
  const spec: FunctionSpec = { name: tool.name };
  if (tool.description !== undefined) spec.description = tool.description;
  if (tool.parameters !== undefined) spec.parameters = tool.parameters;
  return spec;
}
