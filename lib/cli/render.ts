/**
 * Shows loop events to a person or a machine:
 * - `json`: one JSON event per line on stdout (the CI interface);
 * - `tty`: streamed text on stdout, tool calls, a spinner while tools run and a
 *   closing line on stderr;
 * - `plain` (no terminal): progress on stderr, the final answer on stdout.
 *
 * @module
 */
import type { LoopEvent } from "../chat/loop.ts";
import type { Io } from "./io.ts";
import type { Style } from "./style.ts";

/** How events are shown. */
export type RenderMode = "json" | "tty" | "plain";

/** Frames of the spinner. */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Longest argument value shown in a call summary. */
export const SUMMARY_VALUE_CHARS = 60;

/** A summary of call arguments: `key="value" n=3`, values cut to a readable length. */
export function summarizeArguments(text: string): string {
  let args: unknown;
  try {
    args = JSON.parse(text || "{}");
  } catch {
    return cut(text.replace(/\s+/g, " "), SUMMARY_VALUE_CHARS);
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return cut(JSON.stringify(args), SUMMARY_VALUE_CHARS);
  }
  return Object.entries(args as Record<string, unknown>)
    .map(([k, v]) => `${k}=${cut(JSON.stringify(v) ?? "null", SUMMARY_VALUE_CHARS)}`).join(" ");
}

function cut(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** A renderer of loop events. */
export class Renderer {
  #io: Io;
  #mode: RenderMode;
  #err: Style;
  #started: number;
  #spinner: ReturnType<typeof setInterval> | undefined;
  #running = new Map<string, string>();
  #midLine = false;

  /**
   * @param io Where to write.
   * @param mode How to show events.
   * @param styles Colors of stderr (stdout carries the answer, uncolored).
   * @param now The clock.
   */
  constructor(
    io: Io,
    mode: RenderMode,
    styles: { err: Style },
    private now: () => number = () => performance.now(),
  ) {
    this.#io = io;
    this.#mode = mode;
    this.#err = styles.err;
    this.#started = now();
  }

  /** Shows a record that is not a loop event (run start, approvals). */
  info(record: Record<string, unknown>, text: string): void {
    if (this.#mode === "json") this.#io.out(JSON.stringify(record) + "\n");
    else this.#line(this.#err.dim(text));
  }

  /** Shows one event. */
  event(e: LoopEvent): void {
    if (this.#mode === "json") {
      this.#io.out(JSON.stringify(jsonEvent(e)) + "\n");
      return;
    }
    const err = this.#err;
    switch (e.type) {
      case "text_delta":
        if (this.#mode === "tty") {
          this.#io.out(e.text);
          this.#midLine = !e.text.endsWith("\n");
        }
        break;
      case "reasoning_delta":
        break;
      case "retry":
        this.#line(
          err.dim(`retrying in ${Math.round(e.delayMs)} ms (attempt ${e.attempt}): ${e.reason}`),
        );
        break;
      case "warning":
        this.#line(`${err.yellow("warning")}: ${e.message}`);
        break;
      case "native_output":
        if (e.annotations !== undefined) {
          this.#line(err.cyan(`provider annotations: ${cut(JSON.stringify(e.annotations), 400)}`));
        }
        if (e.parts) {
          this.#line(err.cyan(`provider content parts: ${cut(JSON.stringify(e.parts), 400)}`));
        }
        break;
      case "tool_call":
        this.#line(
          `${err.cyan("▸")} ${err.bold(e.name)} ${err.dim(summarizeArguments(e.arguments))}`,
        );
        this.#running.set(e.id, e.name);
        this.#startSpinner();
        break;
      case "tool_result": {
        this.#running.delete(e.id);
        if (this.#running.size === 0) this.#stopSpinner();
        const r = e.result;
        const mark = r.ok ? err.green("✓") : err.red("✗");
        const what = r.denied
          ? `denied: ${r.denied.reason}`
          : r.timedOut
          ? "timed out"
          : r.ok
          ? ""
          : (r.failure ?? "failed");
        this.#line(
          `${mark} ${e.name} ${err.dim(`${r.durationMs} ms`)}${
            what ? ` ${r.ok ? "" : err.red(what)}` : ""
          }`,
        );
        for (const w of r.warnings) this.#line(`${err.yellow("warning")}: ${w}`);
        break;
      }
      case "done": {
        this.#stopSpinner();
        if (this.#mode === "plain" && e.finalText) {
          this.#io.out(e.finalText.endsWith("\n") ? e.finalText : `${e.finalText}\n`);
        }
        if (this.#mode === "tty" && this.#midLine) {
          this.#io.out("\n");
          this.#midLine = false;
        }
        if (e.error) {
          this.#line(`${err.red("error")}: ${e.error.message}`);
          if (e.error.hint) this.#line(`${err.dim("hint")}: ${e.error.hint}`);
        }
        const secs = ((this.now() - this.#started) / 1000).toFixed(1);
        this.#line(
          err.dim(
            `${e.reason} · ${e.turns} turn${
              e.turns === 1 ? "" : "s"
            } · ${e.totalTokens} tokens · ${secs}s · exit ${e.exitCode}`,
          ),
        );
        break;
      }
      default:
        break;
    }
  }

  #line(text: string): void {
    this.#clearSpinner();
    if (this.#midLine && this.#mode === "tty") {
      this.#io.out("\n");
      this.#midLine = false;
    }
    this.#io.err(text + "\n");
  }

  #startSpinner(): void {
    if (this.#mode !== "tty" || this.#spinner !== undefined || !this.#io.isTerminal.stderr) return;
    let frame = 0;
    const began = this.now();
    this.#spinner = setInterval(() => {
      const names = [...this.#running.values()].join(", ");
      const secs = ((this.now() - began) / 1000).toFixed(1);
      this.#io.err(
        `\r\x1b[2K${this.#err.cyan(FRAMES[frame++ % FRAMES.length])} ${names} ${
          this.#err.dim(`${secs}s`)
        }`,
      );
    }, 100);
  }

  #clearSpinner(): void {
    if (this.#spinner !== undefined) this.#io.err("\r\x1b[2K");
  }

  #stopSpinner(): void {
    if (this.#spinner === undefined) return;
    clearInterval(this.#spinner);
    this.#clearSpinner();
    this.#spinner = undefined;
  }
}

/** The JSON form of an event (`tool_result` flattened so `jq .ok` works). */
export function jsonEvent(e: LoopEvent): Record<string, unknown> {
  if (e.type === "tool_result") {
    const { result, ...rest } = e;
    return { ...rest, ...result };
  }
  return e as unknown as Record<string, unknown>;
}
