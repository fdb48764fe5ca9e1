/**
 * One HTTP attempt of the provider: its abort controller (linked to the caller's signal),
 * the timer for time-to-first-byte and idle time between chunks, and the mapping of
 * thrown values to `ProviderError`s.
 *
 * @module
 */

import { after } from "../_timers.ts";
import { ProviderError } from "./errors.ts";

/** One HTTP attempt: its abort controller, idle timer and error mapping. */
export class Attempt {
  /** The request URL, for messages. */
  readonly url: string;
  /** True once a body byte was read: from then on nothing is retried. */
  consumed = false;
  #ctl = new AbortController();
  #user: AbortSignal;
  #timeoutMs: number;
  /** When the attempt times out unless a chunk arrives first (ms, `performance.now()`). */
  #deadline = 0;
  #cancelTimer = () => {};
  #timedOut = false;
  #onAbort = () => this.#ctl.abort(this.#user.reason);

  /**
   * @param user The caller's signal.
   * @param timeoutMs Time to first byte and longest silence between chunks.
   * @param url The request URL.
   */
  constructor(user: AbortSignal, timeoutMs: number, url: string) {
    this.#user = user;
    this.#timeoutMs = timeoutMs;
    this.url = url;
    user.addEventListener("abort", this.#onAbort, { once: true });
    this.#arm();
  }

  /** The signal to give fetch: aborts on the caller's abort or a timeout. */
  get signal(): AbortSignal {
    return this.#ctl.signal;
  }

  /**
   * Moves the deadline to `timeoutMs` from now. One timer serves many chunks: when it
   * fires early (a chunk came meanwhile) it re-arms for what is left.
   */
  #arm(): void {
    const first = this.#deadline === 0;
    this.#deadline = performance.now() + this.#timeoutMs;
    if (first) this.#wait(this.#timeoutMs);
  }

  #wait(ms: number): void {
    this.#cancelTimer = after(ms, () => {
      const left = this.#deadline - performance.now();
      if (left > 0) return this.#wait(left);
      this.#timedOut = true;
      this.#ctl.abort(new DOMException("request timed out", "TimeoutError"));
    });
  }

  /** Awaits `p`, rejecting as soon as the attempt aborts (user abort or timeout). */
  guard<T>(p: Promise<T>): Promise<T> {
    const signal = this.#ctl.signal;
    if (signal.aborted) {
      p.catch(() => {}); // it will reject too; nobody else awaits it
      return Promise.reject(signal.reason);
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  /** Reads one piece; undefined at the end. Resets the idle timer. */
  async read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array | undefined> {
    const r = await this.guard(reader.read());
    this.#arm();
    if (r.done) return undefined;
    if (r.value.byteLength > 0) this.consumed = true;
    return r.value;
  }

  /** Reads a whole (error or JSON) body under the same timer. */
  async text(res: Response): Promise<string> {
    const reader = res.body?.getReader();
    if (reader === undefined) return "";
    const decoder = new TextDecoder();
    let text = "";
    try {
      for (;;) {
        const r = await this.guard(reader.read());
        this.#arm();
        if (r.done) break;
        text += decoder.decode(r.value, { stream: true });
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
    return text + decoder.decode();
  }

  /** Maps a thrown value to a ProviderError (errors that are not transport failures pass). */
  classify(e: unknown): ProviderError {
    if (e instanceof ProviderError) return e;
    if (this.#user.aborted) return aborted(this.url, this.#user);
    const err = e as Error;
    if (this.#timedOut || err?.name === "TimeoutError") {
      return new ProviderError(
        "timeout",
        `Request to "${this.url}" timed out: no data for ${this.#timeoutMs} ms`,
        { hint: "the server is slow or stuck: raise requestTimeoutMs or check the server" },
      );
    }
    if (e instanceof TypeError) {
      const kind = this.consumed ? "stream-cut" : "network";
      const message = this.consumed
        ? `The stream from "${this.url}" broke off: ${err.message}`
        : `Cannot reach "${this.url}": ${err.message}`;
      const hint = this.consumed
        ? "the connection dropped mid-response: check the server or proxy and try again"
        : "check that the server is running and that baseUrl is right";
      return new ProviderError(kind, message, { hint, cause: e });
    }
    throw e;
  }

  /** The error for an error object inside an HTTP 200 response. */
  streamError(said: string): ProviderError {
    return new ProviderError(
      "stream-error",
      `The server at "${this.url}" reported an error inside an HTTP 200 response: ${said}`,
      { hint: "the upstream model failed mid-response: try again or pick another model" },
    );
  }

  /** The error for a 200 response that is not a chat completion. */
  badResponse(detail: string): ProviderError {
    return new ProviderError(
      "bad-response",
      `The response from "${this.url}" is not a chat completion: ${detail}`,
      { hint: 'check that baseUrl points at an OpenAI-compatible API (usually ending in "/v1")' },
    );
  }

  /** Stops the timer and unlinks the caller's signal. */
  dispose(): void {
    this.#cancelTimer();
    this.#user.removeEventListener("abort", this.#onAbort);
  }
}

/** The error for a call the caller aborted (exit code 130). */
export function aborted(url: string, signal: AbortSignal): ProviderError {
  return new ProviderError("aborted", `Request to "${url}" was aborted`, { cause: signal.reason });
}
