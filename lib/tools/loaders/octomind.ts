/**
 * The Octomind loader: one `.agents/tools/<name>` script → one tool.
 *
 * It follows `local_tool.rs` exactly (FACTS §1.1–1.4): the name is the file name,
 * the header is the leading comment block of the first 80 lines (shebang skipped on
 * line 1, one marker of `# `, `#`, `// `, `//`, `-- `, `--` stripped, a blank line
 * after the header started ends it), `@description`/`@desc` lines are joined with
 * `\n`, `@param`/`@arg` give `[*]NAME TYPE DESCRIPTION`, and the schema is
 * `{"type":"object","properties":{…sorted…},"required":[…]}`.
 *
 * Where Octomind skips a file with at most a debug log, this loader reports an error
 * that says why and how to fix it; where Octomind accepts something that is surely a
 * mistake (a tag past a blank line, a dropped continuation line, a misspelled tag),
 * it warns. Hidden files (leading `.`) get one `info` finding and nothing else: the
 * registry never hands them over during a directory scan, so `.DS_Store` makes no noise;
 * the finding only appears when such a file is named explicitly.
 *
 * Harness extension: `@allow KIND VALUE` header lines declare permissions (Octomind
 * ignores unknown tags). Pure: no disk, no environment.
 *
 * @module
 */
import type {
  CodeInfo,
  Diagnostic,
  JsonValue,
  LoadContext,
  LoadResult,
  Severity,
  ToolDefinition,
} from "../../types.ts";
import {
  extractHeader,
  type HeaderLine,
  type ParamLine,
  parseParamLine,
  rustLines,
  splitTag,
  trim,
} from "./_octomind_header.ts";
import { AllowCollector, findIgnoredTags, suggestTag } from "./_octomind_tags.ts";
import {
  checkParam,
  missingDescriptionFix,
  nameProblem,
  shebangProblem,
} from "./_octomind_checks.ts";

/** Octomind's fixed timeout (`DEFAULT_TIMEOUT_SECS = 300`). */
const DEFAULT_TIMEOUT_MS = 300_000;
/** A comment line that holds a tag behind a second marker (`## @param`). */
const NOT_A_TAG = /^[#/-]+[\s]*@[A-Za-z]/;

/** Every code {@linkcode loadOctomind} can emit. */
export const OCTOMIND_CODES: readonly CodeInfo[] = [
  code(
    "invalid-name",
    "error",
    `The file name is not a valid tool name ([A-Za-z0-9_-], not starting with "-")`,
  ),
  code("not-executable", "error", "The file has no executable bit, so Octomind skips it"),
  code(
    "missing-description",
    "error",
    "The header has no @description text, so Octomind skips the file",
  ),
  code(
    "invalid-permission",
    "error",
    `An "@allow" line is invalid; the tool loads with the valid entries`,
  ),
  code(
    "missing-shebang",
    "warning",
    `Line 1 is not a "#!" shebang, so the OS cannot run the script`,
  ),
  code(
    "header-ended-early",
    "warning",
    "A blank line ended the header before later tags, which are ignored",
  ),
  code(
    "tag-after-header",
    "warning",
    "A tag follows the code line that ended the header, so it is ignored",
  ),
  code(
    "header-line-limit",
    "warning",
    "A tag is past line 80, where Octomind stops reading the header",
  ),
  code(
    "dropped-continuation",
    "warning",
    "A text line after @param is dropped (only @description continues)",
  ),
  code(
    "not-a-tag",
    "warning",
    `A line such as "## @param" is not a tag: only one comment marker is stripped`,
  ),
  code(
    "misspelled-tag",
    "warning",
    "An unknown tag that looks like a misspelled @description, @param or @allow",
  ),
  code(
    "unknown-type",
    "warning",
    "A @param type word Octomind does not know becomes string and is dropped",
  ),
  code("malformed-param", "warning", "A @param line without a name (empty or a lone *) is dropped"),
  code("duplicate-parameter", "warning", "A parameter is declared twice; the last definition wins"),
  code(
    "invalid-parameter-name",
    "warning",
    "A parameter name that OpenAI-compatible servers may reject",
  ),
  code("hidden-file", "info", `A hidden file (leading ".") is not a tool`),
  code("unknown-tag", "info", "A tag Octomind ignores"),
  code(
    "parameter-env-name",
    "info",
    "A parameter whose OCTOMIND_PARAM_ variable a shell cannot read",
  ),
];

function code(id: string, severity: Severity, summary: string): CodeInfo {
  return { code: `octomind/${id}`, severity, summary };
}

/** Codes whose errors still let the tool load (Octomind ignores `@allow`). */
const NON_BLOCKING = new Set(["octomind/invalid-permission"]);

/** One parameter with where it was declared. */
interface Param extends ParamLine {
  line: number;
}

/**
 * Loads one Octomind local tool script.
 *
 * @param path Absolute path of the script; its last segment is the tool name.
 * @param text The file's text.
 * @param ctx `mode` decides the executable check (`null`: executable); `defaults`
 *   gives the approval and timeout.
 * @returns The tool (none if there is an error other than `octomind/invalid-permission`)
 *   and every finding. Never throws.
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const text = "#!/bin/sh\n# @description Say hi\n# @param *who string Name\necho hi\n";
 * const { tools } = loadOctomind("/p/.agents/tools/hi", text, { mode: 0o755, projectDir: "/p" });
 * deepStrictEqual(tools[0]!.parameters, {
 *   type: "object",
 *   properties: { who: { type: "string", description: "Name" } },
 *   required: ["who"],
 * });
 * ```
 */
export function loadOctomind(path: string, text: string, ctx: LoadContext): LoadResult {
  const name = baseName(path);
  const diagnostics: Diagnostic[] = [];
  const report = (
    severity: Severity,
    id: string,
    message: string,
    at?: { line: number; column?: number },
  ) => {
    const d: Diagnostic = { severity, code: `octomind/${id}`, message, file: path };
    if (at) {
      d.line = at.line;
      if (at.column !== undefined) d.column = at.column;
    }
    if (name !== "") d.tool = name;
    diagnostics.push(d);
  };

  if (name.startsWith(".")) {
    report(
      "info",
      "hidden-file",
      `File "${name}" is not a tool: Octomind skips hidden files; rename it without the leading "." to make it one`,
    );
    return { tools: [], diagnostics };
  }
  const bad = nameProblem(name);
  if (bad) report("error", "invalid-name", `File "${name}" is skipped: ${bad}`);
  if (ctx.mode !== null && (ctx.mode & 0o111) === 0) {
    report(
      "error",
      "not-executable",
      `Tool "${name}" is skipped: '${path}' not executable (chmod +x to enable): run "chmod +x ${
        shellQuote(path)
      }"`,
    );
  }

  const source = rustLines(text);
  const header = extractHeader(source);
  const shebang = shebangProblem(source, text);
  if (shebang) {
    report("warning", "missing-shebang", `Tool "${name}" cannot be run by the OS: ${shebang}`, {
      line: 1,
    });
  }

  // parse_header, with findings.
  let description = "";
  let current: "description" | "param" | "other" | undefined;
  const descriptionTags: HeaderLine[] = [];
  let misspelled: { tag: string; line: HeaderLine } | undefined;
  const params: Param[] = [];
  const firstLine = new Map<string, number>();
  const requiredCount = new Map<string, number>();
  const allow = new AllowCollector();
  for (const hl of header.lines) {
    if (hl.text === "") continue;
    if (!hl.text.startsWith("@")) {
      const misplaced = NOT_A_TAG.test(hl.text);
      if (current === "description") {
        if (description !== "" && !description.endsWith("\n")) description += "\n";
        description += hl.text;
      }
      if (misplaced) {
        const shown = hl.text.length > 40 ? `${hl.text.slice(0, 40)}…` : hl.text;
        report(
          "warning",
          "not-a-tag",
          `"${hl.marker.trim()}${shown}" is not a tag: Octomind strips only one comment marker, leaving "${shown}"${
            current === "description" ? ", which becomes part of the description" : ""
          }: write a single marker, as in "# @param"`,
          hl,
        );
      } else if (current === "param") {
        report(
          "warning",
          "dropped-continuation",
          `Line ${hl.line} is dropped: Octomind continues only @description on the next line, not @param or @allow: put the whole parameter description on the "@param" line, or end the header with a blank line before plain comments`,
          hl,
        );
      }
      continue;
    }
    const { tag, value, valueOffset } = splitTag(hl.text);
    if (tag === "description" || tag === "desc") {
      if (description !== "") description += "\n";
      description += value;
      current = "description";
      descriptionTags.push(hl);
    } else if (tag === "param" || tag === "arg") {
      current = "param";
      const p = parseParamLine(value);
      if (!p) {
        report(
          "warning",
          "malformed-param",
          `"@${tag}${
            value ? ` ${value}` : ""
          }" is dropped (malformed @param): write "@param [*]NAME TYPE DESCRIPTION", with "*" directly before the name for a required parameter`,
          hl,
        );
        continue;
      }
      checkParam(p, hl, hl.column + valueOffset, firstLine, requiredCount, report);
      params.push({ ...p, line: hl.line });
    } else if (tag === "allow") {
      current = "param";
      allow.add(hl, value, hl.column + valueOffset);
    } else {
      current = "other";
      const meant = suggestTag(tag);
      if (meant === "description" || meant === "desc") misspelled ??= { tag, line: hl };
      if (meant) {
        report(
          "warning",
          "misspelled-tag",
          `Tag "@${tag}" is ignored: Octomind does not know it; did you mean "@${meant}"?`,
          hl,
        );
      } else {
        report(
          "info",
          "unknown-tag",
          `Tag "@${tag}" is ignored by Octomind, which reads only @description, @desc, @param and @arg`,
          hl,
        );
      }
    }
  }
  allow.finish();
  for (const p of allow.problems) {
    report("error", "invalid-permission", `Tool "${name}": ${p.message}`, p);
  }

  description = trim(description);
  const ignored = findIgnoredTags(source, header, description === "");
  for (const t of ignored) report("warning", t.code.slice("octomind/".length), t.message, t);
  if (description === "") {
    const { fix, at } = missingDescriptionFix(
      source,
      header,
      descriptionTags,
      ignored,
      misspelled,
    );
    report(
      "error",
      "missing-description",
      `Tool "${name}" is skipped: missing @description in ${path}: ${fix}`,
      at,
    );
  }

  if (diagnostics.some((d) => d.severity === "error" && !NON_BLOCKING.has(d.code))) {
    return { tools: [], diagnostics };
  }
  const tool: ToolDefinition = {
    name,
    description,
    parameters: schemaOf(params),
    source: { format: "octomind", path },
    runner: { kind: "script", program: path },
    approval: ctx.defaults?.approval ?? "always",
    readOnly: false,
    timeoutMs: ctx.defaults?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  if (allow.declared) tool.permissions = allow.scope;
  return { tools: [tool], diagnostics };
}

/** The last path segment (a `\` separates only in Windows-style paths). */
function baseName(path: string): string {
  const windows = /^[A-Za-z]:\\|^\\\\/.test(path);
  return path.split(windows ? /[\\/]/ : "/").pop() ?? "";
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `to_function`'s schema: properties in byte order (serde_json's BTreeMap), the last definition of a name winning. */
function schemaOf(params: readonly Param[]): JsonValue {
  const byName = new Map<string, Param>();
  for (const p of params) byName.set(p.name, p);
  const properties: { [key: string]: JsonValue } = {};
  for (const key of [...byName.keys()].sort(compareCodePoints)) {
    const p = byName.get(key)!;
    Object.defineProperty(properties, key, {
      value: { type: p.type, description: p.description },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return {
    type: "object",
    properties,
    required: params.filter((p) => p.required).map((p) => p.name),
  };
}

/** Orders strings by code point, which is UTF-8 byte order (Rust's `String` ordering). */
function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
