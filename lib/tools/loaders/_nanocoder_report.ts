/**
 * Collects the diagnostics of one Nanocoder file, located by YAML key paths.
 *
 * Private to the Nanocoder loader.
 *
 * @module
 */
import { editDistance } from "../../_suggest.ts";
import type { Document } from "yaml";
import type { Diagnostic, Severity } from "../../types.ts";
import { LineIndex, nodeAt, type Part } from "./_frontmatter.ts";

/** A key path inside the front matter, e.g. `["parameters", "ns", "type"]`. */
export type YamlPath = readonly (string | number)[];

/** Nanocoder's `TOOL_NAME_REGEX`, for tool and parameter names. */
export const NAME_REGEX = /^[a-z][a-z0-9_]*$/;

/** Codes whose errors still let the tool load (Nanocoder ignores the key). */
const NON_BLOCKING = new Set(["nanocoder/invalid-permission"]);

/** Diagnostics of one file, with file-based positions. */
export class Reporter {
  /** Everything found, in the order it was found. */
  readonly diagnostics: Diagnostic[] = [];
  #file: string;
  #lines: LineIndex;
  #doc: Document | undefined;
  #yamlOffset: number;
  #blocked = false;

  /**
   * @param file The file path put on every diagnostic.
   * @param text The whole file, for line numbers.
   */
  constructor(file: string, text: string) {
    this.#file = file;
    this.#lines = new LineIndex(text);
    this.#yamlOffset = 0;
  }

  /**
   * Sets the parsed front matter that key paths are resolved in.
   *
   * @param doc The YAML document (absent for empty front matter).
   * @param yamlOffset Offset of the front matter in the file.
   */
  useDocument(doc: Document | undefined, yamlOffset: number): void {
    this.#doc = doc;
    this.#yamlOffset = yamlOffset;
  }

  /**
   * The file offset of a node in the front matter.
   *
   * @param path Key path; `[]` is the whole front matter.
   * @param part The key or the value of the last mapping entry.
   * @returns The offset, or the start of the front matter when nothing is there.
   */
  at(path: YamlPath, part: Part = "value"): number {
    const node = this.#doc ? nodeAt(this.#doc, path, part) : undefined;
    return this.#yamlOffset + (node?.range?.[0] ?? 0);
  }

  /**
   * The file offset of a position in the front matter text.
   *
   * @param yamlOffset Offset inside the front matter.
   * @returns The file offset.
   */
  inYaml(yamlOffset: number): number {
    return this.#yamlOffset + yamlOffset;
  }

  /**
   * The 1-based line and column of a file offset.
   *
   * @param offset File offset.
   */
  position(offset: number): { line: number; column: number } {
    return this.#lines.at(offset);
  }

  /** Whether an error that keeps the tool from loading was reported. */
  get blocked(): boolean {
    return this.#blocked;
  }

  /**
   * Records an error.
   *
   * @param code Stable code, e.g. `nanocoder/invalid-name`.
   * @param message The message, original text first, then the fix.
   * @param offset File offset the finding is about.
   */
  error(code: string, message: string, offset: number): void {
    if (!NON_BLOCKING.has(code)) this.#blocked = true;
    this.#add("error", code, message, offset);
  }

  /** Records a warning; see {@linkcode Reporter.error}. */
  warn(code: string, message: string, offset: number): void {
    this.#add("warning", code, message, offset);
  }

  /** Records an informational finding; see {@linkcode Reporter.error}. */
  info(code: string, message: string, offset: number): void {
    this.#add("info", code, message, offset);
  }

  /**
   * Names the tool on every diagnostic recorded so far and later.
   *
   * @param tool The tool name.
   * @returns The diagnostics.
   */
  finish(tool: string | undefined): Diagnostic[] {
    if (tool !== undefined) { for (const d of this.diagnostics) d.tool = tool; }
    return this.diagnostics;
  }

  #add(severity: Severity, code: string, message: string, offset: number): void {
    const { line, column } = this.#lines.at(offset);
    this.diagnostics.push({ severity, code, message, file: this.#file, line, column });
  }
}

/**
 * `String(v)` that never throws (a YAML mapping with a `toString` key would make
 * `String` throw).
 *
 * @param value Any value.
 * @returns Its string form.
 */
export function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * A short description of a YAML value for messages: `"text"`, `42`, `a list`.
 *
 * @param value Any value.
 * @returns The description.
 */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "nothing (null)";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value);
  }
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return safeString(value);
}

/**
 * Suggests a known key for a misspelt one.
 *
 * @param key The unknown key.
 * @param known The keys the format knows.
 * @param aliases Common wrong names, mapped to the right one.
 * @returns The suggestion, or `undefined`.
 */
export function suggestKey(
  key: string,
  known: readonly string[],
  aliases: Readonly<Record<string, string>>,
): string | undefined {
  for (const k of [key, key.toLowerCase()]) if (Object.hasOwn(aliases, k)) return aliases[k];
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d < bestDistance && d < k.length / 2) [best, bestDistance] = [k, d];
  }
  return best;
}

/**
 * A snake_case name close to `name`, as Nanocoder's scaffold makes one
 * (dashes become underscores, lower case), or `undefined` when none is obvious.
 *
 * @param name Any name.
 * @returns A name matching {@linkcode NAME_REGEX}, or `undefined`.
 */
export function snakeCase(name: string): string | undefined {
  const s = name.trim().replace(/[-\s.]+/g, "_").toLowerCase().replace(/[^a-z0-9_]/g, "")
    .replace(/^_+/, "");
  return NAME_REGEX.test(s) ? s : undefined;
}

/**
 * Whether a value is a YAML mapping (a plain object, not a list).
 *
 * @param v Any value.
 */
export function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
