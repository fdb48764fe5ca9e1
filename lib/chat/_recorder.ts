/**
 * The HTTP-layer recorder behind `createRecorder()` (re-exported by `replay.ts`, and used
 * by the provider's `recordTo` setting). See `replay.ts` for the file format.
 *
 * @module
 */

/** One recorded HTTP exchange. */
export interface Exchange {
  /** 1-based position in the recording. */
  n: number;
  /** What was sent (headers are never recorded). */
  request: { url: string; body: unknown };
  /** What came back; `cut` when the body broke off (the error that ended it). */
  response?: {
    status: number;
    headers: Record<string, string>;
    body: string;
    cut?: { name: string; message: string };
  };
  /** The request failed before any response (network error, timeout). */
  error?: { name: string; message: string };
}

const KEPT_HEADERS = ["content-type", "retry-after", "retry-after-ms"];

/**
 * Wraps a fetch function so every exchange is appended to `file` as JSONL. The file is
 * truncated by the first exchange, so one recorder makes one recording.
 *
 * @param inner The real fetch.
 * @param file The JSONL file to write.
 * @returns A fetch function for {@link ProviderDeps.fetch}.
 */
export function createRecorder(inner: typeof fetch, file: string): typeof fetch {
  let n = 0;
  let writes = Promise.resolve();
  const append = (ex: Exchange): Promise<void> => {
    const first = ex.n === 1;
    writes = writes.then(() =>
      Deno.writeTextFile(file, `${JSON.stringify(ex)}\n`, { append: !first })
    );
    return writes;
  };
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const exchange = ++n;
    const url = input instanceof Request ? input.url : String(input);
    const request = { url, body: parseJson(typeof init?.body === "string" ? init.body : "") };
    let res: Response;
    try {
      res = await inner(input, init);
    } catch (e) {
      await append({ n: exchange, request, error: errorRecord(e) });
      throw e;
    }
    const headers: Record<string, string> = {};
    for (const h of KEPT_HEADERS) {
      const v = res.headers.get(h);
      if (v !== null) headers[h] = v;
    }
    const reader = res.body?.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let written: Promise<void> | undefined;
    const finish = (cut?: { name: string; message: string }) => {
      written ??= append({
        n: exchange,
        request,
        response: {
          status: res.status,
          headers,
          body: text + decoder.decode(),
          ...(cut ? { cut } : {}),
        },
      });
      return written;
    };
    if (reader === undefined) {
      await finish();
      return res;
    }
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const r = await reader.read();
          if (r.done) {
            await finish();
            controller.close();
            return;
          }
          text += decoder.decode(r.value, { stream: true });
          controller.enqueue(r.value);
        } catch (e) {
          await finish(errorRecord(e));
          controller.error(e);
        }
      },
      async cancel(reason) {
        await finish();
        await reader.cancel(reason).catch(() => {});
      },
    }, { highWaterMark: 0 });
    return new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

/** Parses JSON, or returns the text when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorRecord(e: unknown): { name: string; message: string } {
  const err = e as Error;
  return { name: err?.name ?? "Error", message: err?.message ?? String(e) };
}
