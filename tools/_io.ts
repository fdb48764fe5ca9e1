/**
 * File reading shared by the built-in file tools: bounded reads, binary detection,
 * line splitting and the wording of common I/O failures.
 *
 * @module
 */
import { errorMessage } from "./_types.ts";

/** How many leading bytes are inspected for a NUL byte to call a file binary. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

/** Thrown for a path that is neither a regular file nor a directory. */
export class NotRegularFile extends Error {
  /** The error name. */
  override name = "NotRegularFile";
}

/** A file read up to a byte budget. */
export interface CappedRead {
  /** The bytes read, at most the budget. */
  bytes: Uint8Array;
  /** The file's full size in bytes. */
  size: number;
  /** Whether the file is longer than what was read. */
  truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a regular file, without loading the rest.
 *
 * @param path Absolute path.
 * @param maxBytes The budget in bytes.
 * @returns The bytes, the full size, and whether the file was cut.
 * @throws {Deno.errors.IsADirectory} For a directory.
 * @throws {NotRegularFile} For a device, FIFO or socket (opening a FIFO would block).
 * @throws {Deno.errors.NotFound} and other `Deno.errors` from opening the file.
 */
export async function readCapped(path: string, maxBytes: number): Promise<CappedRead> {
  const info = await Deno.stat(path);
  if (info.isDirectory) throw new Deno.errors.IsADirectory(`"${path}" is a directory`);
  if (!info.isFile) throw new NotRegularFile(`"${path}" is not a regular file`);
  using file = await Deno.open(path, { read: true });
  const { size } = await file.stat();
  const want = Math.min(size, maxBytes);
  const buf = new Uint8Array(want);
  let got = 0;
  while (got < want) {
    const n = await file.read(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  return { bytes: buf.subarray(0, got), size, truncated: size > got };
}

/** Whether the bytes look like a binary file: a NUL byte among the first bytes. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/**
 * Drops an incomplete UTF-8 sequence at the end of `bytes` (left by a cut at a byte budget).
 *
 * @param bytes UTF-8 bytes, possibly cut in the middle of a character.
 * @returns The bytes up to the last complete character.
 */
export function wholeChars(bytes: Uint8Array): Uint8Array {
  let i = bytes.length;
  let back = 0;
  while (i > 0 && back < 3 && (bytes[i - 1] & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return bytes;
  const lead = bytes[i - 1];
  const len = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return len > back + 1 ? bytes.subarray(0, i - 1) : bytes;
}

/** Decodes UTF-8 leniently (invalid bytes become U+FFFD). */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}

/**
 * Splits text into lines. A trailing newline ends the last line rather than starting an
 * empty one, so `"a\nb\n"` has two lines and `""` has none. `\r` is kept.
 *
 * @param text The text.
 * @returns The lines.
 */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Words a failed file operation so the model can act on it.
 *
 * @param action What was attempted, e.g. `read`.
 * @param relative The path as the model knows it.
 * @param err What the operation threw.
 * @returns The message.
 */
export function ioFailure(action: string, relative: string, err: unknown): string {
  if (err instanceof Deno.errors.NotFound) {
    return `Cannot ${action} "${relative}": it does not exist: check the name with list_dir`;
  }
  if (err instanceof Deno.errors.IsADirectory) {
    return `Cannot ${action} "${relative}": it is a directory: use list_dir, or name a file`;
  }
  if (err instanceof NotRegularFile) {
    return `Cannot ${action} "${relative}": it is not a regular file (a device, FIFO or socket)`;
  }
  if (err instanceof Deno.errors.NotCapable) {
    return `Cannot ${action} "${relative}": outside the tool's permissions: use a path inside the project`;
  }
  if (err instanceof Deno.errors.PermissionDenied) {
    return `Cannot ${action} "${relative}": permission denied by the file system`;
  }
  return `Cannot ${action} "${relative}": ${errorMessage(err)}`;
}
