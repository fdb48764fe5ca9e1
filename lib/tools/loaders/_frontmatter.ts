/**
 * Front matter of a Markdown tool file: Nanocoder's split, its YAML parse, and the
 * mapping from offsets to file lines and columns.
 *
 * Private to the loaders.
 *
 * @module
 */
export { LineIndex } from "../../_lines.ts";
import { type Document, isAlias, isMap, isScalar, isSeq, type Node, parseDocument } from "yaml";

/**
 * Nanocoder's split regex (`source/utils/frontmatter.ts`), with one extra capture group
 * around the closing marker and the `d` flag for offsets. Neither changes what matches.
 */
const FRONTMATTER = /^---\s*\r?\n(?:([\s\S]*?)\r?\n)?(---)\s*\r?\n?([\s\S]*)$/d;

/** A file split into front matter and body, with offsets into the file text. */
export interface FrontmatterSplit {
  /** The YAML between the markers; `""` when the block is empty. */
  yaml: string;
  /** Offset of `yaml` in the file text. */
  yamlOffset: number;
  /** Offset of the closing `---` marker in the file text. */
  closeOffset: number;
  /** The body after the closing marker, trimmed (what Nanocoder renders). */
  body: string;
}

/**
 * Splits a file the way Nanocoder does: it must begin with `---`, and the first later
 * line starting with `---` closes the front matter.
 *
 * @param text The whole file.
 * @returns The parts, or `undefined` when the file has no front matter.
 */
export function splitFrontmatter(text: string): FrontmatterSplit | undefined {
  const m = FRONTMATTER.exec(text);
  if (!m?.indices) return undefined;
  const closeOffset = m.indices[2]![0];
  return {
    yaml: m[1] ?? "",
    yamlOffset: m.indices[1]?.[0] ?? closeOffset,
    closeOffset,
    body: m[3]!.trim(),
  };
}

/** A YAML problem, located by its offset in the front matter. */
export interface YamlProblem {
  /** The library's message without its trailing "at line N, column M:". */
  detail: string;
  /** The library's error code, e.g. `DUPLICATE_KEY`, or a harness one (`NOT_A_MAPPING`). */
  code: string;
  /** Offset inside the YAML text. */
  offset: number;
}

/** The front matter after parsing. */
export interface ParsedYaml {
  /** The document, for node positions; absent for empty front matter. */
  doc?: Document;
  /** The top-level mapping as plain data, when the YAML is valid. */
  value?: Record<string, unknown>;
  /** Why the YAML is not a valid object (Nanocoder's `parseYamlObject` returns null). */
  errors: YamlProblem[];
  /** What the library accepted but warned about, such as an unresolved tag. */
  warnings: YamlProblem[];
}

/**
 * Parses front matter as Nanocoder's `parseYamlObject` does: blank text is `{}`; a
 * YAML error (duplicate keys included), a failure to convert, or a top level that
 * is not a mapping makes it invalid.
 *
 * @param yaml The front matter text.
 * @returns The value or the problems; never throws.
 */
export function parseFrontmatterYaml(yaml: string): ParsedYaml {
  if (yaml.trim() === "") return { value: {}, errors: [], warnings: [] };
  const doc = parseDocument(yaml);
  const warnings = doc.warnings.map((w) => problem(w.message, w.code, w.pos[0]));
  if (doc.errors.length > 0) {
    return { doc, errors: doc.errors.map((e) => problem(e.message, e.code, e.pos[0])), warnings };
  }
  let value: unknown;
  try {
    value = doc.toJS();
    // An alias inside its own anchor (`a: &x [*x]`) makes a cycle that no JSON encoder
    // can send; Nanocoder would load it and fail later, at the provider.
    JSON.stringify(value);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { doc, errors: [problem(detail, "CONVERSION", 0)], warnings };
  }
  if (value === null || value === undefined || typeof value !== "object" || Array.isArray(value)) {
    const start = doc.contents?.range?.[0] ?? 0;
    const what = Array.isArray(value)
      ? "the front matter is a list, not a mapping"
      : value === null || value === undefined
      ? "the front matter holds no keys (only comments or null)"
      : `the front matter is a ${typeof value}, not a mapping`;
    return { doc, errors: [problem(what, "NOT_A_MAPPING", start)], warnings };
  }
  return { doc, value: value as Record<string, unknown>, errors: [], warnings };
}

function problem(message: string, code: string, offset: number): YamlProblem {
  const first = message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  return { detail: first, code, offset };
}

/** Which node of a mapping entry to point at. */
export type Part = "key" | "value";

/**
 * Finds the node at a key path inside a YAML document, following aliases.
 *
 * @param doc The document.
 * @param path Mapping keys (compared as Nanocoder's objects see them) and list indexes.
 * @param part For a mapping entry, its key or its value.
 * @returns The deepest node found along the path (its parent when a step is missing).
 */
export function nodeAt(
  doc: Document,
  path: readonly (string | number)[],
  part: Part = "value",
): Node | undefined {
  let node: unknown = doc.contents;
  let found: Node | undefined = isNode(node) ? node : undefined;
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) node = node.resolve(doc);
    const step = path[i]!;
    let key: Node | undefined;
    if (isMap(node)) {
      const pair = node.items.findLast((p) => keyString(p.key) === String(step));
      if (!pair) return found;
      key = isNode(pair.key) ? pair.key : undefined;
      node = pair.value;
    } else if (isSeq(node) && typeof step === "number") {
      node = node.items[step];
    } else {
      return found;
    }
    const last = i === path.length - 1;
    const value = isNode(node) && node.range ? node : undefined;
    found = (last && part === "key" ? key ?? value : value ?? key) ?? found;
  }
  return found;
}

function isNode(x: unknown): x is Node {
  return typeof x === "object" && x !== null && "range" in x;
}

/** The property name a YAML key becomes in a plain object (yaml's `stringifyKey`). */
function keyString(key: unknown): string | undefined {
  if (key === null || key === undefined) return "";
  if (isScalar(key)) return key.value === null ? "" : String(key.value);
  return undefined;
}
