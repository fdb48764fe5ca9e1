/**
 * The transcript: one JSON object per line, appended and written through as the run
 * goes, so a crash or Ctrl-C loses nothing that happened before it.
 *
 * @module
 */

/** An open transcript. */
export interface Transcript {
  /** Appends one record (with a timestamp) and writes it through. */
  write(record: Record<string, unknown>): void;
  close(): void;
}

/**
 * Opens (creates or appends to) a transcript file.
 *
 * @param path The JSONL file.
 * @param now The clock (injected in tests).
 * @throws {Deno.errors.NotFound} When the directory does not exist.
 */
export function openTranscript(path: string, now: () => Date = () => new Date()): Transcript {
  const file = Deno.openSync(path, { append: true, create: true });
  const encoder = new TextEncoder();
  let open = true;
  return {
    write(record) {
      if (!open) return;
      let data = encoder.encode(JSON.stringify({ ts: now().toISOString(), ...record }) + "\n");
      while (data.length > 0) data = data.subarray(file.writeSync(data));
    },
    close() {
      if (!open) return;
      open = false;
      file.close();
    },
  };
}

/** A transcript that drops everything (no `--transcript`). */
export const noTranscript: Transcript = { write() {}, close() {} };
