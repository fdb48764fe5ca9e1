/**
 * Types shared by the three calling conventions (Octomind scripts, Nanocoder
 * templates, agentcli argv tools).
 *
 * A convention is two pure functions: `prepare*` turns a tool call into a
 * {@linkcode ProcessSpecLike} (exactly what the original gives the tool process:
 * argv, stdin bytes, environment, cwd), and `render*` turns the
 * {@linkcode ProcessResultLike} into what the model sees. The process layer
 * (`lib/exec/process.ts`) runs the spec in between; the shapes here are structural
 * copies of its `ProcessSpec`/`ProcessResult`, so the two are interchangeable
 * without this folder importing the runner.
 *
 * @module
 */

/** What to run: structurally identical to `ProcessSpec` in `lib/exec/process.ts`. */
export interface ProcessSpecLike {
  /** An absolute path, or a name resolved through `env.PATH`. */
  program: string;
  /** The arguments after the program (argv[1…]). */
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** The complete environment of the child (it inherits nothing else). */
  env: Record<string, string>;
  /** Bytes written to stdin and then closed, or `"null"` for /dev/null. */
  stdin: Uint8Array | "null";
  /** Wall-clock limit; the process group is killed when it passes. */
  timeoutMs: number;
  /** Cap per output stream, in bytes. */
  maxOutputBytes: number;
}

/** Why a process could not be started (the process layer classifies it). */
export interface SpawnErrorLike {
  /** The class of failure, which each convention words as its original does. */
  kind: "not-found" | "permission-denied" | "not-capable" | "other";
  /** The process layer's own message (used for kinds no original has). */
  message: string;
}

/**
 * What a process did: the fields of `ProcessResult` in `lib/exec/process.ts` that
 * rendering reads. A `ProcessResult` is assignable to it.
 */
export interface ProcessResultLike {
  /** Lossy UTF-8 (U+FFFD for invalid bytes), with the process layer's marker when truncated. */
  stdout: string;
  /** Lossy UTF-8, like `stdout`. */
  stderr: string;
  /** Exit code; ignored when `signal` is set. */
  code: number | null;
  /** The signal that ended the process, if one did. */
  signal: Deno.Signal | null;
  /** The process was killed because its timeout passed. */
  timedOut: boolean;
  /** Output was cut by the process layer (its marker is in the text). */
  truncated: boolean;
  /** How long the call took. */
  durationMs: number;
  /** Set when the process could not be started. */
  spawnError?: SpawnErrorLike;
  /** Set by the process layer when the call was cancelled. */
  aborted?: boolean;
  /** Set by the process layer. */
  notes?: string[];
}

/** The facts a convention needs about the call site. */
export interface CallContext {
  /**
   * Absolute project directory. It is the cwd of Octomind scripts (their session
   * workdir) and of agentcli tools (agentcli itself leaves the cwd alone, so the
   * original runs tools wherever it was started; harness runs them in the project
   * directory), and the base that a Nanocoder `cwd` is resolved against.
   */
  projectDir: string;
  /**
   * The environment this tool may see, already filtered by its permission scope.
   * It stands in for the originals' inherited process environment.
   */
  env: Record<string, string>;
  /** The timeout this call runs with. */
  timeoutMs: number;
  /** Cap per output stream, in bytes. */
  maxOutputBytes: number;
  /** Whether `/bin/bash` exists. @default probed with `Deno.statSync` */
  shells?: { bash: boolean };
  /**
   * Whether a path exists (a file or a directory, following symlinks), as Node's
   * `existsSync`: used for Nanocoder's silent cwd fallback.
   * @default probed with `Deno.statSync`, any error meaning "no"
   */
  exists?: (path: string) => boolean;
}

/** One tool call. */
export interface CallInput {
  /**
   * The arguments as the model sent them, parsed, with no defaults applied (the
   * originals never apply schema defaults).
   */
  args: Record<string, unknown>;
  /**
   * The model's argument text, when known. agentcli writes it to stdin verbatim and
   * Octomind needs it to print numbers the way serde_json does (`2.0` stays `2.0`).
   */
  rawArguments?: string;
}

/** A call ready to run, and what `--dry-run` shows of it. */
export interface Prepared {
  /** What to hand to the process layer. */
  spec: ProcessSpecLike;
  /** Nanocoder only: the rendered script body. */
  script?: string;
  /**
   * What a dry run may print. Environment values are left out on purpose: only names
   * are shown, and `harness tools call --dry-run` masks secret-looking ones.
   */
  display: { argv: string[]; stdin: string; envNames: string[]; cwd: string };
}

/** What the model sees of a finished call. */
export interface RenderedResult {
  /** The tool message content. */
  content: string;
  /** Whether the original marks the result as an error. */
  isError: boolean;
}

/**
 * What rendering may need to know about how the call ran; by default it is read
 * from the tool definition. Pass the prepared spec so that messages name the
 * program and the timeout that were really used.
 */
export type RenderSpec = Pick<ProcessSpecLike, "program" | "timeoutMs">;
