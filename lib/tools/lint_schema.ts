/**
 * Lints a tool's parameters schema: valid JSON Schema (draft-07 meta-schema), an
 * object at the top as function calling requires, no unknown keywords (usually a
 * typo the server silently ignores), `required` naming declared properties.
 *
 * @module
 */
import validateDraft07 from "../_generated/draft07_validator.js";
import type { CodeInfo, Diagnostic, JsonValue, ToolDefinition } from "../types.ts";
import { didYouMean } from "../config/_positions.ts";

/** Codes emitted by this module. */
export const SCHEMA_CODES: readonly CodeInfo[] = [
  {
    code: "schema/invalid",
    severity: "error",
    summary: "The parameters schema is not valid JSON Schema (draft-07 meta-schema)",
  },
  {
    code: "schema/not-object",
    severity: "error",
    summary: 'The parameters schema is not {"type": "object", …}, which function calling requires',
  },
  {
    code: "schema/unknown-keyword",
    severity: "warning",
    summary: "A schema keyword that JSON Schema does not define (often a typo, silently ignored)",
  },
  {
    code: "schema/required-not-defined",
    severity: "warning",
    summary: '"required" names a property that "properties" does not define',
  },
];

/** Keywords of JSON Schema draft-07 and 2020-12, plus common annotations. */
const KNOWN_KEYWORDS = [
  "$schema",
  "$id",
  "$ref",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "description",
  "default",
  "examples",
  "readOnly",
  "writeOnly",
  "deprecated",
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "format",
  "items",
  "prefixItems",
  "additionalItems",
  "maxItems",
  "minItems",
  "uniqueItems",
  "contains",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "properties",
  "patternProperties",
  "additionalProperties",
  "dependencies",
  "dependentRequired",
  "dependentSchemas",
  "propertyNames",
  "if",
  "then",
  "else",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "contentEncoding",
  "contentMediaType",
  "unevaluatedProperties",
  "unevaluatedItems",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "nullable",
  "strict",
];

/** Keywords whose value is a map of name → schema. */
const SCHEMA_MAPS = ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"];
/** Keywords whose value is a schema. */
const SCHEMA_VALUES = [
  "additionalProperties",
  "items",
  "additionalItems",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "not",
  "unevaluatedProperties",
  "unevaluatedItems",
];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/**
 * Lints the parameters schema of one tool.
 *
 * @param tool The tool.
 * @param at Where to report (file, line, tool).
 */
export function lintSchema(
  tool: ToolDefinition,
  at: Pick<Diagnostic, "file" | "line" | "tool">,
): Diagnostic[] {
  const schema = tool.parameters;
  if (schema === undefined) return [];
  const out: Diagnostic[] = [];
  const report = (severity: Diagnostic["severity"], code: string, message: string) =>
    out.push({ severity, code, message, ...at });
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    report(
      "error",
      "schema/not-object",
      `Parameters of tool "${tool.name}" are ${
        JSON.stringify(schema)
      }, not a JSON Schema object: write {"type": "object", "properties": {…}}`,
    );
    return out;
  }
  if (!validateDraft07(schema)) {
    const seen = new Set<string>();
    for (const e of validateDraft07.errors ?? []) {
      // One finding per place: ajv adds the failed anyOf branches of the same value.
      if (seen.has(e.instancePath)) continue;
      seen.add(e.instancePath);
      report(
        "error",
        "schema/invalid",
        `Parameters schema of tool "${tool.name}" is not valid JSON Schema: ${
          e.instancePath || "/"
        } ${e.message ?? "is invalid"}${
          e.params.allowedValues ? ` (${(e.params.allowedValues as string[]).join(", ")})` : ""
        }`,
      );
    }
  }
  if (schema.type !== "object") {
    report(
      "error",
      "schema/not-object",
      `Parameters schema of tool "${tool.name}" has type ${
        JSON.stringify(schema.type ?? null)
      }: function calling requires "type": "object" at the top`,
    );
  }
  walk(schema, "", (node, pointer) => {
    for (const key of Object.keys(node)) {
      if (!KNOWN_KEYWORDS.includes(key)) {
        const hint = didYouMean(key, KNOWN_KEYWORDS);
        report(
          "warning",
          "schema/unknown-keyword",
          `Parameters schema of tool "${tool.name}" has the unknown keyword "${key}" at ${
            pointer || "/"
          }${hint ? `: did you mean "${hint}"?` : ": remove it or fix its spelling"}`,
        );
      }
    }
    const props = node.properties;
    if (
      Array.isArray(node.required) && props && typeof props === "object" && !Array.isArray(props)
    ) {
      for (const name of node.required) {
        if (typeof name === "string" && !(name in props)) {
          report(
            "warning",
            "schema/required-not-defined",
            `Parameters schema of tool "${tool.name}" requires "${name}" at ${
              pointer || "/"
            } but does not define it in "properties": add it or remove it from "required"`,
          );
        }
      }
    }
  });
  return out;
}

type SchemaObject = { [key: string]: JsonValue };

function isObject(v: JsonValue | undefined): v is SchemaObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function walk(
  node: SchemaObject,
  pointer: string,
  visit: (n: SchemaObject, p: string) => void,
): void {
  visit(node, pointer);
  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (isObject(map)) {
      for (const [name, sub] of Object.entries(map)) {
        if (isObject(sub)) walk(sub, `${pointer}/${key}/${name}`, visit);
      }
    }
  }
  for (const key of SCHEMA_VALUES) {
    const sub = node[key];
    if (isObject(sub)) walk(sub, `${pointer}/${key}`, visit);
  }
  for (const key of SCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) {
      list.forEach((sub, i) => {
        if (isObject(sub)) walk(sub, `${pointer}/${key}/${i}`, visit);
      });
    }
  }
}
