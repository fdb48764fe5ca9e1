/**
 * Delta merging for fields harness does not interpret, so they reach the assembled
 * message as the server meant them.
 *
 * Rules: strings concatenate (stream deltas), except identity keys (`type`, `id`,
 * `index`, `format`, `role`, `object`), which are set; objects merge key by key; arrays
 * append, and an item with a numeric `index` merges into the earlier item with the same
 * `index` (OpenRouter `reasoning_details`); `null` adds nothing (kept only with
 * `keepNulls` and when nothing else arrived); anything else replaces.
 *
 * @module
 */

const IDENTITY_KEYS = new Set(["type", "id", "index", "format", "role", "object"]);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Merges one delta value into what has accumulated.
 *
 * @param prev The accumulated value (undefined at first).
 * @param next The new fragment.
 * @param key The field name (identity keys are set, not concatenated).
 * @param keepNulls Keep a `null` when nothing else arrived (non-streaming responses).
 * @returns The merged value (a fresh object or array when either side is one).
 */
export function mergeDelta(prev: unknown, next: unknown, key: string, keepNulls = false): unknown {
  if (next === undefined) return prev;
  if (next === null) return prev === undefined && keepNulls ? null : prev;
  if (prev === undefined || prev === null) return clone(next);
  if (typeof prev === "string" && typeof next === "string") {
    return IDENTITY_KEYS.has(key) ? next : prev + next;
  }
  if (Array.isArray(prev) && Array.isArray(next)) {
    const out = [...prev];
    for (const item of next) {
      const at = isObject(item) && typeof item.index === "number"
        ? out.findIndex((p) => isObject(p) && p.index === item.index)
        : -1;
      if (at === -1) out.push(clone(item));
      else out[at] = mergeDelta(out[at], item, key, keepNulls);
    }
    return out;
  }
  if (isObject(prev) && isObject(next)) {
    const out: Json = { ...prev };
    for (const [k, v] of Object.entries(next)) out[k] = mergeDelta(out[k], v, k, keepNulls);
    return out;
  }
  return clone(next);
}

/**
 * Merges every field of `next` except `skip` into `into`.
 *
 * @param into The accumulated fields (mutated).
 * @param next A delta object.
 * @param skip Field names the caller interprets itself.
 * @param keepNulls See {@link mergeDelta}.
 */
export function mergeFields(
  into: Json,
  next: Json,
  skip: ReadonlySet<string>,
  keepNulls = false,
): void {
  for (const [k, v] of Object.entries(next)) {
    if (skip.has(k)) continue;
    const merged = mergeDelta(into[k], v, k, keepNulls);
    if (merged !== undefined) into[k] = merged;
  }
}

function clone<T>(v: T): T {
  return typeof v === "object" && v !== null ? structuredClone(v) : v;
}
