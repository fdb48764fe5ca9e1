/**
 * Decodes a parsed `tools.json` tree the way Go's `encoding/json` fills agentcli's
 * `Manifest{Tools []ToolSpec}`: keys match case-insensitively, unknown keys are
 * ignored, `null` leaves a string or number as it was and empties a list, a later
 * duplicate key overwrites (and a repeated `tools` list is merged into the earlier
 * one by position, as Go reuses the slice), and a value of the wrong type is a
 * `json: cannot unmarshal …` error with Go's wording.
 *
 * Unlike Go, it does not stop at the first type error: each one is kept with the node
 * it is about, so the loader can reject only the entries concerned.
 *
 * Private to the manifest loader.
 *
 * @module
 */
import type { Node } from "../../_jsonc.ts";
import type { JsonValue } from "../../types.ts";
import { goFoldName } from "./_go.ts";

/** A decoded value and the node it came from. */
export interface Located<T> {
  value: T;
  node: Node;
}

/** A list of strings (`command`, `envPassthrough`). */
export interface StringList {
  node: Node;
  items: Located<string>[];
}

/** One `tools[i]` entry, as Go's `ToolSpec` would hold it, with positions. */
export interface RawEntry {
  index: number;
  /** The entry node (an object, or `null`). */
  node: Node;
  name?: Located<string>;
  description?: Located<string>;
  /** `schema` is a `json.RawMessage`: any value, `null` included. */
  schema?: Node;
  command?: StringList;
  timeoutSec?: Located<number>;
  envPassthrough?: StringList;
  /** harness's extension, ignored by agentcli. */
  permissions?: Node;
  /** `json: cannot unmarshal …` problems inside this entry, with the field concerned. */
  typeErrors: (Located<string> & { field?: string })[];
}

/** A key agentcli ignores, or one that appears twice in an object. */
export interface KeyProblem {
  kind: "unknown" | "duplicate";
  /** The key as written. */
  key: string;
  /** The key node. */
  node: Node;
  /** For a duplicate: the field it sets and the key node of its first occurrence. */
  field?: string;
  first?: Node;
  /** The entry index, or `undefined` at the top level. */
  entry?: number;
}

/** The manifest as Go decodes it. */
export interface DecodedManifest {
  entries: RawEntry[];
  /** Type errors outside any entry (the document, `tools`). */
  typeErrors: Located<string>[];
  keys: KeyProblem[];
  /** How `tools` was given: missing, `null`, or a value. */
  tools: "missing" | "null" | Node;
}

const ENTRY_FIELDS = [
  "name",
  "description",
  "schema",
  "command",
  "timeoutSec",
  "envPassthrough",
  "permissions",
];
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Decodes the document.
 *
 * @param root The tree from `jsonc-parser`'s `parseTree` (syntax already checked).
 * @param text The document, for the literal text of numbers.
 * @returns Entries, type errors and key problems.
 */
export function decodeManifest(root: Node, text: string): DecodedManifest {
  const out: DecodedManifest = { entries: [], typeErrors: [], keys: [], tools: "missing" };
  if (root.type === "null") return out;
  if (root.type !== "object") {
    out.typeErrors.push({
      value: `json: cannot unmarshal ${goKind(root)} into Go value of type tools.Manifest`,
      node: root,
    });
    return out;
  }
  for (const [value, field] of fields(root, ["tools"], out.keys, undefined)) {
    if (field === undefined) continue;
    if (value.type === "null") {
      out.tools = "null";
      out.entries = [];
    } else if (value.type === "array") {
      out.tools = value;
      const previous = out.entries;
      out.entries = (value.children ?? []).map((node, index) =>
        decodeEntry(node, index, previous[index], text, out.keys)
      );
    } else {
      out.typeErrors.push({
        value: typeError(value, "Manifest", "tools", "[]tools.ToolSpec"),
        node: value,
      });
    }
  }
  return out;
}

function decodeEntry(
  node: Node,
  index: number,
  previous: RawEntry | undefined,
  text: string,
  keys: KeyProblem[],
): RawEntry {
  const entry: RawEntry = previous
    ? { ...previous, node, typeErrors: [...previous.typeErrors] }
    : { index, node, typeErrors: [] };
  if (node.type === "null") return entry;
  if (node.type !== "object") {
    entry.typeErrors.push({ value: typeError(node, "Manifest", "tools", "tools.ToolSpec"), node });
    return entry;
  }
  const fail = (value: Node, field: string, type: string, what = goKind(value)) =>
    entry.typeErrors.push({
      value: typeError(value, "ToolSpec", `tools.${field}`, type, what),
      node: value,
      field,
    });
  for (const [value, field] of fields(node, ENTRY_FIELDS, keys, index)) {
    switch (field) {
      case "name":
      case "description":
        if (value.type === "string") entry[field] = { value: goString(value), node: value };
        else if (value.type !== "null") fail(value, field, "string");
        break;
      case "schema":
        entry.schema = value;
        break;
      case "permissions":
        entry.permissions = value;
        break;
      case "timeoutSec": {
        if (value.type === "null") break;
        if (value.type !== "number") {
          fail(value, field, "int");
          break;
        }
        const literal = text.slice(value.offset, value.offset + value.length);
        const big = /^-?\d+$/.test(literal) ? BigInt(literal) : undefined;
        if (big === undefined || big < INT64_MIN || big > INT64_MAX) {
          fail(value, field, "int", `number ${literal}`);
        } else entry.timeoutSec = { value: Number(big), node: value };
        break;
      }
      case "command":
      case "envPassthrough": {
        if (value.type === "null") {
          delete entry[field];
          break;
        }
        if (value.type !== "array") {
          fail(value, field, "[]string");
          break;
        }
        const before = entry[field]?.items ?? [];
        const items = (value.children ?? []).map((item, i): Located<string> => {
          if (item.type === "string") return { value: goString(item), node: item };
          if (item.type !== "null") fail(item, field, "string");
          return { value: before[i]?.value ?? "", node: item };
        });
        entry[field] = { node: value, items };
        break;
      }
    }
  }
  return entry;
}

/**
 * The properties of an object in order, each with the Go field it sets (exact match
 * first, then case-insensitive), recording unknown and duplicate keys.
 */
function* fields(
  object: Node,
  known: readonly string[],
  keys: KeyProblem[],
  entry: number | undefined,
): Generator<[Node, string | undefined]> {
  const seen = new Map<string, Node>();
  for (const property of object.children ?? []) {
    const [keyNode, value] = property.children ?? [];
    if (!keyNode || !value) continue;
    const key = String(keyNode.value);
    const field = known.find((f) => f === key) ??
      known.find((f) => goFoldName(f) === goFoldName(key));
    const at = entry === undefined ? {} : { entry };
    if (field === undefined) keys.push({ kind: "unknown", key, node: keyNode, ...at });
    else {
      const first = seen.get(field);
      if (first) keys.push({ kind: "duplicate", key, node: keyNode, field, first, ...at });
      else seen.set(field, keyNode);
    }
    yield [value, field];
  }
}

/** A JSON string as Go decodes it: lone surrogates become U+FFFD. */
function goString(node: Node): string {
  return String(node.value).toWellFormed();
}

/** What Go calls a JSON value in `cannot unmarshal <kind>`. */
export function goKind(node: Node): string {
  return node.type === "boolean" ? "bool" : node.type;
}

function typeError(
  value: Node,
  struct: string,
  field: string,
  type: string,
  what = goKind(value),
): string {
  return `json: cannot unmarshal ${what} into Go struct field ${struct}.${field} of type ${type}`;
}

/**
 * The JSON value of a node, with own properties even for keys such as `__proto__`
 * and strings as Go decodes them.
 *
 * @param node A value node.
 * @returns The value.
 */
export function jsonValue(node: Node): JsonValue {
  switch (node.type) {
    case "object": {
      const out: { [key: string]: JsonValue } = {};
      for (const property of node.children ?? []) {
        const [keyNode, value] = property.children ?? [];
        if (!keyNode || !value) continue;
        Object.defineProperty(out, goString(keyNode), {
          value: jsonValue(value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    case "array":
      return (node.children ?? []).map(jsonValue);
    case "string":
      return goString(node);
    case "number":
    case "boolean":
      return node.value as number | boolean;
    default:
      return null;
  }
}
