/**
 * "Did you mean" hints: the edit distance between two words, and the closest known
 * word to a misspelt one.
 *
 * @module
 */

/**
 * The Levenshtein distance between two short strings.
 *
 * @returns The number of single-character edits.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(editDistance("sandbx", "sandbox"), 1);
 * ```
 */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/**
 * The closest candidate to `word`, when one is close enough to be a likely typo.
 *
 * @returns The suggestion, or `undefined`.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3))
    ? best
    : undefined;
}
