/**
 * What every command gets: the I/O edge, colors, the project directory and a lazily
 * loaded configuration.
 *
 * @module
 */
import type { Config } from "../config/load.ts";
import { resolvePath } from "../_path.ts";
import { UsageError } from "../errors.ts";
import type { Io } from "./io.ts";
import { makeStyle, type Style, wantColor } from "./style.ts";

/** Global options, as commander parses them. */
export interface GlobalOptions {
  cwd?: string;
  config?: string;
  color?: boolean;
}

/** The context of one command invocation. */
export interface CommandContext {
  io: Io;
  /** Colors for standard output. */
  out: Style;
  /** Colors for standard error. */
  err: Style;
  /** The project directory, absolute. */
  projectDir: string;
  /** Loads `harness.jsonc` once (throws `ConfigError`, exit 2). */
  config(): Promise<Config>;
  /** Sets the exit code of the process. */
  setExitCode(code: number): void;
}

/**
 * Builds the context from the global options.
 *
 * @throws {UsageError} When `-C` names a directory that does not exist.
 */
export async function makeContext(
  io: Io,
  globals: GlobalOptions,
  setExitCode: (code: number) => void,
): Promise<CommandContext> {
  const projectDir = globals.cwd !== undefined ? resolvePath(io.cwd(), globals.cwd) : io.cwd();
  try {
    if (!(await Deno.stat(projectDir)).isDirectory) throw new Error("not a directory");
  } catch {
    throw new UsageError(
      `Cannot use "${projectDir}" as the project directory: it is not a directory`,
      {
        hint: "pass an existing directory to -C/--cwd",
      },
    );
  }
  const noColor = io.getEnv("NO_COLOR");
  const flag = globals.color !== false;
  let loaded: Promise<Config> | undefined;
  return {
    io,
    out: makeStyle(wantColor(io.isTerminal.stdout, flag, noColor)),
    err: makeStyle(wantColor(io.isTerminal.stderr, flag, noColor)),
    projectDir,
    config() {
      loaded ??= import("../config/load.ts").then(({ loadConfig }) =>
        loadConfig({
          projectDir,
          ...(globals.config !== undefined
            ? { configFile: resolvePath(io.cwd(), globals.config) }
            : {}),
          getEnv: io.getEnv,
        })
      );
      return loaded;
    },
    setExitCode,
  };
}
