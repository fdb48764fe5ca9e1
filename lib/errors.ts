/**
 * Typed errors that carry their exit code, and the exit code table (the CI contract).
 *
 * Library code throws these; only `lib/cli` prints them and exits.
 *
 * @module
 */

/** Exit codes of the `harness` command. */
export const ExitCode = {
  /** Success: the run finished, or validation found no errors. */
  Ok: 0,
  /** The work failed: validation errors, a tool failure that ended the run, a bad final answer. */
  Failed: 1,
  /** Usage or configuration error. */
  Usage: 2,
  /** Provider or transport error after retries. */
  Provider: 3,
  /** Budget exhausted: turns, tokens, wall-clock time. */
  Budget: 4,
  /** Denied: a call needed approval or a permission a non-interactive run may not grant. */
  Denied: 5,
  /** Interrupted (SIGINT). */
  Interrupted: 130,
} as const;

/** One of the documented exit codes. */
export type ExitCodeValue = typeof ExitCode[keyof typeof ExitCode];

/** An error the CLI reports with a message (no stack trace) and a given exit code. */
export class HarnessError extends Error {
  /** The exit code the CLI uses for this error. */
  readonly exitCode: ExitCodeValue;
  /** A one-line fix shown after the message, when there is one. */
  readonly hint?: string;

  /**
   * @param message What went wrong, naming the file, value and fix.
   * @param exitCode The exit code for the CLI.
   * @param options `hint`: how to fix it; `cause`: the underlying error.
   */
  constructor(
    message: string,
    exitCode: ExitCodeValue,
    options: { hint?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "HarnessError";
    this.exitCode = exitCode;
    if (options.hint !== undefined) this.hint = options.hint;
  }
}

/** A bad command line: unknown tool, bad JSON argument, conflicting flags (exit 2). */
export class UsageError extends HarnessError {
  /**
   * @param message What is wrong with the command line.
   * @param options `hint`: how to fix it.
   */
  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, ExitCode.Usage, options);
    this.name = "UsageError";
  }
}

/** A bad `harness.jsonc` (exit 2), located by file, line and column. */
export class ConfigError extends HarnessError {
  /** The config file. */
  readonly file: string;
  /** 1-based line, when known. */
  readonly line?: number;
  /** 1-based column, when known. */
  readonly column?: number;

  /**
   * @param file The config file.
   * @param message What is wrong and how to fix it.
   * @param position The 1-based line and column of the offending value.
   */
  constructor(file: string, message: string, position: { line?: number; column?: number } = {}) {
    const where = position.line !== undefined
      ? `${file}:${position.line}:${position.column ?? 1}`
      : file;
    super(`${where}: ${message}`, ExitCode.Usage);
    this.name = "ConfigError";
    this.file = file;
    if (position.line !== undefined) this.line = position.line;
    if (position.column !== undefined) this.column = position.column;
  }
}

/** A call was refused by approval policy or by permissions (exit 5). */
export class DeniedError extends HarnessError {
  /**
   * @param message Why the call was denied and how to allow it.
   * @param options `hint`: the flag or config key that grants it.
   */
  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, ExitCode.Denied, options);
    this.name = "DeniedError";
  }
}
