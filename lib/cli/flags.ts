/**
 * The options of `harness`, `harness run` and `harness chat` as data. commander builds
 * its options from these tables (`program.ts`), and the fast path of `harness run`
 * (`fast_argv.ts`) reads the same tables, so the two can never disagree on a flag's
 * name, value or choices. This module imports nothing: it is on the startup path.
 *
 * @module
 */

/** One option. */
export interface FlagSpec {
  /** The long name without dashes: `base-url`. */
  long: string;
  /** The one-letter short name, if any: `C`. */
  short?: string;
  /** The value's placeholder (`<url>`); absent for a boolean flag. */
  value?: string;
  /** A negating boolean flag (`--no-color` sets `color` to false). */
  negate?: boolean;
  /** The only values accepted. */
  choices?: readonly string[];
  /** The help text. */
  description: string;
}

/** The key commander stores an option under: `base-url` → `baseUrl`, `no-color` → `color`. */
export function flagKey(spec: FlagSpec): string {
  const name = spec.negate ? spec.long.replace(/^no-/, "") : spec.long;
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The flags string commander takes: `-C, --cwd <dir>`. */
export function flagSyntax(spec: FlagSpec): string {
  const short = spec.short ? `-${spec.short}, ` : "";
  return `${short}--${spec.long}${spec.value ? ` <${spec.value}>` : ""}`;
}

/** Options of the program itself, accepted before or after the command. */
export const GLOBAL_FLAGS: readonly FlagSpec[] = [
  {
    long: "cwd",
    short: "C",
    value: "dir",
    description: "the project directory (default: where you run harness)",
  },
  {
    long: "config",
    value: "file",
    description: "use this harness.jsonc instead of searching for one",
  },
  { long: "no-color", negate: true, description: "never use colors (also: NO_COLOR=1)" },
];

/** The approval modes, as `--approval` accepts them. */
export const APPROVAL_CHOICES: readonly string[] = [
  "ask",
  "auto-edit",
  "yolo",
  "plan",
  "never-ask",
];

/** Options of both `run` and `chat`. */
export const SESSION_FLAGS: readonly FlagSpec[] = [
  { long: "model", value: "name", description: "model name (also HARNESS_MODEL, provider.model)" },
  {
    long: "base-url",
    value: "url",
    description: "OpenAI-compatible base URL (also OPENAI_BASE_URL)",
  },
  {
    long: "api-key-env",
    value: "name",
    description: "variable holding the API key (default OPENAI_API_KEY)",
  },
  { long: "system", value: "text", description: "system prompt, or @FILE" },
  { long: "max-turns", value: "n", description: "maximum model calls (default 20)" },
  {
    long: "timeout",
    value: "duration",
    description: "wall-clock limit, e.g. 90s, 10m (exit 4)",
  },
  { long: "approval", value: "mode", choices: APPROVAL_CHOICES, description: "approval mode" },
  {
    long: "on-denied",
    value: "what",
    choices: ["stop", "continue"],
    description: "after a denied call: stop (exit 5) or continue",
  },
  {
    long: "transcript",
    value: "file",
    description: "append every event as JSONL, as the run goes",
  },
  { long: "record", value: "file", description: "record every provider exchange (JSONL)" },
  {
    long: "replay",
    value: "file",
    description: "serve provider exchanges from a recording (offline)",
  },
];

/** Options of `run` only. */
export const RUN_ONLY_FLAGS: readonly FlagSpec[] = [
  { long: "json", description: "one JSON event per line on stdout (the machine interface for CI)" },
  {
    long: "output-last-message",
    value: "file",
    description: "write the final answer to a file",
  },
];
