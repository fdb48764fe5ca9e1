/**
 * Ports of the Go standard-library behaviour agentcli's manifest loader depends on:
 * `path.Clean`, `path/filepath.Dir`, `strconv.Quote` (`%q`), `strings.TrimSpace`,
 * `strings.ToUpper`, `encoding/json`'s case folding of field names and its syntax
 * checker (`checkValid`), with the exact error texts.
 *
 * Private to the manifest loader. Unix path semantics only (as on Linux and macOS).
 *
 * @module
 */

/** Go's `unicode.IsSpace` (the Unicode White_Space property), as a character class. */
const SPACE =
  "\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000";
const TRIM = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, "g");
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * Go's `path.Clean`: the shortest path equivalent to `path` by lexical processing.
 *
 * @param path A slash-separated path.
 * @returns The cleaned path; `"."` for an empty result.
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(goClean("./tools/bin/../hack"), "tools/hack");
 * ```
 */
export function goClean(path: string): string {
  if (path === "") return ".";
  const rooted = path[0] === "/";
  const n = path.length;
  const out: string[] = [];
  let r = 0;
  let dotdot = 0;
  if (rooted) {
    out.push("/");
    r = 1;
    dotdot = 1;
  }
  while (r < n) {
    if (path[r] === "/") r++;
    else if (path[r] === "." && (r + 1 === n || path[r + 1] === "/")) r++;
    else if (path[r] === "." && path[r + 1] === "." && (r + 2 === n || path[r + 2] === "/")) {
      r += 2;
      if (out.length > dotdot) {
        // Go: w--, then drop back to the previous "/" (dropping it too) or to dotdot.
        let dropped = out.pop();
        while (out.length > dotdot && dropped !== "/") dropped = out.pop();
      } else if (!rooted) {
        if (out.length > 0) out.push("/");
        out.push(".", ".");
        dotdot = out.length;
      }
    } else {
      if ((rooted && out.length !== 1) || (!rooted && out.length !== 0)) out.push("/");
      for (; r < n && path[r] !== "/"; r++) out.push(path[r]!);
    }
  }
  return out.length === 0 ? "." : out.join("");
}

/**
 * Go's `filepath.Dir` on Unix: all but the last element, cleaned.
 *
 * @param path A slash-separated path.
 * @returns The directory.
 */
export function goDir(path: string): string {
  return goClean(path.slice(0, path.lastIndexOf("/") + 1));
}

/**
 * Go's `strconv.Quote`, which `%q` uses: double quotes, Go escapes for `"`, `\`
 * and non-printable characters.
 *
 * @param s Any text.
 * @returns The quoted text.
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(goQuote(".\\tools\\x"), '".\\\\tools\\\\x"');
 * ```
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s.toWellFormed()) out += escapeRune(ch, '"');
  return out + '"';
}

function escapeRune(ch: string, quote: string): string {
  if (ch === quote || ch === "\\") return "\\" + ch;
  if (PRINTABLE.test(ch)) return ch;
  const cp = ch.codePointAt(0)!;
  const named: Record<number, string> = {
    7: "a",
    8: "b",
    12: "f",
    10: "n",
    13: "r",
    9: "t",
    11: "v",
  };
  if (named[cp]) return "\\" + named[cp];
  if (cp < 0x20 || cp === 0x7f) return "\\x" + cp.toString(16).padStart(2, "0");
  if (cp < 0x10000) return "\\u" + cp.toString(16).padStart(4, "0");
  return "\\U" + cp.toString(16).padStart(8, "0");
}

/**
 * Go's `strings.TrimSpace`.
 *
 * @param s Any text.
 * @returns `s` without leading and trailing Unicode white space.
 */
export function goTrimSpace(s: string): string {
  return s.replace(TRIM, "");
}

/**
 * Go's `strings.ToUpper`: the simple (one character to one character) upper-case
 * mapping, so `"ß"` stays `"ß"` where JavaScript gives `"SS"`.
 *
 * @param s Any text.
 * @returns The upper-cased text.
 */
export function goToUpper(s: string): string {
  let out = "";
  for (const ch of s) {
    const up = ch.toUpperCase();
    out += [...up].length === 1 ? up : ch;
  }
  return out;
}

/**
 * The key `encoding/json` compares object keys with when no field name matches
 * exactly: ASCII letters upper-cased, the Kelvin sign and the long s folded to
 * `K` and `S` (Go's `foldName`).
 *
 * @param key An object key.
 * @returns The folded key.
 */
export function goFoldName(key: string): string {
  return key.replace(
    /[a-z\u212A\u017F]/g,
    (c) => c === "\u212A" ? "K" : c === "\u017F" ? "S" : c.toUpperCase(),
  );
}

/** A JSON syntax error as `encoding/json` reports it. */
export interface GoSyntaxError {
  /** Go's text, e.g. `invalid character '}' looking for beginning of object key string`. */
  message: string;
  /** Offset (UTF-16 units) of the character the scanner stopped at. */
  offset: number;
}

const MAX_DEPTH = 10_000;
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

/**
 * Go's `checkValid`: the first syntax error `json.Unmarshal` reports, if any.
 * At the end of the input Go feeds one more space to the scanner, so an unfinished
 * number reads `invalid character ' ' in numeric literal`.
 *
 * @param text The whole document.
 * @returns The error, or `undefined` when Go accepts the syntax.
 */
export function goJsonSyntaxError(text: string): GoSyntaxError | undefined {
  const n = text.length;
  let i = 0;
  const at = (k: number) => (k < n ? text[k]! : " ");
  const fail = (context: string): GoSyntaxError => ({
    message: `invalid character ${quoteChar(text, i)} ${context}`,
    offset: i,
  });
  const end = (): GoSyntaxError => ({ message: "unexpected end of JSON input", offset: n });
  const digit = (c: string) => c >= "0" && c <= "9";

  const scanString = (): GoSyntaxError | undefined => {
    for (i++;;) {
      if (i >= n) return end();
      const c = text[i]!;
      if (c === '"') {
        i++;
        return undefined;
      }
      if (c === "\\") {
        i++;
        const e = at(i);
        if (ESCAPES.has(e)) i++;
        else if (e === "u") {
          i++;
          for (let k = 0; k < 4; k++, i++) {
            if (!/[0-9A-Fa-f]/.test(at(i))) return fail("in \\u hexadecimal character escape");
          }
        } else return fail("in string escape code");
      } else if (c.charCodeAt(0) < 0x20) return fail("in string literal");
      else i++;
    }
  };
  const scanNumber = (): GoSyntaxError | undefined => {
    if (at(i) === "-") i++;
    if (at(i) === "0") i++;
    else if (digit(at(i))) { while (digit(at(i))) i++; }
    else return fail("in numeric literal");
    if (at(i) === ".") {
      i++;
      if (!digit(at(i))) return fail("after decimal point in numeric literal");
      while (digit(at(i))) i++;
    }
    if (at(i) === "e" || at(i) === "E") {
      i++;
      if (at(i) === "+" || at(i) === "-") i++;
      if (!digit(at(i))) return fail("in exponent of numeric literal");
      while (digit(at(i))) i++;
    }
    return undefined;
  };
  const scanLiteral = (word: string): GoSyntaxError | undefined => {
    i++;
    for (let k = 1; k < word.length; k++, i++) {
      if (at(i) !== word[k]) return fail(`in literal ${word} (expecting '${word[k]}')`);
    }
    return undefined;
  };

  const OBJECT_KEY = 0, OBJECT_VALUE = 1, ARRAY = 2;
  const stack: number[] = [];
  let expect: "value" | "valueOrClose" | "key" | "keyOrClose" | "after" = "value";
  for (;;) {
    while (i < n && " \t\r\n".includes(text[i]!)) i++;
    if (expect === "after" && stack.length === 0) {
      return i < n ? fail("after top-level value") : undefined;
    }
    if (i >= n) return end();
    const c = text[i]!;
    let error: GoSyntaxError | undefined;
    if ((expect === "valueOrClose" && c === "]") || (expect === "keyOrClose" && c === "}")) {
      stack.pop();
      i++;
      expect = "after";
      continue;
    }
    if (expect === "value" || expect === "valueOrClose") {
      if (c === "{" || c === "[") {
        if (stack.length + 1 > MAX_DEPTH) return fail("exceeded max depth");
        stack.push(c === "{" ? OBJECT_KEY : ARRAY);
        i++;
        expect = c === "{" ? "keyOrClose" : "valueOrClose";
        continue;
      }
      if (c === '"') error = scanString();
      else if (c === "-" || digit(c)) error = scanNumber();
      else if (c === "t" || c === "f" || c === "n") error = scanLiteral(literalOf(c));
      else return fail("looking for beginning of value");
    } else if (expect === "key" || expect === "keyOrClose") {
      if (c !== '"') return fail("looking for beginning of object key string");
      error = scanString();
    } else {
      const top = stack.length - 1;
      if (stack[top] === OBJECT_KEY) {
        if (c !== ":") return fail("after object key");
        stack[top] = OBJECT_VALUE;
        expect = "value";
      } else if (c === ",") {
        if (stack[top] === OBJECT_VALUE) stack[top] = OBJECT_KEY;
        expect = stack[top] === OBJECT_KEY ? "key" : "value";
      } else if (c === (stack[top] === OBJECT_VALUE ? "}" : "]")) stack.pop();
      else {return fail(
          stack[top] === OBJECT_VALUE ? "after object key:value pair" : "after array element",
        );}
      i++;
      continue;
    }
    if (error) return error;
    expect = "after";
  }
}

function literalOf(c: string): string {
  return c === "t" ? "true" : c === "f" ? "false" : "null";
}

/** Go's `quoteChar`: the byte the scanner stopped at, as a Go character literal. */
function quoteChar(text: string, i: number): string {
  if (i >= text.length) return "' '";
  const cp = text.codePointAt(i)!;
  // The scanner sees bytes: a multi-byte character is reported by its first byte, as a rune.
  const byte = cp < 0x80
    ? cp
    : cp < 0x800
    ? 0xc0 | (cp >> 6)
    : cp < 0x10000
    ? 0xe0 | (cp >> 12)
    : 0xf0 | (cp >> 18);
  const ch = String.fromCodePoint(byte);
  if (ch === "'") return "'\\''";
  if (ch === '"') return "'\"'";
  return `'${escapeRune(ch, '"')}'`;
}
