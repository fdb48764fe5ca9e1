/**
 * The effective permission scope of a tool: its declaration (or the documented
 * default for an undeclared tool) ∩ the per-tool override in `harness.jsonc` ∩ the
 * ceiling in `harness.jsonc` ∩ the Deno grant of the harness process.
 *
 * Default scope of an undeclared tool:
 * - `auto`: read and write the project directory, network as the ceiling allows,
 *   the environment its format passes (Octomind and Nanocoder inherit it, agentcli
 *   passes `PATH`, `HOME` and `envPassthrough`), run its own program.
 * - `strict`: read the project directory, no writes, no network, the environment of
 *   its convention only (`PATH`, `HOME`, locale; agentcli also `envPassthrough`).
 *
 * The provider's API key variable is never in a tool's environment unless the tool
 * names it (`env` permission, or agentcli `envPassthrough`), in every mode.
 *
 * @module
 */
import type { Config } from "../config/load.ts";
import { resolvePath } from "../_path.ts";
import { DeniedError } from "../errors.ts";
import {
  PERMISSION_KINDS,
  type PermissionKind,
  type PermissionScope,
  type ResolvedScope,
  type ToolDefinition,
} from "../types.ts";

/** Variables every subprocess tool gets when its scope lists environment names. */
export const BASE_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TERM",
  "USER",
  "LOGNAME",
  "TMPDIR",
];

/** The outcome of resolving a scope. */
export interface ScopeResolution {
  scope: ResolvedScope;
  /** Whether the tool declared its scope (else the default applied). */
  declared: boolean;
  /** Human notes: what was narrowed, by what. */
  notes: string[];
  /** Variables removed from an inherited environment (the provider key, unless declared). */
  withheld: string[];
}

/** Asks whether the harness process holds a permission (injectable for tests). */
export type GrantQuery = (kind: PermissionKind, value?: string) => boolean;

/** Queries the real Deno grant of this process. */
export const processGrant: GrantQuery = (kind, value) => {
  const desc = (() => {
    switch (kind) {
      case "read":
      case "write":
        return { name: kind, ...(value !== undefined ? { path: value } : {}) } as const;
      case "net":
        return { name: kind, ...(value !== undefined ? { host: value } : {}) } as const;
      case "env":
        return { name: kind, ...(value !== undefined ? { variable: value } : {}) } as const;
      case "run":
        return { name: kind, ...(value !== undefined ? { command: value } : {}) } as const;
    }
  })();
  return Deno.permissions.querySync(desc).state === "granted";
};

/** The flag that grants one permission entry to the harness process. */
export function grantFlag(kind: PermissionKind, value?: string): string {
  return value === undefined ? `--allow-${kind}` : `--allow-${kind}=${value}`;
}

/** The program a tool starts (for `run`), or `undefined` for a built-in module. */
export function toolProgram(tool: ToolDefinition): string | undefined {
  switch (tool.runner.kind) {
    case "script":
      return tool.runner.program;
    case "argv":
      return tool.runner.argv[0];
    case "template":
      return undefined; // the shell, chosen at call time
    case "module":
      return undefined;
  }
}

/**
 * Resolves the effective scope of a tool.
 *
 * @param tool The tool.
 * @param config The configuration (sandbox mode, ceiling, overrides, project).
 * @param options `grant`: the process grant; `apiKeyEnv`: the provider key variable.
 * @throws {DeniedError} When a declared entry needs a permission harness was not started with.
 */
export function resolveScope(
  tool: ToolDefinition,
  config: Config,
  options: { grant?: GrantQuery; apiKeyEnv?: string; program?: string } = {},
): ScopeResolution {
  const grant = options.grant ?? processGrant;
  const project = config.projectDir;
  const notes: string[] = [];
  const declared = tool.permissions !== undefined;
  let scope = declared ? fromDeclaration(tool.permissions!, project) : defaultScope(tool, config);
  if (!declared) notes.push(`undeclared: the ${config.sandbox} default scope applies`);
  const program = options.program ?? toolProgram(tool);
  if (program !== undefined) scope.run = [program, ...scope.run.filter((x) => x !== program)];
  if (tool.runner.kind === "argv") {
    const pass = tool.runner.envPassthrough;
    // envPassthrough is agentcli's own declaration of the variables a tool needs.
    if (scope.env !== true) scope.env = unique([...scope.env, ...pass]);
  }
  const override = config.tools.overrides[tool.name]?.permissions;
  if (override) {
    // Like the ceiling, an override narrows only the kinds it names.
    scope = intersect(scope, fromDeclaration(override, project, true), override, program);
    notes.push("narrowed by tools.overrides in harness.jsonc");
  }
  if (Object.keys(config.ceiling).length > 0) {
    scope = intersect(
      scope,
      fromDeclaration(config.ceiling, project, true),
      config.ceiling,
      program,
    );
    notes.push("limited by the permissions ceiling in harness.jsonc");
  }
  scope = withinGrant(tool, scope, grant, declared, notes);
  if (tool.runner.kind !== "module" && scope.env !== true) {
    // A program cannot start without PATH, HOME and the locale: they are never secrets.
    // Added after the grant check, so a declared tool is not blamed for them.
    scope.env = unique([...BASE_ENV.filter((n) => grant("env", n)), ...scope.env]);
  }
  const key = options.apiKeyEnv ?? config.provider.apiKeyEnv;
  const asked = tool.permissions?.env?.includes(key) ||
    (tool.runner.kind === "argv" && tool.runner.envPassthrough.includes(key));
  const withheld: string[] = [];
  if (!asked) {
    if (scope.env === true) {
      withheld.push(key);
      notes.push(`${key} is withheld: the tool does not declare it`);
    } else scope.env = scope.env.filter((n) => n !== key);
  }
  return { scope, declared, notes, withheld };
}

function fromDeclaration(p: PermissionScope, project: string, ceiling = false): ResolvedScope {
  const paths = (list: string[] | undefined) =>
    list === undefined ? (ceiling ? true as const : []) : list.map((x) => resolvePath(project, x));
  const names = (
    list: string[] | undefined,
  ) => (list === undefined ? (ceiling ? true as const : []) : [...list]);
  return {
    read: paths(p.read),
    write: paths(p.write),
    net: names(p.net),
    env: names(p.env),
    run: p.run ? [...p.run] : [],
  };
}

function defaultScope(tool: ToolDefinition, config: Config): ResolvedScope {
  const strict = config.sandbox === "strict";
  const inherits = tool.runner.kind === "script" || tool.runner.kind === "template";
  return {
    read: [config.projectDir],
    write: strict ? [] : [config.projectDir],
    net: strict ? [] : true,
    env: inherits && !strict ? true : [...BASE_ENV],
    run: [],
  };
}

/** Whether `inner` is `outer` or lies below it. */
export function pathWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);
}

function intersectPaths(a: true | string[], b: true | string[]): true | string[] {
  if (a === true) return b === true ? true : [...b];
  if (b === true) return [...a];
  const out: string[] = [];
  for (const x of a) {
    for (const y of b) {
      if (pathWithin(x, y)) out.push(x);
      else if (pathWithin(y, x)) out.push(y);
    }
  }
  return unique(out);
}

function splitHost(entry: string): { host: string; port?: string } {
  const m = /^(.*?)(?::(\d+))?$/.exec(entry)!;
  return m[2] !== undefined ? { host: m[1], port: m[2] } : { host: m[1] };
}

/** Whether net entry `inner` (host or host:port) is allowed by `outer`. */
export function netWithin(inner: string, outer: string): boolean {
  const a = splitHost(inner);
  const b = splitHost(outer);
  return a.host === b.host && (b.port === undefined || a.port === b.port);
}

function intersectNet(a: true | string[], b: true | string[]): true | string[] {
  if (a === true) return b === true ? true : [...b];
  if (b === true) return [...a];
  const out: string[] = [];
  for (const x of a) {
    for (const y of b) {
      if (netWithin(x, y)) out.push(x);
      else if (netWithin(y, x)) out.push(y);
    }
  }
  return unique(out);
}

function intersectNames(a: true | string[], b: true | string[]): true | string[] {
  if (a === true) return b === true ? true : [...b];
  if (b === true) return [...a];
  return a.filter((x) => b.includes(x));
}

function intersect(
  a: ResolvedScope,
  b: ResolvedScope,
  raw: PermissionScope,
  own: string | undefined,
): ResolvedScope {
  return {
    read: intersectPaths(a.read, b.read),
    write: intersectPaths(a.write, b.write),
    net: intersectNet(a.net, b.net),
    env: intersectNames(a.env, b.env),
    // `run` of a ceiling or override limits the extra programs, never the tool's own;
    // left out, it limits nothing.
    run: raw.run === undefined ? a.run : a.run.filter((x) => x === own || b.run.includes(x)),
  };
}

function withinGrant(
  tool: ToolDefinition,
  scope: ResolvedScope,
  grant: GrantQuery,
  declared: boolean,
  notes: string[],
): ResolvedScope {
  const out = { ...scope };
  for (const kind of PERMISSION_KINDS) {
    if (kind === "run") continue;
    const value = out[kind];
    if (value === true) {
      if (!grant(kind)) {
        out[kind] = [];
        notes.push(
          `${kind}: harness itself was started without ${grantFlag(kind)}, so the tool gets none`,
        );
      }
      continue;
    }
    const missing = value.filter((v) => !grant(kind, v));
    if (missing.length === 0) continue;
    if (declared) {
      throw new DeniedError(
        `Tool "${tool.name}" declares ${kind} "${
          missing[0]
        }", but harness itself was started without that permission`,
        {
          hint: `run harness with ${
            grantFlag(kind, missing[0])
          } (or remove the entry from the tool's declaration)`,
        },
      );
    }
    out[kind] = value.filter((v) => grant(kind, v));
    notes.push(
      `${kind}: ${missing.map((m) => `"${m}"`).join(", ")} dropped: harness lacks ${
        grantFlag(kind, missing[0])
      }`,
    );
  }
  return out;
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
