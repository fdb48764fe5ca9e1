/**
 * The contract of a built-in tool, and the small helpers every tool module shares:
 * result constructors, defensive argument and option readers.
 *
 * Built-in tools run inside a Deno Worker whose permissions are exactly what
 * {@linkcode BuiltinTool.permissions} returns. They never print, never exit, never
 * import dynamically, and turn every failure the model can act on into a result with
 * `isError: true` instead of an exception.
 *
 * @module
 */

/** What a built-in tool receives besides its arguments. */
export interface BuiltinContext {
  /** Absolute, real path of the project directory. */
  projectDir: string;
  /** The tool's options from `harness.jsonc` (`tools.builtins.<name>`), see `optionsSchema`. */
  options: Record<string, unknown>;
  /** Cancels the call. */
  signal?: AbortSignal;
}

/** What a built-in tool returns: text for the model, flagged when the call failed. */
export interface BuiltinResult {
  /** Text for the model. */
  content: string;
  /** The call failed; `content` says why and how to fix it. */
  isError?: boolean;
}

/** The Deno permissions a built-in tool needs, paths absolute. A missing kind means none. */
export interface BuiltinPermissions {
  /** Absolute paths that may be read. */
  read?: string[];
  /** Absolute paths that may be written. */
  write?: string[];
  /** Hosts, `host` or `host:port`. */
  net?: string[];
  /** Environment variable names. */
  env?: string[];
  /** Programs that may be started. */
  run?: string[];
}

/** One built-in tool: data plus `execute`. */
export interface BuiltinTool {
  /** The name the model sees. */
  name: string;
  /** The description the model sees. */
  description: string;
  /** The JSON Schema the model sees and arguments are validated with. */
  parameters: {
    type: "object";
    properties: Record<string, unknown>;
    required: string[];
    additionalProperties: false;
  };
  /** Default approval: read tools never, write/edit destructive, shell and web_fetch always. */
  approval: "never" | "always" | "destructive";
  /** Read-only tools may run in parallel with each other. */
  readOnly: boolean;
  /** JSON Schema of the tool's options in `harness.jsonc`. */
  optionsSchema: Record<string, unknown>;
  /**
   * The Deno permissions this tool needs for these options, used to build its Worker.
   *
   * @param ctx The project directory and the tool's options.
   * @returns The permission scope, paths absolute.
   */
  permissions(
    ctx: { projectDir: string; options: Record<string, unknown> },
  ): BuiltinPermissions;
  /**
   * Runs one call. Never throws for a failure the model can act on.
   *
   * @param args Arguments, already validated against `parameters`.
   * @param ctx Project directory, options, abort signal.
   * @returns The result for the model.
   */
  execute(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult>;
}

/** The options schema of a tool that has no options. */
export const NO_OPTIONS_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: "object",
  properties: {},
  additionalProperties: false,
});

/**
 * A successful result.
 *
 * @param content Text for the model.
 * @returns The result.
 */
export function ok(content: string): BuiltinResult {
  return { content };
}

/**
 * A failed result the model can act on.
 *
 * @param content What went wrong and how to fix it.
 * @returns The result, flagged as an error.
 */
export function fail(content: string): BuiltinResult {
  return { content, isError: true };
}

/** The message of any thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Reads a string argument.
 *
 * @param args The call's arguments.
 * @param key The argument name.
 * @returns The string, or a failed result naming the argument.
 */
export function stringArg(args: Record<string, unknown>, key: string): string | BuiltinResult {
  const v = args[key];
  return typeof v === "string" ? v : fail(`Argument "${key}" must be a string: pass text`);
}

/**
 * Reads an optional string argument.
 *
 * @returns The string, `undefined` when absent, or a failed result when of another type.
 */
export function optionalStringArg(
  args: Record<string, unknown>,
  key: string,
): string | undefined | BuiltinResult {
  return args[key] === undefined || args[key] === null ? undefined : stringArg(args, key);
}

/**
 * Reads an integer argument.
 *
 * @returns The integer, or a failed result naming the argument.
 */
export function integerArg(args: Record<string, unknown>, key: string): number | BuiltinResult {
  const v = args[key];
  return typeof v === "number" && Number.isSafeInteger(v)
    ? v
    : fail(`Argument "${key}" must be an integer: pass a whole number such as 1`);
}

/** Whether a helper returned a failed result instead of a value. */
export function isResult(v: unknown): v is BuiltinResult {
  return typeof v === "object" && v !== null && "content" in v &&
    typeof (v as BuiltinResult).content === "string";
}

/** A list of strings from an option, or `undefined` when absent or of another shape. */
export function stringListOption(
  options: Record<string, unknown>,
  key: string,
): string[] | undefined {
  const v = options[key];
  return Array.isArray(v) && v.every((s) => typeof s === "string") ? [...v] : undefined;
}

/** A positive integer option, or `fallback` when absent or invalid. */
export function positiveIntOption(
  options: Record<string, unknown>,
  key: string,
  fallback: number,
): number {
  const v = options[key];
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : fallback;
}

/** One UTF-8 encoder for all tools. */
export const UTF8 = new TextEncoder();
