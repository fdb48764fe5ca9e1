/**
 * String order by UTF-16 code units. Preferred over `localeCompare`, which loads ICU
 * collation data on first use (about 12 ms of start-up) and differs between locales.
 *
 * @module
 */

/**
 * Compares two strings by code units, for `Array.prototype.sort`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(["b", "B", "a"].sort(compareStrings), ["B", "a", "b"]);
 * ```
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * JSON text whose object keys are sorted at every depth, so equal values give equal
 * text whatever their key order. Properties whose value is `undefined` are left out,
 * as `JSON.stringify` does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null }), '{"a":null,"b":[1,{"c":2,"d":1}]}');
 * ```
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => compareStrings(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
