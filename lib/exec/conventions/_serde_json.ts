/**
 * JSON as Rust's `serde_json` (default features: no `preserve_order`, no
 * `arbitrary_precision`) reads and prints it, for the Octomind convention.
 *
 * Two differences from `JSON.parse` + `JSON.stringify` matter to a script:
 * - Object keys come out **sorted** (`serde_json::Map` is a `BTreeMap`), compared
 *   byte-wise as UTF-8, i.e. by code point.
 * - Numbers keep serde's integer/float distinction: a number token without `.`, `e`
 *   or `E` that fits a `u64` (or, negative, an `i64`) is an integer and prints as
 *   written; anything else is an `f64` printed by `zmij` (`2.0` → `2.0`,
 *   `1.5e3` → `1500.0`, `1e21` → `1e+21`, `-0` → `-0.0`). So the number tokens of
 *   the model's argument text are kept.
 *
 * Octomind's `Cargo.lock` pins serde_json 1.0.150, which formats floats with `zmij`
 * (since 1.0.147; before, `ryu` printed the same except `1e21` for `1e+21`).
 * serde_json's default float parser (no `float_roundtrip` feature) can be one ulp
 * off for long mantissas; here parsing is correctly rounded, so such a number can
 * print differently in its last digit.
 *
 * Strings are escaped by serde_json exactly like `JSON.stringify` does (`\"`, `\\`,
 * `\b \f \n \r \t`, other controls as lowercase `\u00xx`, nothing else), except for
 * lone surrogates, which serde_json cannot hold at all (it rejects them on input).
 *
 * @module
 */

/** A number token as written in the JSON text. */
export class RawNumber {
  /** @param lexeme The token, e.g. `2.0` or `-17`. */
  constructor(readonly lexeme: string) {}
}

/** A JSON value whose numbers are kept as tokens. */
export type SerdeValue =
  | null
  | boolean
  | string
  | RawNumber
  | SerdeValue[]
  | { [key: string]: SerdeValue };

const U64_MAX = (1n << 64n) - 1n;
const I64_MIN_MAGNITUDE = 1n << 63n;

/**
 * Parses JSON text, keeping number tokens.
 *
 * @param text JSON text; surrounding JSON white space is allowed.
 * @returns The value.
 * @throws {SyntaxError} When the text is not one JSON value.
 */
export function parseSerde(text: string): SerdeValue {
  const p = new Parser(text);
  p.ws();
  const v = p.value();
  p.ws();
  if (p.i !== text.length) throw new SyntaxError(`Unexpected text at offset ${p.i}`);
  return v;
}

class Parser {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (this.i < this.s.length && " \t\n\r".includes(this.s[this.i])) this.i++;
  }

  value(): SerdeValue {
    const c = this.s[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = this.i;
    const hit = m.exec(this.s);
    if (hit === null) throw new SyntaxError(`Unexpected character at offset ${this.i}`);
    this.i += hit[0].length;
    return new RawNumber(hit[0]);
  }

  string(): string {
    // JSON forbids raw control characters in strings.
    // deno-lint-ignore no-control-regex
    const m = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
    m.lastIndex = this.i;
    const hit = m.exec(this.s);
    if (hit === null) throw new SyntaxError(`Bad string at offset ${this.i}`);
    this.i += hit[0].length;
    return JSON.parse(hit[0]);
  }

  array(): SerdeValue[] {
    const out: SerdeValue[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === "]") return out;
      if (c !== ",") throw new SyntaxError(`Expected "," or "]" at offset ${this.i - 1}`);
    }
  }

  object(): { [key: string]: SerdeValue } {
    const out: { [key: string]: SerdeValue } = {};
    this.i++;
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      const key = this.string();
      this.ws();
      if (this.s[this.i++] !== ":") throw new SyntaxError(`Expected ":" at offset ${this.i - 1}`);
      this.ws();
      Object.defineProperty(out, key, {
        value: this.value(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.ws();
      const c = this.s[this.i++];
      if (c === "}") return out;
      if (c !== ",") throw new SyntaxError(`Expected "," or "}" at offset ${this.i - 1}`);
    }
  }
}

/**
 * Converts a parsed JavaScript value. Without the original text a number's spelling
 * is lost: an integral number within ±2^53 is taken as an integer (`2`), anything
 * else as an `f64`.
 */
export function fromJs(value: unknown): SerdeValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") {
    if (Number.isSafeInteger(value)) return new RawNumber(String(value));
    return new RawNumber(Number.isFinite(value) ? zmijFormat(value) : "null");
  }
  if (typeof value === "bigint") return new RawNumber(value.toString());
  if (Array.isArray(value)) return value.map(fromJs);
  if (typeof value === "object") {
    const out: { [key: string]: SerdeValue } = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: fromJs(v), enumerable: true, writable: true });
    }
    return out;
  }
  return null;
}

/** The JavaScript value of a parsed tree (what `JSON.parse` would give). */
export function toJs(value: SerdeValue): unknown {
  if (value instanceof RawNumber) return Number(value.lexeme);
  if (Array.isArray(value)) return value.map(toJs);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: toJs(v), enumerable: true, writable: true });
    }
    return out;
  }
  return value;
}

/** Compares two strings by code point (UTF-8 byte order), as Rust's `BTreeMap<String, _>`. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/** `serde_json::to_string(value)`: compact, keys sorted. */
export function serdeToString(value: SerdeValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof RawNumber) return serdeNumberText(value.lexeme);
  if (Array.isArray(value)) return `[${value.map(serdeToString).join(",")}]`;
  const keys = Object.keys(value).sort(compareCodePoints);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${serdeToString(value[k])}`).join(",")}}`;
}

/**
 * How serde_json prints a number read from `lexeme` (`Number`'s `Display`, which
 * equals its compact serialization).
 */
export function serdeNumberText(lexeme: string): string {
  if (lexeme === "null") return "null";
  if (!/[.eE]/.test(lexeme)) {
    const negative = lexeme.startsWith("-");
    const magnitude = BigInt(negative ? lexeme.slice(1) : lexeme);
    if (magnitude <= U64_MAX) {
      if (!negative) return magnitude.toString();
      // serde: `(m as i64).wrapping_neg()`; a non-negative result (m = 0 or m > 2^63) is an f64.
      if (magnitude >= 1n && magnitude <= I64_MIN_MAGNITUDE) return `-${magnitude}`;
      return zmijFormat(-Number(magnitude));
    }
  }
  const v = Number(lexeme);
  // serde_json rejects out-of-range numbers on input; its serializer prints non-finite as null.
  return Number.isFinite(v) ? zmijFormat(v) : "null";
}

/**
 * `zmij::Buffer::format_finite` for an `f64`: the shortest round-trip digits (the
 * same digits as `Number.prototype.toExponential()`), fixed notation when the
 * decimal exponent is in -5..=15 (`1500.0`, `0.00001`), else scientific with a
 * signed, unpadded exponent (`1e+21`, `1.5e-7`); zero is `0.0` or `-0.0`.
 */
export function zmijFormat(value: number): string {
  const sign = value < 0 || Object.is(value, -0) ? "-" : "";
  const v = Math.abs(value);
  if (v === 0) return `${sign}0.0`;
  const [mant, exp] = v.toExponential().split("e");
  const digits = mant.replace(".", "");
  const length = digits.length;
  const kk = Number(exp) + 1; // 10^(kk-1) <= v < 10^kk
  const k = kk - length;
  let body: string;
  if (k >= 0 && kk <= 16) body = `${digits}${"0".repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) body = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) body = `0.${"0".repeat(-kk)}${digits}`;
  else {
    const e = kk - 1;
    const mantissa = length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    body = `${mantissa}e${e < 0 ? "-" : "+"}${Math.abs(e)}`;
  }
  return sign + body;
}
