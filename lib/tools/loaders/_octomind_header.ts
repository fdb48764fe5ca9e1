/**
 * The text mechanics of an Octomind header, ported from `local_tool.rs`
 * (`extract_header`, `strip_comment_prefix`, `parse_param_line`, `normalize_type`)
 * with Rust's `str::lines`, `trim` and `split_whitespace` semantics, and with the
 * source line and column of every header line kept for diagnostics.
 *
 * Private to the Octomind loader.
 *
 * @module
 */

/** Lines examined for the header, counting the shebang (`HEADER_MAX_LINES`). */
export const HEADER_MAX_LINES = 80;

/** Rust's `char::is_whitespace` (the Unicode White_Space property), as a character class. */
const WS =
  "\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000";
const LEADING = new RegExp(`^[${WS}]+`);
const TRAILING = new RegExp(`[${WS}]+$`);
const FIRST_WS = new RegExp(`[${WS}]`);
const RUNS = new RegExp(`[${WS}]+`);

/** Comment markers, in the order `strip_comment_prefix` tries them. */
export const MARKERS = ["# ", "#", "// ", "//", "-- ", "--"] as const;

/** The JSON Schema types a `@param` type word normalizes to. */
export const TYPE_ALIASES: Readonly<Record<string, string>> = {
  str: "string",
  string: "string",
  int: "integer",
  integer: "integer",
  num: "number",
  number: "number",
  float: "number",
  bool: "boolean",
  boolean: "boolean",
  array: "array",
  list: "array",
  object: "object",
  obj: "object",
  map: "object",
};

/** Rust's `str::trim_start`. */
export function trimStart(s: string): string {
  return s.replace(LEADING, "");
}

/** Rust's `str::trim`. */
export function trim(s: string): string {
  return s.replace(LEADING, "").replace(TRAILING, "");
}

/** Rust's `str::split_whitespace`. */
export function splitWhitespace(s: string): string[] {
  const t = trim(s);
  return t === "" ? [] : t.split(RUNS);
}

/**
 * Rust's `str::lines`: splits on `\n`, drops one `\r` before each `\n`, and yields
 * no empty line after a final `\n`.
 *
 * @param text The file.
 * @returns The lines; line `k` (1-based) is at index `k - 1`.
 */
export function rustLines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  const last = parts.length - 1;
  const lines = parts.map((p, i) => (i < last && p.endsWith("\r") ? p.slice(0, -1) : p));
  if (parts[last] === "") lines.pop();
  return lines;
}

/**
 * Strips one comment marker from a `trim_start`ed line.
 *
 * @returns The text after the marker, or `undefined` when the line is not a comment.
 */
export function stripMarker(trimmed: string): { rest: string; marker: string } | undefined {
  const marker = MARKERS.find((m) => trimmed.startsWith(m));
  return marker === undefined ? undefined : { rest: trimmed.slice(marker.length), marker };
}

/** One line of the header, after its comment marker. */
export interface HeaderLine {
  /** The text after the marker, `trim`med. */
  text: string;
  /** 1-based line in the file. */
  line: number;
  /** 1-based column of `text` in the file line. */
  column: number;
  /** The marker that was stripped, e.g. `"# "`. */
  marker: string;
}

/** Why the header stopped. */
export type HeaderEnd =
  /** A blank line after the header started, or a line that is not a comment. */
  | { kind: "blank" | "code"; line: number }
  /** All of the first 80 lines were read and the file goes on. */
  | { kind: "limit" }
  /** The file ended. */
  | { kind: "eof" };

/** What `extract_header` makes of a file. */
export interface Header {
  lines: HeaderLine[];
  end: HeaderEnd;
  /** Whether the header had started (a comment line was seen) when it ended. */
  started: boolean;
}

/**
 * `extract_header`: the leading comment block of the first 80 lines.
 *
 * @param source The file's lines ({@linkcode rustLines}).
 * @returns The header lines with positions, and why the header ended.
 */
export function extractHeader(source: readonly string[]): Header {
  const lines: HeaderLine[] = [];
  let started = false;
  const count = Math.min(HEADER_MAX_LINES, source.length);
  for (let i = 0; i < count; i++) {
    const raw = source[i]!;
    if (i === 0 && raw.startsWith("#!")) continue;
    const trimmed = trimStart(raw);
    if (trimmed === "") {
      if (!started) continue;
      return { lines, end: { kind: "blank", line: i + 1 }, started };
    }
    const stripped = stripMarker(trimmed);
    if (!stripped) return { lines, end: { kind: "code", line: i + 1 }, started };
    started = true;
    const text = trim(stripped.rest);
    const lead = raw.length - trimmed.length + stripped.marker.length +
      (stripped.rest.length - trimStart(stripped.rest).length);
    lines.push({ text, line: i + 1, column: lead + 1, marker: stripped.marker });
  }
  return {
    lines,
    end: source.length > HEADER_MAX_LINES ? { kind: "limit" } : { kind: "eof" },
    started,
  };
}

/**
 * Splits a tag line (`text` starts with `@`) as `parse_header` does:
 * `splitn(2, char::is_whitespace)`, tag lower-cased, value trimmed.
 *
 * @returns The tag (without `@`), its value, and the offset of the value in `text`.
 */
export function splitTag(text: string): { tag: string; value: string; valueOffset: number } {
  const rest = text.slice(1);
  const m = FIRST_WS.exec(rest);
  const word = m ? rest.slice(0, m.index) : rest;
  const after = m ? rest.slice(m.index + m[0].length) : "";
  const value = trim(after);
  const valueOffset = 1 + (m ? m.index + m[0].length : rest.length) +
    (after.length - trimStart(after).length);
  return { tag: trim(word).toLowerCase(), value, valueOffset };
}

/** One `@param` as `parse_param_line` reads it, plus what the loader needs to explain it. */
export interface ParamLine {
  name: string;
  required: boolean;
  /** The normalized JSON Schema type. */
  type: string;
  /** The type word as written, when there was one. */
  typeWord?: string;
  description: string;
}

/**
 * `parse_param_line`: `[*]NAME TYPE DESCRIPTION…`.
 *
 * @param value The text after `@param`.
 * @returns The parameter, or `undefined` for an empty line or a lone `*` (Octomind drops them).
 */
export function parseParamLine(value: string): ParamLine | undefined {
  const words = splitWhitespace(value);
  const raw = words[0];
  if (raw === undefined) return undefined;
  const required = raw.startsWith("*");
  const name = required ? raw.slice(1) : raw;
  if (name === "") return undefined;
  const typeWord = words[1];
  const type = typeWord === undefined ? "string" : TYPE_ALIASES[typeWord.toLowerCase()] ?? "string";
  const param: ParamLine = { name, required, type, description: words.slice(2).join(" ") };
  if (typeWord !== undefined) param.typeWord = typeWord;
  return param;
}

/** How a file line reads to the header scanner. */
export type LineKind = "blank" | "comment" | "code";

/**
 * Classifies a file line the way `extract_header` would (ignoring the shebang rule).
 *
 * @returns The kind and, for a comment, its trimmed text after the marker.
 */
export function classify(raw: string): { kind: LineKind; text?: string; column?: number } {
  const trimmed = trimStart(raw);
  if (trimmed === "") return { kind: "blank" };
  const stripped = stripMarker(trimmed);
  if (!stripped) return { kind: "code" };
  const lead = raw.length - trimmed.length + stripped.marker.length +
    (stripped.rest.length - trimStart(stripped.rest).length);
  return { kind: "comment", text: trim(stripped.rest), column: lead + 1 };
}
