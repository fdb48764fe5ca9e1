/**
 * Turns offsets into lines and columns, and schema errors into messages that say
 * where, what was found and how to fix it.
 *
 * @module
 */
import type { Node } from "../_jsonc.ts";
import type { ValidationError } from "../_generated/config_validator.js";
import { didYouMean } from "../_suggest.ts";
import schema from "./harness.schema.json" with { type: "json" };

export { locate } from "../_lines.ts";
export { didYouMean, editDistance } from "../_suggest.ts";

type SchemaNode = { properties?: Record<string, SchemaNode>; $ref?: string; [k: string]: unknown };

function deref(node: SchemaNode | undefined): SchemaNode | undefined {
  if (node?.$ref?.startsWith("#/definitions/")) {
    const defs = (schema as { definitions: Record<string, SchemaNode> }).definitions;
    return deref(defs[node.$ref.slice("#/definitions/".length)]);
  }
  return node;
}

/** The schema node for a JSON pointer into a config value. */
function schemaAt(pointer: string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = schema as SchemaNode;
  for (const segment of pointer) {
    node = deref(node);
    if (!node) return undefined;
    if (node.properties?.[segment]) node = node.properties[segment];
    else if (typeof node.additionalProperties === "object") {
      node = node.additionalProperties as SchemaNode;
    } else if (typeof node.items === "object") node = node.items as SchemaNode;
    else return undefined;
  }
  return deref(node);
}

function nodeAt(root: Node, pointer: string[]): Node | undefined {
  let node: Node | undefined = root;
  for (const segment of pointer) {
    if (!node) return undefined;
    if (node.type === "object") {
      node = node.children?.find((p) => p.children?.[0]?.value === segment)?.children?.[1];
    } else if (node.type === "array") node = node.children?.[Number(segment)];
    else return undefined;
  }
  return node;
}

function keyNode(root: Node, pointer: string[], key: string): Node | undefined {
  const parent = nodeAt(root, pointer);
  return parent?.children?.find((p) => p.children?.[0]?.value === key)?.children?.[0];
}

/**
 * Describes a schema error of the config: the dotted path, what is wrong, the fix,
 * and the offset of the offending key or value.
 */
export function describeSchemaError(
  root: Node,
  error: ValidationError | undefined,
): { message: string; offset: number } {
  if (!error) return { message: "invalid config", offset: 0 };
  const pointer = error.instancePath.split("/").slice(1).map((s) =>
    s.replace(/~1/g, "/").replace(/~0/g, "~")
  );
  const where = pointer.length > 0 ? `"${pointer.join(".")}"` : "the config";
  const value = nodeAt(root, pointer);
  const offset = value?.offset ?? 0;
  const params = error.params;
  switch (error.keyword) {
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      const known = Object.keys(schemaAt(pointer)?.properties ?? {});
      const hint = didYouMean(key, known);
      const node = keyNode(root, pointer, key);
      return {
        message: `unknown key "${key}" in ${where}: ${
          hint ? `did you mean "${hint}"?` : `expected one of ${known.map(quote).join(", ")}`
        }`,
        offset: node?.offset ?? offset,
      };
    }
    case "enum":
      return {
        message: `${where} must be one of ${
          (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")
        } (got ${JSON.stringify(value?.value ?? null)})`,
        offset,
      };
    case "type":
      return {
        message: `${where} must be ${article(String(params.type))} (got ${
          value?.type ?? "nothing"
        })`,
        offset,
      };
    case "required":
      return {
        message: `${where} is missing the required key "${String(params.missingProperty)}"`,
        offset,
      };
    case "oneOf": {
      const branches = (schemaAt(pointer)?.oneOf ?? []) as SchemaNode[];
      const types = branches.map((b) => String(deref(b)?.type ?? "")).filter(Boolean);
      return {
        message: `${where} must be ${types.map(article).join(" or ")} (got ${
          value?.type ?? "nothing"
        })`,
        offset,
      };
    }
    case "pattern":
      return {
        message: `${where} does not match ${String(params.pattern)} (got ${
          JSON.stringify(value?.value)
        })`,
        offset,
      };
    default:
      return { message: `${where} ${error.message ?? "is invalid"}`, offset };
  }
}

function quote(s: string): string {
  return `"${s}"`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
