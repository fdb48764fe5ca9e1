/**
 * Stable ids: synthesized tool-call ids for servers that send none, and Mistral's
 * 9-character ids. Both are pure functions of their input, so a replayed recording
 * produces the same ids as the live run.
 *
 * @module
 */

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Mistral's tool call id format. */
export const MISTRAL_ID = /^[a-zA-Z0-9]{9}$/;

/**
 * A 53-bit string hash (cyrb53), rendered as 9 base-62 characters.
 *
 * @param text Any text.
 * @returns 9 characters of `[0-9a-zA-Z]`.
 */
export function hash9(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  let n = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  let out = "";
  for (let i = 0; i < 9; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * Rewrites an id to Mistral's format (`^[a-zA-Z0-9]{9}$`); ids already in it are kept.
 *
 * @param id A tool call id.
 * @returns The same id, or a stable 9-character id derived from it.
 * @example
 * ```ts
 * import { toMistralId } from "./_ids.ts";
 * if (toMistralId("abcDEF123") !== "abcDEF123") throw new Error("kept");
 * if (!/^[a-zA-Z0-9]{9}$/.test(toMistralId("call_0123456789abcdef"))) throw new Error("format");
 * ```
 */
export function toMistralId(id: string): string {
  return MISTRAL_ID.test(id) ? id : hash9(`mistral|${id}`);
}

/**
 * A synthesized id for a tool call the server sent without one.
 *
 * @param responseId The response id (may be empty).
 * @param seed A per-request value that differs between turns (the history length).
 * @param position The call's position in the message.
 * @returns `call_` followed by 9 base-62 characters.
 */
export function syntheticCallId(responseId: string, seed: string, position: number): string {
  return `call_${hash9(`${responseId}|${seed}|${position}`)}`;
}
