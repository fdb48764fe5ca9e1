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
import type { CodeInfo, LoadContext, LoadResult, Runner, ToolDefinition } from "../../types.ts";
import { parseFrontmatterYaml, splitFrontmatter } from "./_frontmatter.ts";
import {
  checkApproval,
  checkCwd,
  checkDescription,
  checkEnv,
  checkName,
  checkPermissions,
  checkReadOnly,
  checkShell,
  checkTimeout,
} from "./_nanocoder_fields.ts";
import { parseParameters } from "./_nanocoder_params.ts";
import { Reporter, suggestKey } from "./_nanocoder_report.ts";
import { buildJsonSchema } from "./_nanocoder_schema.ts";

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
 * @param text The file's text with any BOM kept, as `Deno.readTextFile` and Nanocoder's
 *   `readFileSync(path, "utf-8")` read it (a BOM means there is no front matter).
 * @param _ctx File facts; Nanocoder needs none of them.
 * @returns The tool (none if there is any error other than `nanocoder/invalid-permission`)
 *   and every finding. Never throws.
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const text = "---\nname: hello\ndescription: Say hello\napproval: ask\n---\necho hello\n";
 * const ctx = { mode: null, projectDir: "/p" };
 * const { tools, diagnostics } = loadNanocoder("/p/.nanocoder/tools/hello.md", text, ctx);
 * deepStrictEqual(tools, []);
 * deepStrictEqual(diagnostics.map((d) => [d.code, d.line]), [["nanocoder/invalid-approval", 4]]);
 * const rule = NANOCODER_CODES.find((c) => c.code === diagnostics[0]!.code);
 * deepStrictEqual(rule?.severity, "error");
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
    const seen = new Set<number>();
    for (const e of parsed.errors) {
      // The library often reports one mistake twice at the same place.
      if (seen.has(e.offset)) continue;
      seen.add(e.offset);
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
