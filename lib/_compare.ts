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
