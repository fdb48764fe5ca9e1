/**
 * Checks of an Octomind script that explain what Octomind would do silently:
 * parameter lines, the file name, the shebang, and the missing description.
 *
 * Private to the Octomind loader.
 *
 * @module
 */
import type { Severity } from "../../types.ts";
import {
  type Header,
  type HeaderLine,
  type ParamLine,
  trimStart,
  TYPE_ALIASES,
} from "./_octomind_header.ts";
import type { IgnoredTag } from "./_octomind_tags.ts";

/** Property names that OpenAI-compatible servers (and the Anthropic/Gemini back ends behind them) accept. */
const PROPERTY_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;
/** Names a shell can read as `$OCTOMIND_PARAM_<NAME>`. */
const ENV_SAFE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Records one finding of the Octomind loader. */
export type Report = (
  severity: Severity,
  id: string,
  message: string,
  at?: { line: number; column?: number },
) => void;

/**
 * Checks one parsed `@param`: its type word, a repeated name, and whether servers
 * and shells can use the name.
 *
 * @param p The parameter.
 * @param hl Its header line.
 * @param valueColumn The 1-based file column of the text after the tag.
 * @param firstLine Where each name was first declared (updated).
 * @param requiredCount How often each name was starred (updated).
 * @param report Records a finding.
 */
export function checkParam(
  p: ParamLine,
  hl: HeaderLine,
  valueColumn: number,
  firstLine: Map<string, number>,
  requiredCount: Map<string, number>,
  report: Report,
): void {
  const at = { line: hl.line, column: valueColumn };
  if (p.typeWord !== undefined && !Object.hasOwn(TYPE_ALIASES, p.typeWord.toLowerCase())) {
    const looksLikeText = /^[A-Z]/.test(p.typeWord) || p.description === "";
    report(
      "warning",
      "unknown-type",
      `Parameter "${p.name}" has unknown type "${p.typeWord}": Octomind makes it a string and drops the word from the description: write one of string, number, integer, boolean, array, object${
        looksLikeText
          ? ` before the description, e.g. "@param ${
            p.required ? "*" : ""
          }${p.name} string ${p.typeWord}…"`
          : ""
      }`,
      at,
    );
  }
  if (p.required) requiredCount.set(p.name, (requiredCount.get(p.name) ?? 0) + 1);
  const first = firstLine.get(p.name);
  if (first !== undefined) {
    const twice = p.required && requiredCount.get(p.name)! > 1
      ? `, and "required" lists "${p.name}" more than once, which JSON Schema validators reject`
      : "";
    report(
      "warning",
      "duplicate-parameter",
      `Parameter "${p.name}" is declared again (first at line ${first}): Octomind keeps this last definition${twice}: remove one of the lines`,
      at,
    );
  } else firstLine.set(p.name, hl.line);
  if (!PROPERTY_NAME.test(p.name)) {
    report(
      "warning",
      "invalid-parameter-name",
      `Parameter name "${p.name}" may be rejected by OpenAI-compatible servers, which accept only ^[a-zA-Z0-9_.-]{1,64}$: rename it, e.g. "${
        p.name.replace(/[^a-zA-Z0-9_.-]/g, "_").slice(0, 64)
      }"`,
      at,
    );
  } else if (!ENV_SAFE.test(p.name)) {
    report(
      "info",
      "parameter-env-name",
      `Parameter "${p.name}" arrives as OCTOMIND_PARAM_${p.name.toUpperCase()}, which a shell cannot read as a variable: read it from the stdin JSON, or rename it to "${
        p.name.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(\d)/, "_$1")
      }"`,
      at,
    );
  }
}

/**
 * The fix for a missing description: an empty tag, a tag outside the header, an
 * empty file, or the line to add.
 *
 * @returns The fix and where to report it.
 */
export function missingDescriptionFix(
  source: readonly string[],
  header: Header,
  descriptionTags: HeaderLine[],
  ignored: IgnoredTag[],
  misspelled: { tag: string; line: HeaderLine } | undefined,
): { fix: string; at: { line: number; column?: number } } {
  const empty = descriptionTags[0];
  if (empty) {
    return {
      fix: `the "@description" tag has no text: write what the tool does after it`,
      at: empty,
    };
  }
  if (misspelled) {
    return {
      fix: `"@${misspelled.tag}" is not "@description": write "@description" followed by the text`,
      at: misspelled.line,
    };
  }
  const outside = ignored.find((t) => t.tag === "description" || t.tag === "desc");
  if (outside) {
    return {
      fix:
        `the "@${outside.tag}" at line ${outside.line} is outside the header (${outside.reason}): move it into the comment block at the top of the file`,
      at: outside,
    };
  }
  if (source.length === 0) {
    return {
      fix: `the file is empty: start it with a shebang and a "# @description …" line`,
      at: { line: 1 },
    };
  }
  const marker = header.lines[0]?.marker.trim() ?? "#";
  return {
    fix:
      `add "${marker} @description What the tool does" to the comment header at the top of the file`,
    at: { line: header.lines[0]?.line ?? 1 },
  };
}

/**
 * Why line 1 is not a shebang the OS can use, with the fix.
 *
 * @returns The problem, or `undefined` when line 1 starts with `#!`.
 */
export function shebangProblem(source: readonly string[], text: string): string | undefined {
  const first = source[0] ?? "";
  if (first.startsWith("#!")) return undefined;
  if (text.startsWith("\uFEFF")) {
    return `the file starts with a byte order mark, so line 1 is not a "#!" shebang: save it as UTF-8 without a BOM`;
  }
  if (trimStart(first).startsWith("#!")) return `line 1 has white space before "#!": remove it`;
  const later = source.findIndex((l, i) => i > 0 && trimStart(l).startsWith("#!"));
  if (later > 0) return `the shebang is on line ${later + 1}: move it to line 1`;
  return `line 1 is not a "#!" shebang: add one naming the interpreter, e.g. "#!/usr/bin/env bash"`;
}

/**
 * Why `name` is not a valid Octomind tool name (`is_valid_tool_name`), with the fix.
 * A leading "." (hidden file) is handled before this check.
 *
 * @returns The problem, or `undefined` for a valid name.
 */
export function nameProblem(name: string): string | undefined {
  const rule =
    `a tool name is the file name, which may contain only ASCII letters, digits, "_" and "-" and must not start with "-"`;
  if (name === "") return `the file name is empty: ${rule}`;
  if (name.startsWith("-")) {
    const better = name.replace(/^-+/, "");
    return `${rule}: "${name}" starts with "-": rename it${better ? ` to "${better}"` : ""}`;
  }
  const badChar = [...name].find((c) => !/[A-Za-z0-9_-]/.test(c));
  if (badChar === undefined) return undefined;
  const ext = /^([A-Za-z0-9_-]+)\.[A-Za-z0-9]+$/.exec(name);
  if (ext) return `${rule}: "${name}" contains ".": drop the extension — rename it to "${ext[1]}"`;
  const better = name.replace(/[^A-Za-z0-9_-]/g, "_").replace(/^-+/, "");
  return `${rule}: "${name}" contains "${badChar}": rename it, e.g. to "${better}"`;
}
