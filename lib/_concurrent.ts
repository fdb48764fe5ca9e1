/**
 * Bounded concurrency for independent async work.
 *
 * @module
 */

/**
 * Maps `items` with at most `limit` calls of `f` in flight.
 *
 * @returns The results, in the order of `items` whatever the order calls finish in.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(await mapConcurrent([3, 1, 2], 2, (n) => Promise.resolve(n * 2)), [6, 2, 4]);
 * ```
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  f: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return out;
}
