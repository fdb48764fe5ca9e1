/**
 * A small validator for the subset of JSON Schema that tool parameters use in
 * practice (every Octomind and Nanocoder schema, and most manifests): `type`,
 * `properties`, `required`, `additionalProperties`, `enum`, `const`, `pattern`,
 * `minLength`/`maxLength`, `minimum`/`maximum`/`exclusive*`, `multipleOf`, `items`
 * (one schema), `minItems`/`maxItems`, `uniqueItems`, and annotations.
 *
 * It exists for start-up time: importing ajv and compiling a first schema costs about
 * 80 ms, more than the rest of a one-shot run. Its verdicts match ajv's (draft-07,
 * `strict: false`) on this subset — a differential test checks that on thousands of
 * random schemas and values — and any schema outside the subset goes to ajv.
 *
 * @module
 */

/** One error, in ajv's shape (so one formatter serves both). */
export interface SchemaError {
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

/** A compiled validator: returns the errors, empty when valid. */
export type MiniValidate = (data: unknown) => SchemaError[];

const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "$comment",
  "$schema",
  "$id",
  "readOnly",
  "writeOnly",
  "deprecated",
]);
const KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "enum",
  "const",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "items",
  "minItems",
  "maxItems",
  "uniqueItems",
]);
const TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);

type Schema = Record<string, unknown>;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Compiles a schema when it lies in the subset.
 *
 * @param schema The parameters schema.
 * @returns The validator, or `undefined` when ajv must handle the schema.
 */
export function compileMini(schema: unknown): MiniValidate | undefined {
  if (!supported(schema)) return undefined;
  return (data) => {
    const errors: SchemaError[] = [];
    check(schema as Schema | boolean, data, "", errors);
    return errors;
  };
}

function supported(schema: unknown): boolean {
  if (typeof schema === "boolean") return true;
  if (!isObject(schema)) return false;
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (!KEYWORDS.has(key)) return false;
    switch (key) {
      case "type": {
        const list = Array.isArray(value) ? value : [value];
        if (list.length === 0 || !list.every((t) => typeof t === "string" && TYPES.has(t))) {
          return false;
        }
        if (new Set(list).size !== list.length) return false;
        break;
      }
      case "properties":
        if (!isObject(value) || !Object.values(value).every(supported)) return false;
        break;
      case "additionalProperties":
      case "items":
        if (!supported(value)) return false;
        break;
      case "required":
        if (!Array.isArray(value) || !value.every((r) => typeof r === "string")) return false;
        break;
      case "enum":
        if (!Array.isArray(value) || value.length === 0) return false;
        break;
      case "pattern":
        if (typeof value !== "string") return false;
        try {
          new RegExp(value, "u");
        } catch {
          return false;
        }
        break;
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
        if (!Number.isInteger(value) || (value as number) < 0) return false;
        break;
      case "multipleOf":
        if (typeof value !== "number" || !(value > 0)) return false;
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        if (typeof value !== "number" || !Number.isFinite(value)) return false;
        break;
      case "uniqueItems":
        if (typeof value !== "boolean") return false;
        break;
    }
  }
  return true;
}

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function hasType(v: unknown, t: string): boolean {
  switch (t) {
    case "integer":
      return typeof v === "number" && Number.isFinite(v) && v % 1 === 0;
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    default:
      return typeOf(v) === t;
  }
}

/** ajv's deep equality (numbers by value, objects by keys). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

function check(schema: Schema | boolean, data: unknown, path: string, errors: SchemaError[]): void {
  const fail = (message: string, params: Record<string, unknown> = {}, at = path) =>
    errors.push({ instancePath: at, message, params });
  if (schema === true) return;
  if (schema === false) return void fail("boolean schema is false");
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
    if (!types.some((t) => hasType(data, t))) {
      return void fail(`must be ${types.join(",")}`, { type: types.join(",") });
    }
  }
  if (schema.enum !== undefined && !(schema.enum as unknown[]).some((e) => deepEqual(e, data))) {
    fail("must be equal to one of the allowed values", { allowedValues: schema.enum });
  }
  if (schema.const !== undefined && !deepEqual(schema.const, data)) {
    fail("must be equal to constant", { allowedValue: schema.const });
  }
  if (typeof data === "string") checkString(schema, data, fail);
  if (typeof data === "number") checkNumber(schema, data, fail);
  if (Array.isArray(data)) checkArray(schema, data, path, errors, fail);
  if (isObject(data)) checkObject(schema, data, path, errors, fail);
}

type Fail = (message: string, params?: Record<string, unknown>, at?: string) => void;

function checkString(schema: Schema, data: string, fail: Fail): void {
  const length = [...data].length; // code points, as ajv counts them
  if (typeof schema.minLength === "number" && length < schema.minLength) {
    fail(`must NOT have fewer than ${schema.minLength} characters`, { limit: schema.minLength });
  }
  if (typeof schema.maxLength === "number" && length > schema.maxLength) {
    fail(`must NOT have more than ${schema.maxLength} characters`, { limit: schema.maxLength });
  }
  if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(data)) {
    fail(`must match pattern "${schema.pattern}"`, { pattern: schema.pattern });
  }
}

function checkNumber(schema: Schema, data: number, fail: Fail): void {
  const bound = (key: string, ok: (limit: number) => boolean, op: string) => {
    const limit = schema[key];
    if (typeof limit === "number" && !ok(limit)) {
      fail(`must be ${op} ${limit}`, { comparison: op, limit });
    }
  };
  bound("maximum", (l) => data <= l, "<=");
  bound("minimum", (l) => data >= l, ">=");
  bound("exclusiveMaximum", (l) => data < l, "<");
  bound("exclusiveMinimum", (l) => data > l, ">");
  if (typeof schema.multipleOf === "number") {
    const q = data / schema.multipleOf;
    if (!Number.isInteger(q)) {
      fail(`must be multiple of ${schema.multipleOf}`, { multipleOf: schema.multipleOf });
    }
  }
}

function checkArray(
  schema: Schema,
  data: unknown[],
  path: string,
  errors: SchemaError[],
  fail: Fail,
): void {
  if (typeof schema.maxItems === "number" && data.length > schema.maxItems) {
    fail(`must NOT have more than ${schema.maxItems} items`, { limit: schema.maxItems });
  }
  if (typeof schema.minItems === "number" && data.length < schema.minItems) {
    fail(`must NOT have fewer than ${schema.minItems} items`, { limit: schema.minItems });
  }
  if (schema.uniqueItems === true) {
    for (let i = data.length - 1; i > 0; i--) {
      const j = data.findIndex((x, k) => k < i && deepEqual(x, data[i]));
      if (j >= 0) {
        fail(`must NOT have duplicate items (items ## ${j} and ${i} are identical)`, {
          i: j,
          j: i,
        });
        break;
      }
    }
  }
  if (schema.items !== undefined) {
    data.forEach((item, i) =>
      check(schema.items as Schema | boolean, item, `${path}/${i}`, errors)
    );
  }
}

function checkObject(
  schema: Schema,
  data: Record<string, unknown>,
  path: string,
  errors: SchemaError[],
  fail: Fail,
): void {
  for (const name of (schema.required ?? []) as string[]) {
    if (!Object.hasOwn(data, name)) {
      fail(`must have required property '${name}'`, { missingProperty: name });
    }
  }
  const props = (schema.properties ?? {}) as Record<string, Schema | boolean>;
  for (const [key, value] of Object.entries(data)) {
    const at = `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (Object.hasOwn(props, key)) check(props[key], value, at, errors);
    else if (schema.additionalProperties === false) {
      fail("must NOT have additional properties", { additionalProperty: key });
    } else if (isObject(schema.additionalProperties)) {
      check(schema.additionalProperties as Schema, value, at, errors);
    }
  }
}
