/**
 * Offsets to 1-based lines and columns, for every diagnostic that points into a file.
 *
 * @module
 */

/** Maps offsets in a text to 1-based lines and columns (binary search over line starts). */
export class LineIndex {
  #starts: number[] = [0];

  /** @param text The whole file. */
  constructor(text: string) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
      this.#starts.push(i + 1);
    }
  }

  /**
   * @param offset A 0-based offset (UTF-16 units).
   * @returns The 1-based line and column.
   */
  at(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.#starts[lo]! + 1 };
  }
}

/**
 * The 1-based line and column of one offset in a text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(locate("a\nbc", 3), { line: 2, column: 2 });
 * ```
 */
export function locate(text: string, offset: number): { line: number; column: number } {
  return new LineIndex(text).at(offset);
}
