/**
 * A scripted fake OpenAI-compatible server for tests: one step per expected request, on
 * `127.0.0.1` and a free port. It records every request, replays recorded SSE fixtures
 * (`tests/fixtures/streams/*.sse`), and can delay, hang, or cut a stream mid-way.
 *
 * A request beyond the script (or to a path other than `/v1/chat/completions`) is
 * answered with HTTP 418 (never retried) and makes `close()` throw, so a test always
 * sees it.
 *
 * @module
 */

/** A declarative step. */
export interface StepSpec {
  /** HTTP status. @default 200 */
  status?: number;
  /** Response headers. */
  headers?: Record<string, string>;
  /** Raw SSE text, or the name of a fixture in `tests/fixtures/streams/` (".sse" optional). */
  sse?: string;
  /** A JSON body. */
  json?: unknown;
  /** Wait before answering. */
  delayMs?: number;
  /** Never answer (until the server closes). */
  hang?: true;
  /** Send this many bytes of the body, then break the connection. */
  cutAfterBytes?: number;
  /** Wait between SSE events. */
  chunkDelayMs?: number;
}

/** A step: a handler, or a declarative spec. */
export type Step = ((req: Request, body: unknown) => Response | Promise<Response>) | StepSpec;

/** A recorded request. */
export interface RecordedRequest {
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: unknown;
  /** Lower-case header names. */
  headers: Record<string, string>;
}

/** A running fake server. */
export interface FakeOpenAI {
  /** Base URL, ending in "/v1". */
  url: string;
  /** Requests received, in order (unexpected ones included). */
  requests: RecordedRequest[];
  /** Descriptions of unexpected requests. */
  unexpected: string[];
  /**
   * Stops the server.
   *
   * @throws {Error} When unexpected requests arrived.
   */
  close(): Promise<void>;
}

const FIXTURES = new URL("./fixtures/streams/", import.meta.url);

/**
 * Loads an SSE fixture by name.
 *
 * @param name "ollama_missing_index" or "ollama_missing_index.sse".
 * @returns The raw file text (line endings untouched).
 */
export function loadStreamFixture(name: string): string {
  const file = name.endsWith(".sse") ? name : `${name}.sse`;
  return Deno.readTextFileSync(new URL(file, FIXTURES));
}

/**
 * Starts the fake server.
 *
 * @param script The steps, one per expected request, in order.
 * @returns The server handle.
 * @example
 * ```ts
 * import { startFakeOpenAI } from "./fake_openai.ts";
 * const fake = startFakeOpenAI([{ json: { ok: true } }]);
 * const res = await fetch(`${fake.url}/chat/completions`, { method: "POST", body: "{}" });
 * await res.json();
 * await fake.close();
 * ```
 */
export function startFakeOpenAI(script: Step[]): FakeOpenAI {
  const requests: RecordedRequest[] = [];
  const unexpected: string[] = [];
  const closing = new AbortController();
  let next = 0;

  const handler = async (req: Request): Promise<Response> => {
    const text = await req.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the text
    }
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => headers[k] = v);
    requests.push({ body, headers });
    const path = new URL(req.url).pathname;
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return refuse(`${req.method} ${path} is not POST /v1/chat/completions`);
    }
    if (next >= script.length) {
      return refuse(`request ${next + 1} arrived but the script has ${script.length} step(s)`);
    }
    const step = script[next++];
    if (typeof step === "function") return await step(req, body);
    return await answer(step, closing.signal);
  };

  const refuse = (what: string): Response => {
    unexpected.push(what);
    const message = `fake_openai: unexpected request: ${what}`;
    return Response.json({ error: { message, type: "fake_openai" } }, { status: 418 });
  };

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: closing.signal,
    onListen: () => {},
  }, handler);
  const url = `http://127.0.0.1:${server.addr.port}/v1`;

  return {
    url,
    requests,
    unexpected,
    async close() {
      closing.abort();
      await server.finished;
      if (unexpected.length > 0) {
        throw new Error(
          `fake_openai: ${unexpected.length} unexpected request(s): ${unexpected.join("; ")}`,
        );
      }
    },
  };
}

async function answer(step: StepSpec, gone: AbortSignal): Promise<Response> {
  if (step.hang) {
    await wait(Infinity, gone);
    return new Response("hung step released", { status: 500 });
  }
  if (step.delayMs) await wait(step.delayMs, gone);
  const headers = new Headers(step.headers);
  let text: string;
  let events: string[];
  if (step.sse !== undefined) {
    text = /[\n:]/.test(step.sse) ? step.sse : loadStreamFixture(step.sse);
    if (!headers.has("content-type")) headers.set("content-type", "text/event-stream");
    events = text.split(/(?<=\r?\n\r?\n)/);
  } else {
    text = step.json === undefined ? "" : JSON.stringify(step.json);
    if (step.json !== undefined && !headers.has("content-type")) {
      headers.set("content-type", "application/json");
    }
    events = [text];
  }
  const status = step.status ?? 200;
  if (step.cutAfterBytes === undefined && !step.chunkDelayMs) {
    return new Response(text, { status, headers });
  }
  const enc = new TextEncoder();
  const limit = step.cutAfterBytes ?? Infinity;
  let sent = 0;
  let i = 0;
  // Pull-based, so each piece is handed to the connection before the next is made: the
  // cut happens after the first `limit` bytes were really sent.
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (gone.aborted) return controller.close();
      if (sent >= limit) {
        // Erroring the body makes Deno drop the connection without the final chunk (Deno
        // logs this error to stderr).
        return controller.error(new Error(`fake_openai: cut after ${sent} bytes, on purpose`));
      }
      if (i >= events.length) return controller.close();
      if (i > 0 && step.chunkDelayMs) await wait(step.chunkDelayMs, gone);
      let piece = enc.encode(events[i++]);
      if (sent + piece.length > limit) piece = piece.subarray(0, limit - sent);
      sent += piece.length;
      controller.enqueue(piece);
    },
  }, { highWaterMark: 0 });
  return new Response(body, { status, headers });
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
