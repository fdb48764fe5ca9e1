/**
 * Nanocoder's `parameters` block: every rule of `parseParameters` and
 * `parseParameterDef`, reported all at once instead of the first only.
 *
 * Private to the Nanocoder loader.
 *
 * @module
 */
import {
  describeValue,
  isMapping,
  NAME_REGEX,
  type Reporter,
  safeString,
  snakeCase,
  suggestKey,
  type YamlPath,
} from "./_nanocoder_report.ts";
import { lintDefinition } from "./_nanocoder_schema.ts";

/** Longest `pattern` Nanocoder accepts (`MAX_PATTERN_LENGTH`), in characters. */
export const MAX_PATTERN_LENGTH = 1024;

/** The parameter types Nanocoder accepts (no `object`). */
export const PARAM_TYPES = ["string", "number", "integer", "boolean", "array"] as const;
/** One of {@linkcode PARAM_TYPES}. */
export type ParamType = typeof PARAM_TYPES[number];

const PARAM_KEYS = [
  "type",
  "description",
  "required",
  "default",
  "enum",
  "pattern",
  "minLength",
  "maxLength",
  "min",
  "max",
  "items",
];
const PARAM_KEY_ALIASES: Record<string, string> = {
  minimum: "min",
  maximum: "max",
  min_length: "minLength",
  max_length: "maxLength",
  desc: "description",
  choices: "enum",
  values: "enum",
  regex: "pattern",
};
const TYPE_ALIASES: Record<string, ParamType> = {
  str: "string",
  text: "string",
  int: "integer",
  float: "number",
  double: "number",
  bool: "boolean",
  list: "array",
};

/** One parameter after Nanocoder's checks (`CustomToolParameterDef`). */
export interface ParameterDef {
  type: ParamType;
  description?: string;
  required?: boolean;
  default?: unknown;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  items?: { type: ParamType };
}

interface Entry {
  name: string;
  def: unknown;
  /** Path of the definition mapping (for the list form, the list entry). */
  path: YamlPath;
  /** Where the name is written. */
  namePath: YamlPath;
  namePart: "key" | "value";
}

/**
 * Checks the `parameters` value and reports every problem.
 *
 * @param value The front-matter `parameters` value.
 * @param r Where problems are reported.
 * @returns The parameters in declaration order (only the valid ones).
 */
export function parseParameters(value: unknown, r: Reporter): Map<string, ParameterDef> {
  const out = new Map<string, ParameterDef>();
  if (value === undefined || value === null) return out;
  const base: YamlPath = ["parameters"];
  const entries = new Map<string, Entry>();
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const path = [...base, i];
      if (!isMapping(item)) {
        r.error(
          "nanocoder/invalid-parameters",
          `parameters[${i}] must be a mapping with at least a "name" and "type": got ${
            describeValue(item)
          }; write "- name: my_param" with "type: string" under it`,
          r.at(path),
        );
        return;
      }
      const name = item.name;
      if (typeof name !== "string" || !name) {
        r.error(
          "nanocoder/invalid-parameters",
          `parameters[${i}] is missing a "name" field: add "name: my_param" to this entry`,
          r.at(path),
        );
        return;
      }
      const earlier = entries.get(name);
      if (earlier) {
        r.warn(
          "nanocoder/duplicate-parameter",
          `Duplicate parameter "${name}" in the parameter list: this entry silently replaces the earlier one; remove one of them`,
          r.at([...path, "name"]),
        );
      }
      const { name: _name, ...rest } = item;
      entries.set(name, { name, def: rest, path, namePath: [...path, "name"], namePart: "value" });
    });
  } else if (isMapping(value)) {
    for (const [name, def] of Object.entries(value)) {
      const path = [...base, name];
      entries.set(name, { name, def, path, namePath: path, namePart: "key" });
    }
  } else {
    r.error(
      "nanocoder/invalid-parameters",
      `"parameters" must be a mapping of name → definition (or a list of {name, type, ...} entries): got ${
        describeValue(value)
      }; write one "my_param:" line per parameter with "type: string" under it`,
      r.at(base),
    );
    return out;
  }
  for (const e of entries.values()) {
    const nameOk = NAME_REGEX.test(e.name);
    if (!nameOk) {
      const better = snakeCase(e.name);
      r.error(
        "nanocoder/invalid-parameter-name",
        `Invalid parameter name "${e.name}" — must match ${NAME_REGEX}: ${
          better ? `rename it to "${better}"` : "use snake_case starting with a letter"
        }`,
        r.at(e.namePath, e.namePart),
      );
    }
    if (!isMapping(e.def)) {
      r.error(
        "nanocoder/invalid-parameter",
        `Parameter "${e.name}" must be a mapping with at least a "type" field: got ${
          describeValue(e.def)
        }; write "${e.name}: {type: string}"`,
        r.at(e.path),
      );
      continue;
    }
    const def = parseDefinition(e.name, e.def, e.path, r);
    if (def && nameOk) out.set(e.name, def);
  }
  return out;
}

function parseDefinition(
  p: string,
  raw: Record<string, unknown>,
  path: YamlPath,
  r: Reporter,
): ParameterDef | undefined {
  const at = (key: string, part: "key" | "value" = "value") => r.at([...path, key], part);
  let ok = true;
  const fail = (code: string, message: string, key: string) => {
    ok = false;
    r.error(code, message, key === "" ? r.at(path) : at(key));
  };
  const type = raw.type;
  const validType = typeof type === "string" && (PARAM_TYPES as readonly string[]).includes(type);
  if (!validType) {
    fail(
      "nanocoder/invalid-parameter-type",
      `Parameter "${p}" has invalid type "${safeString(type)}" — expected one of: ${
        PARAM_TYPES.join(", ")
      }: ${typeFix(type)}`,
      raw.type === undefined ? "" : "type",
    );
  }
  const def = { type } as ParameterDef;
  if (raw.description !== undefined) {
    if (typeof raw.description === "string") def.description = raw.description;
    else {
      fail(
        "nanocoder/invalid-parameter-description",
        `parameters.${p}.description must be a string: got ${
          describeValue(raw.description)
        }; quote the text`,
        "description",
      );
    }
  }
  if (raw.required !== undefined) {
    if (typeof raw.required === "boolean") def.required = raw.required;
    else {
      const yes = typeof raw.required === "string" && /^(yes|no|on|off|y|n)$/i.test(raw.required);
      fail(
        "nanocoder/invalid-required",
        `Parameter "${p}": required must be a boolean: got ${
          describeValue(raw.required)
        }; write true or false${yes ? " (YAML 1.2 reads yes, no, on and off as text)" : ""}`,
        "required",
      );
    }
  }
  if (raw.default !== undefined) def.default = raw.default;
  if (raw.enum !== undefined) {
    if (Array.isArray(raw.enum)) def.enum = raw.enum;
    else {
      fail(
        "nanocoder/invalid-enum",
        `Parameter "${p}": enum must be an array: got ${
          describeValue(raw.enum)
        }; write a list such as [a, b]`,
        "enum",
      );
    }
  }
  if (raw.pattern !== undefined) {
    const pattern = checkPattern(p, raw.pattern, at("pattern"), r);
    if (pattern === undefined) ok = false;
    else def.pattern = pattern;
  }
  for (const key of ["minLength", "maxLength", "min", "max"] as const) {
    if (raw[key] === undefined) continue;
    const v = raw[key];
    const integer = key === "minLength" || key === "maxLength";
    const code = integer ? "nanocoder/invalid-length" : "nanocoder/invalid-min-max";
    if (typeof v !== "number" || !Number.isFinite(v)) {
      fail(
        code,
        `parameters.${p}.${key} must be a finite number: got ${describeValue(v)}; write ${
          integer ? "a whole number such as 1" : "a number such as 0"
        } without quotes`,
        key,
      );
    } else if (integer && !Number.isInteger(v)) {
      fail(code, `parameters.${p}.${key} must be an integer: got ${v}; write a whole number`, key);
    } else def[key] = v;
  }
  if (raw.items !== undefined) {
    if (!isMapping(raw.items)) {
      fail(
        "nanocoder/invalid-items",
        `Parameter "${p}": items must be a mapping with a "type" field: write items: {type: string}`,
        "items",
      );
    } else {
      const t = raw.items.type;
      if (typeof t === "string" && (PARAM_TYPES as readonly string[]).includes(t)) {
        def.items = { type: t as ParamType };
      } else {
        ok = false;
        r.error(
          "nanocoder/invalid-items",
          `Parameter "${p}": items.type is invalid: got ${describeValue(t)}; use one of: ${
            PARAM_TYPES.join(", ")
          }`,
          r.at([...path, "items", "type"]),
        );
      }
    }
  }
  for (const key of Object.keys(raw)) {
    if (PARAM_KEYS.includes(key)) continue;
    const s = suggestKey(key, PARAM_KEYS, PARAM_KEY_ALIASES);
    r.warn(
      "nanocoder/unknown-parameter-key",
      `Parameter "${p}": unknown key "${key}" is ignored: ${
        s ? `did you mean "${s}"?` : `remove it, or use one of: ${PARAM_KEYS.join(", ")}`
      }`,
      at(key, "key"),
    );
  }
  if (validType) lintDefinition(p, def, path, r);
  return ok && validType ? def : undefined;
}

function checkPattern(
  p: string,
  pattern: unknown,
  offset: number,
  r: Reporter,
): string | undefined {
  if (typeof pattern !== "string") {
    r.error(
      "nanocoder/invalid-pattern",
      `parameters.${p}.pattern must be a string: got ${
        describeValue(pattern)
      }; quote the pattern in single quotes`,
      offset,
    );
    return undefined;
  }
  if (pattern.length > MAX_PATTERN_LENGTH) {
    r.error(
      "nanocoder/invalid-pattern",
      `Parameter "${p}": pattern is too long (max ${MAX_PATTERN_LENGTH} chars): it has ${pattern.length}; shorten it`,
      offset,
    );
    return undefined;
  }
  try {
    new RegExp(pattern);
  } catch (err) {
    r.error(
      "nanocoder/invalid-pattern",
      `Parameter "${p}": pattern is not a valid regular expression: ${
        (err as Error).message
      }; fix it and quote it in single quotes`,
      offset,
    );
    return undefined;
  }
  try {
    new RegExp(pattern, "u");
  } catch (err) {
    r.warn(
      "nanocoder/pattern-not-unicode",
      `Parameter "${p}": pattern is not valid with the "u" flag that JSON Schema validators use: ${
        (err as Error).message
      }; remove escapes that are not needed, such as "\\-" outside brackets`,
      offset,
    );
  }
  return pattern;
}

function typeFix(type: unknown): string {
  if (type === undefined) return `add "type: string" (or another of these types)`;
  if (type === "object") {
    return `"object" is not supported; declare each field as its own parameter, or take a JSON string`;
  }
  if (typeof type === "string") {
    const lower = type.toLowerCase();
    if ((PARAM_TYPES as readonly string[]).includes(lower)) return `write "${lower}" in lower case`;
    if (Object.hasOwn(TYPE_ALIASES, lower)) return `write "${TYPE_ALIASES[lower]}"`;
  }
  return "use one of these types";
}
