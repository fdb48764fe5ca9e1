/**
 * Timers that keep Deno's Node-compatibility layer asleep.
 *
 * In Deno 2.9 the global `setTimeout` is Node's: its first use loads `node:timers` and
 * what that pulls in (≈10–15 ms on these machines, once on the main thread and again in
 * every Worker). `AbortSignal.timeout` runs on Deno's own web timers, and it keeps the
 * event loop alive only while the signal has an abort listener: exactly the semantics of
 * a timer that can be cancelled.
 *
 * The cost: Deno cannot clear the timer behind `AbortSignal.timeout`, so a cancelled
 * timer stays queued, unreferenced, until its deadline (≈1 KB each, measured with 100 000
 * cancelled 300 s timers). What is queued is bounded by the timers started within their
 * own delay: a tool call's 300 s timeout leaves at most one entry per call of the last
 * five minutes.
 *
 * @module
 */

/** The longest delay a timer takes in one go (a longer one is armed in steps). */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Calls `fn` once after `ms` milliseconds, unless the returned function is called first.
 * A cancelled timer no longer keeps the process alive. A negative or NaN delay means 0.
 *
 * @example
 * ```ts
 * import { after } from "./_timers.ts";
 * const cancel = after(60_000, () => console.log("too slow"));
 * cancel();
 * ```
 */
export function after(ms: number, fn: () => void): () => void {
  let detach = () => {};
  const arm = (left: number) => {
    const signal = AbortSignal.timeout(Math.min(left, MAX_DELAY_MS));
    const fire = () => left > MAX_DELAY_MS ? arm(left - MAX_DELAY_MS) : fn();
    signal.addEventListener("abort", fire, { once: true });
    detach = () => signal.removeEventListener("abort", fire);
  };
  arm(ms > 0 ? ms : 0);
  return () => detach();
}

/**
 * Resolves after `ms` milliseconds; rejects with the signal's reason as soon as `signal`
 * aborts (and then no timer is left behind).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    const cancel = after(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
