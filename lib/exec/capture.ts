/**
 * Bounded capture of one output stream: the first half and the last half of a byte
 * budget are kept, whatever the tool prints, and the bytes in between are counted.
 *
 * @module
 */

/** The marker line put between the head and the tail of a truncated stream. */
export function omittedMarker(bytes: number): string {
  return `\n[… harness: ${bytes} bytes of output omitted …]\n`;
}

/** Keeps the head and tail of a byte stream within a fixed budget. */
export class OutputCapture {
  readonly #head: Uint8Array;
  #headLen = 0;
  readonly #tail: Uint8Array;
  /** Next write position in the tail ring. */
  #tailPos = 0;
  #tailFull = false;
  #total = 0;

  /**
   * @param maxBytes The budget: `floor(maxBytes / 2)` bytes of head, the rest of tail.
   * @throws {RangeError} When `maxBytes` is negative or not an integer.
   */
  constructor(maxBytes: number) {
    if (!Number.isInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`maxOutputBytes must be a non-negative integer, got "${maxBytes}"`);
    }
    const headCap = Math.floor(maxBytes / 2);
    this.#head = new Uint8Array(headCap);
    this.#tail = new Uint8Array(maxBytes - headCap);
  }

  /** Bytes seen so far. */
  get total(): number {
    return this.#total;
  }

  /** Appends a chunk, keeping memory bounded by the budget. */
  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headLen < this.#head.length) {
      const n = Math.min(rest.length, this.#head.length - this.#headLen);
      this.#head.set(rest.subarray(0, n), this.#headLen);
      this.#headLen += n;
      rest = rest.subarray(n);
    }
    const cap = this.#tail.length;
    if (rest.length === 0 || cap === 0) return;
    if (rest.length >= cap) {
      this.#tail.set(rest.subarray(rest.length - cap));
      this.#tailPos = 0;
      this.#tailFull = true;
      return;
    }
    const first = Math.min(rest.length, cap - this.#tailPos);
    this.#tail.set(rest.subarray(0, first), this.#tailPos);
    this.#tail.set(rest.subarray(first), 0);
    const end = this.#tailPos + rest.length;
    if (end >= cap) this.#tailFull = true;
    this.#tailPos = end % cap;
  }

  /**
   * The captured text, decoded as lossy UTF-8. When bytes were dropped, a marker
   * line naming how many sits between head and tail; the cut points move to UTF-8
   * character boundaries so no character is split (the bytes skipped are counted).
   *
   * @returns The text and how many bytes were left out.
   */
  finish(): { text: string; omitted: number } {
    const tail = this.#tailFull
      ? concat(this.#tail.subarray(this.#tailPos), this.#tail.subarray(0, this.#tailPos))
      : this.#tail.subarray(0, this.#tailPos);
    let head = this.#head.subarray(0, this.#headLen);
    const kept = head.length + tail.length;
    const decoder = new TextDecoder("utf-8", { fatal: false });
    if (kept === this.#total) return { text: decoder.decode(concat(head, tail)), omitted: 0 };
    head = head.subarray(0, utf8Boundary(head, head.length));
    let start = 0;
    while (start < tail.length && (tail[start] & 0xc0) === 0x80 && start < 3) start++;
    const omitted = this.#total - head.length - (tail.length - start);
    const text = decoder.decode(head) + omittedMarker(omitted) +
      new TextDecoder("utf-8", { fatal: false }).decode(tail.subarray(start));
    return { text, omitted };
  }
}

/** The largest index ≤ `end` that does not split a UTF-8 sequence of `bytes`. */
function utf8Boundary(bytes: Uint8Array, end: number): number {
  let i = end;
  let back = 0;
  while (i > 0 && back < 4 && (bytes[i - 1] & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return end;
  const lead = bytes[i - 1];
  const len = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return len > back + 1 ? i - 1 : end;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
