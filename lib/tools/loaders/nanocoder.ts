/**
 * The Nanocoder loader: one `.nanocoder/tools/*.md` file → one tool.
 *
 * It follows Nanocoder's `parseCustomToolFile` exactly (split, YAML 1.2 front matter,
 * every field rule, default and error text; FACTS §2.2–2.3), but reports every
 * problem it finds instead of only the first, each with its line and column and the
 * fix. Diagnostics come in the order Nanocoder checks, so the first error is the one
 * Nanocoder would report. A file with any error yields no tool, except for
 * `permissions` problems: Nanocoder ignores that key, so the tool loads with the
 * valid part of the declaration.
 *
 * Pure: no disk, no environment. The registry finds the files and reads them.
 *
 * @module
 */
import type {
  Approval,
  CodeInfo,
  LoadContext,
  LoadResult,
  PermissionScope,
  Runner,
  ToolDefinition,
} from "../../types.ts";
import { isPermissionKind, parsePermissionObject } from "../permissions.ts";
import { parseFrontmatterYaml, splitFrontmatter } from "./_frontmatter.ts";
import {
  buildJsonSchema,
  isMapping,
  NAME_REGEX,
  parseParameters,
  snakeCase,
} from "./_nanocoder_params.ts";
import { describeValue, Reporter, safeString, suggestKey } from "./_nanocoder_report.ts";

/** Nanocoder's `DEFAULT_TIMEOUT_MS`. */
const DEFAULT_TIMEOUT_MS = 30_000;
/** Nanocoder's `MAX_TIMEOUT_MS`. */
const MAX_TIMEOUT_MS = 300_000;
const APPROVALS: readonly Approval[] = ["never", "always", "destructive"];
const SHELLS = ["bash", "sh"] as const;
const KNOWN_KEYS = [
  "name",
  "description",
  "parameters",
  "approval",
  "read_only",
  "timeout_ms",
  "cwd",
  "env",
  "shell",
  "subscribe",
  "permissions",
];
const KEY_ALIASES: Record<string, string> = {
  readonly: "read_only",
  "read-only": "read_only",
  timeout: "timeout_ms",
  timeoutms: "timeout_ms",
  "timeout-ms": "timeout_ms",
  args: "parameters",
  arguments: "parameters",
  params: "parameters",
  permission: "permissions",
};

/** Every code {@linkcode loadNanocoder} can emit. */
export const NANOCODER_CODES: readonly CodeInfo[] = [
  code("missing-frontmatter", "error", "The file does not start with a --- front-matter block"),
  code(
    "invalid-yaml",
    "error",
    "The front matter is not valid YAML 1.2, has duplicate keys or is not a mapping",
  ),
  code("yaml-warning", "warning", "The YAML parser accepted the front matter with a warning"),
  code("invalid-name", "error", `"name" is missing or does not match /^[a-z][a-z0-9_]*$/`),
  code("missing-description", "error", `"description" is missing, not text or empty`),
  code(
    "invalid-parameters",
    "error",
    `"parameters" is not a mapping or a list of {name, …} entries`,
  ),
  code("invalid-parameter-name", "error", "A parameter name does not match /^[a-z][a-z0-9_]*$/"),
  code("invalid-parameter", "error", "A parameter definition is not a mapping"),
  code(
    "invalid-parameter-type",
    "error",
    "A parameter type is not string, number, integer, boolean or array",
  ),
  code("invalid-parameter-description", "error", "A parameter description is not text"),
  code("invalid-required", "error", `A parameter's "required" is not true or false`),
  code("invalid-enum", "error", `A parameter's "enum" is not a list`),
  code(
    "invalid-pattern",
    "error",
    `A "pattern" is not text, longer than 1024 chars or not a regular expression`,
  ),
  code("invalid-length", "error", `A "minLength" or "maxLength" is not an integer`),
  code("invalid-min-max", "error", `A "min" or "max" is not a finite number`),
  code("invalid-items", "error", `"items" is not a mapping with a valid "type"`),
  code("invalid-approval", "error", `"approval" is not never, always or destructive`),
  code("invalid-read-only", "error", `"read_only" is not true or false`),
  code("invalid-timeout", "error", `"timeout_ms" is not an integer from 1 to 300000`),
  code("invalid-cwd", "error", `"cwd" is not text`),
  code("invalid-env", "error", `"env" is not a mapping of name → value`),
  code("invalid-shell", "error", `"shell" is not bash or sh`),
  code("empty-body", "error", "The shell script after the front matter is empty"),
  code(
    "invalid-permission",
    "error",
    "A permissions entry is invalid; the tool loads with the valid part",
  ),
  code(
    "duplicate-parameter",
    "warning",
    "A later entry of the parameter list replaces an earlier one",
  ),
  code("unknown-key", "warning", "A front-matter key Nanocoder ignores, often a misspelling"),
  code(
    "unknown-parameter-key",
    "warning",
    "A parameter key Nanocoder ignores, often a misspelling",
  ),
  code(
    "ineffective-constraint",
    "warning",
    "pattern/minLength/maxLength, min/max or items on a type they do not apply to",
  ),
  code(
    "empty-range",
    "warning",
    "min is greater than max (or minLength than maxLength): no value is valid",
  ),
  code(
    "invalid-enum-value",
    "warning",
    "An enum value is not of the parameter's type, so no argument can match it",
  ),
  code(
    "invalid-default",
    "warning",
    "A default is not of the parameter's type or not one of its enum values",
  ),
  code(
    "pattern-not-unicode",
    "warning",
    `A pattern is invalid with the "u" flag JSON Schema validators use`,
  ),
  code(
    "env-value-not-scalar",
    "warning",
    `An "env" value is a list or mapping, which becomes "[object Object]"-like text`,
  ),
  code(
    "name-differs-from-file",
    "info",
    "The tool name is not the file name (legal: the model sees the name)",
  ),
];

function code(id: string, severity: CodeInfo["severity"], summary: string): CodeInfo {
  return { code: `nanocoder/${id}`, severity, summary };
}

/**
 * Loads one Nanocoder custom tool file.
 *
 * @param path Path of the file, put on the tool and every diagnostic.
 * @param text The file's text, undecoded BOM included (Nanocoder reads with
 *   `readFileSync(path, "utf-8")`, which keeps it, and a BOM means no front matter).
 * @param _ctx File facts; Nanocoder needs none of them.
 * @returns The tool (none if there is any error other than `nanocoder/invalid-permission`)
 *   and every finding. Never throws.
 * @example
 * ```ts
 * import { assertEquals } from "node:assert/strict";
 * const text = "---\nname: hello\ndescription: Say hello\n---\necho hello\n";
 * const { tools } = loadNanocoder("/p/.nanocoder/tools/hello.md", text, { mode: null, projectDir: "/p" });
 * assertEquals(tools[0]!.runner, { kind: "template", body: "echo hello" });
 * ```
 */
export function loadNanocoder(path: string, text: string, _ctx: LoadContext): LoadResult {
  const r = new Reporter(path, text);
  const split = splitFrontmatter(text);
  if (!split) {
    r.error(
      "nanocoder/missing-frontmatter",
      `Missing YAML frontmatter — custom tools must declare metadata between --- markers: ${
        missingFix(text)
      }`,
      0,
    );
    return { tools: [], diagnostics: r.finish(undefined) };
  }
  const parsed = parseFrontmatterYaml(split.yaml);
  r.useDocument(parsed.doc, split.yamlOffset);
  for (const w of parsed.warnings) {
    r.warn(
      "nanocoder/yaml-warning",
      `YAML warning: ${w.detail}: check the value`,
      r.inYaml(w.offset),
    );
  }
  const raw = parsed.value;
  if (!raw) {
    for (const e of parsed.errors) {
      const offset = r.inYaml(e.offset);
      const { line, column } = r.position(offset);
      r.error(
        "nanocoder/invalid-yaml",
        `Frontmatter is not a valid YAML object: ${e.detail} (line ${line}, column ${column}): ${
          yamlFix(e.code)
        }`,
        offset,
      );
    }
    return { tools: [], diagnostics: r.finish(undefined) };
  }

  const name = checkName(raw.name, path, r);
  const description = checkDescription(raw.description, r);
  const params = parseParameters(raw.parameters, r);
  const approval = checkApproval(raw.approval, r);
  const readOnly = checkReadOnly(raw.read_only, approval, r);
  const timeoutMs = checkTimeout(raw.timeout_ms, r);
  const cwd = checkCwd(raw.cwd, r);
  const env = checkEnv(raw.env, r);
  const shell = checkShell(raw.shell, r);
  if (!split.body) {
    r.error(
      "nanocoder/empty-body",
      `Tool body (shell script) is empty: write the command to run after the closing "---"`,
      split.closeOffset,
    );
  }
  const permissions = Object.hasOwn(raw, "permissions")
    ? checkPermissions(raw.permissions, r)
    : undefined;
  for (const key of Object.keys(raw)) {
    if (KNOWN_KEYS.includes(key)) continue;
    const s = suggestKey(key, KNOWN_KEYS, KEY_ALIASES);
    r.warn(
      "nanocoder/unknown-key",
      `Unknown front-matter key "${key}" is ignored: ${
        s ? `did you mean "${s}"?` : `remove it, or use one of: ${KNOWN_KEYS.join(", ")}`
      }`,
      r.at([key], "key"),
    );
  }

  if (r.blocked || name === undefined || description === undefined) {
    return { tools: [], diagnostics: r.finish(name) };
  }
  const runner: Runner = {
    kind: "template",
    ...(shell !== undefined ? { shell } : {}),
    body: split.body,
    ...(cwd !== undefined ? { cwd } : {}),
    ...(env !== undefined ? { env } : {}),
  };
  const tool: ToolDefinition = {
    name,
    description,
    parameters: buildJsonSchema(params),
    source: { format: "nanocoder", path },
    runner,
    approval,
    readOnly,
    timeoutMs,
  };
  if (permissions !== undefined) tool.permissions = permissions;
  return { tools: [tool], diagnostics: r.finish(name) };
}

function missingFix(text: string): string {
  if (text.startsWith("\uFEFF")) {
    return `the file starts with a byte order mark; save it as UTF-8 without a BOM`;
  }
  if (/^\s+---/.test(text)) return `remove the blank lines or spaces before the opening "---"`;
  if (/^---\s*\r?\n/.test(text)) return `add a closing "---" line after the front matter`;
  if (text.startsWith("---")) return `the opening line must be exactly "---"`;
  return `start the file with a "---" line, then name, description and parameters, then a closing "---" line`;
}

function yamlFix(code: string): string {
  switch (code) {
    case "DUPLICATE_KEY":
      return "keep only one of the duplicate keys";
    case "NOT_A_MAPPING":
      return `write "key: value" lines such as "name: my_tool"`;
    case "MULTIPLE_DOCS":
      return `remove the "..." or "---" document marker inside the front matter`;
    default:
      return 'fix the YAML syntax (quote values that contain ": ", "#" or start with a special character)';
  }
}

function checkName(value: unknown, path: string, r: Reporter): string | undefined {
  if (typeof value === "string" && NAME_REGEX.test(value)) {
    const file = path.split(/[\\/]/).pop()!;
    const stem = file.replace(/\.md$/, "");
    if (stem.replace(/-/g, "_").toLowerCase() !== value) {
      r.info(
        "nanocoder/name-differs-from-file",
        `Tool "${value}" is defined in "${file}": the model sees "${value}", not the file name; rename the file to "${value}.md" if that is confusing`,
        r.at(["name"]),
      );
    }
    return value;
  }
  const fromFile = snakeCase(path.split(/[\\/]/).pop()!.replace(/\.md$/, ""));
  let fix: string;
  if (value === undefined) fix = `add a line such as "name: ${fromFile ?? "my_tool"}"`;
  else if (typeof value === "string") {
    const better = snakeCase(value);
    fix = `got ${describeValue(value)}; ${
      better ? `write "${better}"` : "write a snake_case name"
    }`;
  } else {fix = `got ${describeValue(value)}; write a snake_case name such as "${
      fromFile ?? "my_tool"
    }"`;}
  r.error(
    "nanocoder/invalid-name",
    `Invalid or missing "name" — must match ${NAME_REGEX} (snake_case starting with a letter): ${fix}`,
    value === undefined ? 0 : r.at(["name"]),
  );
  return undefined;
}

function checkDescription(value: unknown, r: Reporter): string | undefined {
  if (typeof value === "string" && value.trim()) return value.trim();
  const fix = value === undefined
    ? `add a line such as "description: What the tool does, shown to the model"`
    : typeof value === "string"
    ? "it is empty; say what the tool does"
    : `got ${describeValue(value)}; write the description as text`;
  r.error(
    "nanocoder/missing-description",
    `Missing "description": ${fix}`,
    value === undefined ? 0 : r.at(["description"]),
  );
  return undefined;
}

function checkApproval(value: unknown, r: Reporter): Approval {
  if (value === undefined || value === null) return "always";
  if (typeof value === "string" && (APPROVALS as readonly string[]).includes(value)) {
    return value as Approval;
  }
  r.error(
    "nanocoder/invalid-approval",
    `Invalid "approval" value — expected one of: ${APPROVALS.join(", ")}: got ${
      describeValue(value)
    }`,
    r.at(["approval"]),
  );
  return "always";
}

function checkReadOnly(value: unknown, approval: Approval, r: Reporter): boolean {
  if (value === undefined || value === null) return approval === "never";
  if (typeof value === "boolean") return value;
  const yes = typeof value === "string" && /^(yes|no|on|off|y|n)$/i.test(value);
  r.error(
    "nanocoder/invalid-read-only",
    `"read_only" must be a boolean: got ${describeValue(value)}; write true or false${
      yes ? " (YAML 1.2 reads yes, no, on and off as text)" : ""
    }`,
    r.at(["read_only"]),
  );
  return false;
}

function checkTimeout(value: unknown, r: Reporter): number {
  if (value === undefined || value === null) return DEFAULT_TIMEOUT_MS;
  let message: string | undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    message = `timeout_ms must be a finite number: got ${
      describeValue(value)
    }; write milliseconds without quotes, e.g. 30000`;
  } else if (!Number.isInteger(value)) {
    message = `timeout_ms must be an integer: got ${value}; write whole milliseconds`;
  } else if (value <= 0) {
    message =
      `"timeout_ms" must be positive: got ${value}; write at least 1 (the default is ${DEFAULT_TIMEOUT_MS})`;
  } else if (value > MAX_TIMEOUT_MS) {
    message =
      `"timeout_ms" exceeds maximum of ${MAX_TIMEOUT_MS}: got ${value}; write at most ${MAX_TIMEOUT_MS} (5 minutes)`;
  } else return value;
  r.error("nanocoder/invalid-timeout", message, r.at(["timeout_ms"]));
  return DEFAULT_TIMEOUT_MS;
}

function checkCwd(value: unknown, r: Reporter): string | undefined {
  // Nanocoder checks `cwd === undefined`, so an empty `cwd:` (null) is an error.
  if (value === undefined || typeof value === "string") return value;
  r.error(
    "nanocoder/invalid-cwd",
    `cwd must be a string: got ${
      describeValue(value)
    }; write a directory such as ./scripts, or remove the key`,
    r.at(["cwd"]),
  );
  return undefined;
}

function checkEnv(value: unknown, r: Reporter): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isMapping(value)) {
    r.error(
      "nanocoder/invalid-env",
      `"env" must be a mapping of name → value: got ${
        describeValue(value)
      }; write e.g. env: {FOO: bar}`,
      r.at(["env"]),
    );
    return undefined;
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    env[k] = v === null || v === undefined ? "" : safeString(v);
    if (typeof v === "object" && v !== null) {
      r.warn(
        "nanocoder/env-value-not-scalar",
        `env value of "${k}" is ${describeValue(v)}, which becomes the text "${
          env[k]
        }": write it as text`,
        r.at(["env", k]),
      );
    }
  }
  return env;
}

function checkShell(value: unknown, r: Reporter): "bash" | "sh" | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === "bash" || value === "sh") return value;
  r.error(
    "nanocoder/invalid-shell",
    `Invalid "shell" — expected one of: ${SHELLS.join(", ")}: got ${
      describeValue(value)
    }; use bash or sh`,
    r.at(["shell"]),
  );
  return undefined;
}

function checkPermissions(value: unknown, r: Reporter): PermissionScope {
  const { scope, problems } = parsePermissionObject(value);
  for (const p of problems) {
    const unknownKind = p.path.length === 1 && !isPermissionKind(String(p.path[0]));
    const message = p.message.charAt(0).toUpperCase() + p.message.slice(1);
    r.error(
      "nanocoder/invalid-permission",
      message,
      r.at(["permissions", ...p.path], unknownKind ? "key" : "value"),
    );
  }
  // A declaration that is not a mapping grants nothing rather than falling back to "none declared".
  return scope ?? {};
}
