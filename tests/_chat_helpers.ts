/**
 * Shared helpers of the chat provider tests: run a test against the fake server and
 * validate every request body the provider sent against `chat_request.schema.json`.
 *
 * @module
 */

import { chatRequestErrors } from "./chat_request_schema.ts";
import { type FakeOpenAI, startFakeOpenAI, type Step } from "./fake_openai.ts";
import type { ModelEvent, ModelPort, ModelRequest } from "../lib/chat/port.ts";

/**
 * Starts the fake server, runs `fn`, then checks every request body against the schema
 * and closes the server (which throws on unexpected requests).
 *
 * @param script The fake server's steps.
 * @param fn The test body.
 * @throws {Error} When a request body does not satisfy the schema.
 */
export async function withFake(
  script: Step[],
  fn: (fake: FakeOpenAI) => Promise<void>,
): Promise<void> {
  const fake = startFakeOpenAI(script);
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
  fake.requests.forEach((r, i) => {
    const errors = chatRequestErrors(r.body);
    if (errors.length > 0) {
      throw new Error(`Request ${i + 1} does not satisfy chat_request.schema.json: ${errors}`);
    }
  });
}

/**
 * Collects every event of one call.
 *
 * @param port The model port.
 * @param req The request (a one-message history and no tools by default).
 * @param signal An abort signal.
 * @returns The events in order.
 */
export async function collect(
  port: ModelPort,
  req: Partial<ModelRequest> = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  const full = { messages: [{ role: "user" as const, content: "hi" }], tools: [], ...req };
  for await (const e of port.stream(full, { signal })) events.push(e);
  return events;
}

/**
 * Collects events until the stream ends or throws.
 *
 * @param port The model port.
 * @param req The request (see {@link collect}).
 * @param signal An abort signal.
 * @returns The events before the end, and the error thrown (undefined when none).
 */
export async function collectUntilError(
  port: ModelPort,
  req: Partial<ModelRequest> = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<{ events: ModelEvent[]; error: unknown }> {
  const events: ModelEvent[] = [];
  const full = { messages: [{ role: "user" as const, content: "hi" }], tools: [], ...req };
  try {
    for await (const e of port.stream(full, { signal })) events.push(e);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

/** The `completed` event of a list, or a thrown error. */
export function completed(events: ModelEvent[]): Extract<ModelEvent, { type: "completed" }> {
  const last = events.at(-1);
  if (last?.type !== "completed") throw new Error(`no completed event: ${JSON.stringify(events)}`);
  return last;
}

/** A sleep that records the delays asked for and returns at once (abort still rejects). */
export function fakeSleep(): {
  delays: number[];
  sleep: (ms: number, s: AbortSignal) => Promise<void>;
} {
  const delays: number[] = [];
  return {
    delays,
    sleep: (ms, signal) => {
      delays.push(ms);
      return signal.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    },
  };
}

/** A function tool declaration for requests. */
export function fnTool(name: string): unknown {
  return {
    type: "function",
    function: { name, description: `The ${name} tool`, parameters: { type: "object" } },
  };
}
