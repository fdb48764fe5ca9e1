/**
 * The parameters JSON Schema: exactly what Nanocoder's `buildJsonSchema` sends to the
 * model, and the warnings about schemas Nanocoder accepts but surely did not mean.
 *
 * Private to the Nanocoder loader.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../types.ts";
import type { ParameterDef, ParamType } from "./_nanocoder_params.ts";
import { type Reporter, safeString, type YamlPath } from "./_nanocoder_report.ts";

/**
 * Nanocoder's `buildJsonSchema`: the schema sent to the model, key order included.
 *
 * @param params The parameters in declaration order.
 * @returns `{type, properties, required, additionalProperties: false}`.
 */
export function buildJsonSchema(params: ReadonlyMap<string, ParameterDef>): JsonObject {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const [name, def] of params) {
    const prop: JsonObject = { type: def.type };
    if (def.description !== undefined) prop.description = def.description;
    if (def.default !== undefined) prop.default = def.default as JsonValue;
    if (def.enum !== undefined) prop.enum = def.enum as JsonValue[];
    if (def.pattern !== undefined) prop.pattern = def.pattern;
    if (def.minLength !== undefined) prop.minLength = def.minLength;
    if (def.maxLength !== undefined) prop.maxLength = def.maxLength;
    if (def.min !== undefined) prop.minimum = def.min;
    if (def.max !== undefined) prop.maximum = def.max;
    if (def.items !== undefined) prop.items = { type: def.items.type };
    properties[name] = prop;
    if (def.required) required.push(name);
  }
  return { type: "object", properties, required, additionalProperties: false };
}

/**
 * Warns about a parameter Nanocoder accepts but that is surely a mistake: a
 * constraint its type ignores, an empty range, enum values or a default of the
 * wrong type, a default outside the enum.
 *
 * @param p The parameter name.
 * @param def The checked definition.
 * @param path Its key path, for positions.
 * @param r Where warnings are reported.
 */
export function lintDefinition(
  p: string,
  def: ParameterDef,
  path: YamlPath,
  r: Reporter,
): void {
  const at = (key: string, part: "key" | "value" = "value") => r.at([...path, key], part);
  const t = def.type;
  const ignored = (key: keyof ParameterDef, only: string) => {
    if (def[key] === undefined) return;
    r.warn(
      "nanocoder/ineffective-constraint",
      `Parameter "${p}": ${key} has no effect on a "${t}" parameter: Nanocoder checks it only for ${only}; remove it or change the type`,
      at(key, "key"),
    );
  };
  if (t !== "string") {
    for (const k of ["pattern", "minLength", "maxLength"] as const) ignored(k, "strings");
  }
  if (t !== "number" && t !== "integer") {
    for (const k of ["min", "max"] as const) ignored(k, "numbers");
  }
  if (t !== "array") ignored("items", "arrays");
  for (const [lo, hi] of [["minLength", "maxLength"], ["min", "max"]] as const) {
    const a = def[lo];
    const b = def[hi];
    if (a !== undefined && b !== undefined && a > b) {
      r.warn(
        "nanocoder/empty-range",
        `Parameter "${p}": ${lo} (${a}) is greater than ${hi} (${b}), so no value is valid: swap them`,
        at(lo),
      );
    }
  }
  def.enum?.forEach((v, i) => {
    if (matchesType(t, v)) return;
    r.warn(
      "nanocoder/invalid-enum-value",
      `Parameter "${p}": enum value ${
        json(v)
      } is not of type "${t}", so no argument can match it: write it as a ${t}`,
      r.at([...path, "enum", i]),
    );
  });
  if (def.default !== undefined) {
    if (!matchesType(t, def.default)) {
      r.warn(
        "nanocoder/invalid-default",
        `Parameter "${p}": default ${
          json(def.default)
        } is not of type "${t}": the model is told this default and may copy it; make it a ${t}`,
        at("default"),
      );
    } else if (def.enum && !def.enum.some((v) => json(v) === json(def.default))) {
      r.warn(
        "nanocoder/invalid-default",
        `Parameter "${p}": default ${
          json(def.default)
        } is not one of the enum values: add it to enum or change it`,
        at("default"),
      );
    }
  }
}

/** Nanocoder's run-time `matchesType`. */
function matchesType(type: ParamType, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
  }
}

function json(v: unknown): string {
  try {
    return JSON.stringify(v) ?? safeString(v);
  } catch {
    return safeString(v);
  }
}
