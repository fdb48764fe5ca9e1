/**
 * Text helpers that reproduce Rust's and Go's notion of white space, and UTF-8
 * byte cuts, for the conventions that port Rust (Octomind) and Go (agentcli) code.
 *
 * Rust's `char::is_whitespace` and Go's `unicode.IsSpace` both follow the Unicode
 * `White_Space` property. JavaScript's `trim` differs: it also strips U+FEFF and
 * does not strip U+0085 (NEXT LINE).
 *
 * @module
 */

/** One Unicode `White_Space` character (Rust `char::is_whitespace`, Go `unicode.IsSpace`). */
const WS =
  "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING = new RegExp(`^[${WS}]+`);
const TRAILING = new RegExp(`[${WS}]+$`);
const RUNS = new RegExp(`[${WS}]+`);

/** Rust `str::trim_end` / Go `strings.TrimRight(s, unicode spaces)`. */
export function trimEndUnicode(s: string): string {
  return s.replace(TRAILING, "");
}

/** Rust `str::trim` / Go `strings.TrimSpace`. */
export function trimUnicode(s: string): string {
  return s.replace(LEADING, "").replace(TRAILING, "");
}

/**
 * Go `strings.Join(strings.Fields(s), " ")`: every run of white space becomes one
 * space, and leading and trailing white space goes.
 */
export function joinFields(s: string): string {
  return s.split(RUNS).filter((f) => f !== "").join(" ");
}

/**
 * The UTF-8 bytes of `s`, cut to at most `max` bytes. The cut may fall inside a
 * multi-byte character, as Go's `msg[:max]` does.
 */
export function utf8Prefix(s: string, max: number): Uint8Array {
  const bytes = new TextEncoder().encode(s);
  return bytes.length > max ? bytes.subarray(0, max) : bytes;
}
