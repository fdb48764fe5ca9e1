/**
 * Builds the release binaries: one `deno compile` per target, then `SHA256SUMS`.
 *
 * ```
 * deno task compile [--target T]... [--out DIR]
 * ```
 *
 * Every binary gets the grant of `scripts/grant.ts` (the same flags as
 * `deno task harness`), embeds the modules listed in `INCLUDES`, and is written to
 * `DIR/harness-<version>-<target>[.exe]`, where the version is `version` in deno.json.
 * Type checking is left to `deno task check` (`--no-check`): it does not depend on the
 * target, so repeating it in each of five compiles would only cost time.
 *
 * `SHA256SUMS` lists every binary of this version found in the output directory, so
 * targets built by separate runs end up in one file.
 *
 * `deno compile` needs the Deno runtime `denort` of each target. It downloads
 * `denort-<target>.zip` from dl.deno.land, or takes the file named by the `DENORT_BIN`
 * environment variable (read by deno itself; it serves one target, so with
 * `DENORT_BIN` set exactly one `--target` must be given). When the runtime cannot be
 * had, the script says which target failed and how to get the runtime.
 *
 * Exit codes: 0 built, 1 a compile failed, 2 usage error.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ENTRY, INCLUDES, PERMISSION_FLAGS, UNSTABLE_FLAGS } from "./grant.ts";

/** The targets harness is released for, in build order. */
export const TARGETS: readonly string[] = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

/** Where the binaries go unless `--out` says otherwise. */
export const DEFAULT_OUT_DIR = "dist";

/** The name of the checksum file written beside the binaries. */
export const SUMS_FILE = "SHA256SUMS";

/** Text in deno compile's output that means it could not get the runtime `denort`. */
const RUNTIME_MARKERS = [
  "dl.deno.land",
  "error sending request",
  "dns error",
  "Could not find denort",
];

/** Step names deno prints in a cause chain that say nothing about the cause. */
const GENERIC_STEPS = ["Setting up base binary.", "Writing binary bytes"];

const USAGE = `Usage: deno task compile [--target T]... [--out DIR]

Compiles harness with deno compile and writes DIR/SHA256SUMS.

Options:
  --target T  compile for target T only (repeatable); default: all targets
  --out DIR   output directory (default: "${DEFAULT_OUT_DIR}")
  -h, --help  show this help

Targets: ${TARGETS.join(", ")}

Environment:
  DENORT_BIN  path to the denort runtime of the one target given with --target,
              used instead of downloading it from dl.deno.land`;

/** A bad command line; the script exits with code 2. */
export class UsageError extends Error {
  /** The exit code for a usage error. */
  readonly exitCode = 2;

  /**
   * Creates a usage error.
   * @param message What is wrong and how to fix it.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** What to build, from the command line. */
export interface CompileOptions {
  /** Targets to compile, in build order, without duplicates. */
  targets: string[];
  /** Output directory as given (relative to the current directory). */
  outDir: string;
  /** `--help` was given. */
  help: boolean;
}

/**
 * Parses the command line of the compile script.
 *
 * @param argv The arguments after the script name.
 * @returns The targets (all of {@link TARGETS} when none is given) and the output directory.
 * @throws {UsageError} For an unknown option, an unknown target or a missing value.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCompileArgs } from "./compile.ts";
 *
 * assert.deepEqual(parseCompileArgs(["--target", "aarch64-apple-darwin"]).targets, [
 *   "aarch64-apple-darwin",
 * ]);
 * ```
 */
export function parseCompileArgs(argv: readonly string[]): CompileOptions {
  const targets: string[] = [];
  let outDir = DEFAULT_OUT_DIR;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new UsageError(`Option "${flag}" needs a value`);
      return v;
    };
    if (flag === "--target") {
      const target = value();
      if (!TARGETS.includes(target)) {
        throw new UsageError(
          `Unknown target "${target}": use one of ${TARGETS.map((t) => `"${t}"`).join(", ")}`,
        );
      }
      if (!targets.includes(target)) targets.push(target);
    } else if (flag === "--out") {
      outDir = value();
    } else if (flag === "-h" || flag === "--help") {
      help = true;
    } else {
      throw new UsageError(`Unknown argument "${arg}": see --help`);
    }
  }
  return { targets: targets.length > 0 ? targets : [...TARGETS], outDir, help };
}

/**
 * The file name of the binary for a target.
 *
 * @param target A target triple.
 * @param version The harness version (deno.json `version`).
 * @returns `harness-<version>-<target>`, with `.exe` for Windows.
 */
export function binaryName(target: string, version: string): string {
  return `harness-${version}-${target}${target.includes("windows") ? ".exe" : ""}`;
}

/**
 * The arguments of `deno` that compile harness for one target.
 *
 * @param target A target triple (one of {@link TARGETS}).
 * @param version The harness version (deno.json `version`).
 * @param outDir The output directory.
 * @returns `compile`, the grant and unstable flags, `--include` per module, `--no-check`,
 *   `--target`, `--output`, then the entry point.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileArgs } from "./compile.ts";
 *
 * const args = compileArgs("x86_64-pc-windows-msvc", "1.0.0", "dist");
 * assert.equal(args.at(-2), "dist/harness-1.0.0-x86_64-pc-windows-msvc.exe");
 * ```
 */
export function compileArgs(target: string, version: string, outDir: string): string[] {
  return [
    "compile",
    ...PERMISSION_FLAGS,
    ...UNSTABLE_FLAGS,
    ...INCLUDES.flatMap((path) => ["--include", path]),
    "--no-check",
    "--target",
    target,
    "--output",
    joinPath(outDir, binaryName(target, version)),
    ENTRY,
  ];
}

/**
 * Tells whether a failed deno compile failed because it could not get the runtime.
 *
 * @param output The combined stdout and stderr of deno compile.
 * @returns True when deno's error names the runtime download or a missing `DENORT_BIN`.
 */
export function isRuntimeFailure(output: string): boolean {
  // Only the error itself counts: a successful download also prints "Download https://dl.deno.land/…".
  const text = stripAnsi(output);
  const error = text.slice(Math.max(0, text.search(/^error: /m)));
  return /^error: /m.test(text) && RUNTIME_MARKERS.some((marker) => error.includes(marker));
}

/**
 * The informative cause of a deno error: the first `Caused by` line that is not a
 * generic step name, without colours and without the stack backtrace.
 *
 * @param output The combined stdout and stderr of deno compile.
 * @returns The cause, or the `error:` line when there is no cause, or undefined.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorCause } from "./compile.ts";
 *
 * const output = "error: Writing x\n\nCaused by:\n    0: Setting up base binary.\n    1: dns error\n";
 * assert.equal(errorCause(output), "dns error");
 * ```
 */
export function errorCause(output: string): string | undefined {
  const lines = stripAnsi(output).split("\n").map((line) => line.trim());
  const end = lines.findIndex((line) => line.startsWith("Stack backtrace"));
  const kept = lines.slice(0, end === -1 ? lines.length : end);
  const causes = kept.filter((line) => /^\d+: /.test(line)).map((line) =>
    line.replace(/^\d+: /, "")
  );
  return causes.find((cause) => !GENERIC_STEPS.includes(cause)) ??
    kept.find((line) => line.startsWith("error:"))?.replace(/^error: /, "");
}

/**
 * The message for a compile that could not get the runtime `denort`.
 *
 * @param target The target that failed.
 * @param denoVersion The version of deno that compiles (`Deno.version.deno`).
 * @param output The combined stdout and stderr of deno compile.
 * @param denortBin The value of `DENORT_BIN`, when set.
 * @returns A message that names the target, the runtime file, and how to get it.
 */
export function runtimeFailureMessage(
  target: string,
  denoVersion: string,
  output: string,
  denortBin?: string,
): string {
  const zip = `denort-${target}.zip`;
  const why = denortBin
    ? `DENORT_BIN="${denortBin}" is not a file`
    : `deno compile could not download "${zip}" from dl.deno.land`;
  return [
    `Cannot compile harness for target "${target}": the Deno runtime "denort" is not available: ${why}`,
    ...detailLines(output),
    `deno compile needs the runtime of each target: it downloads "${zip}" from dl.deno.land,`,
    `or uses DENORT_BIN=/path/to/denort (which must match the target "${target}" and Deno "${denoVersion}")`,
    `To fix it: on a machine with network access, download`,
    `  https://dl.deno.land/release/v${denoVersion}/${zip}`,
    `  (the same file is on the Deno release page https://github.com/denoland/deno/releases/tag/v${denoVersion}),`,
    `unzip it, copy "denort" to this machine and run:`,
    `  DENORT_BIN=/path/to/denort deno task compile --target ${target}`,
  ].join("\n");
}

/**
 * Formats checksum lines the way `sha256sum` prints them.
 *
 * @param entries File names (without directory) and their SHA-256 digests in hex.
 * @returns One `<hex>  <name>` line per entry (two spaces), each ending in a newline.
 */
export function formatSha256Sums(entries: readonly { name: string; sha256: string }[]): string {
  return entries.map(({ name, sha256 }) => `${sha256}  ${name}\n`).join("");
}

/**
 * The SHA-256 digest of some bytes, in lowercase hex.
 *
 * @param bytes The data.
 * @returns 64 hex characters.
 */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function detailLines(output: string): string[] {
  const cause = errorCause(output);
  return cause === undefined ? [] : [`  deno: ${cause}`];
}

function joinPath(dir: string, name: string): string {
  return `${dir.replace(/[\\/]+$/, "") || "."}/${name}`;
}

function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MB`
    : `${(bytes / 1024).toFixed(1)} KB`;
}

async function readVersion(root: string): Promise<string> {
  const path = `${root}/deno.json`;
  let version: unknown;
  try {
    version = JSON.parse(await Deno.readTextFile(path)).version;
  } catch (error) {
    throw new Error(`Cannot read the version from "${path}": ${(error as Error).message}`);
  }
  if (typeof version !== "string" || version === "") {
    throw new Error(`Cannot read the version from "${path}": "version" is missing: add it`);
  }
  return version;
}

/** Compiles one target; returns the combined output and whether deno succeeded. */
async function compileOne(
  root: string,
  args: string[],
): Promise<{ ok: boolean; code: number; output: string }> {
  const { success, code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { ok: success, code, output: decoder.decode(stdout) + decoder.decode(stderr) };
}

/**
 * Runs the compile script.
 *
 * @param argv The arguments after the script name.
 * @returns The exit code.
 */
async function main(argv: string[]): Promise<number> {
  let options: CompileOptions;
  try {
    options = parseCompileArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}`);
    return error.exitCode;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const denortBin = Deno.env.get("DENORT_BIN") || undefined;
  if (denortBin && options.targets.length > 1) {
    console.error(
      `error: DENORT_BIN="${denortBin}" is the runtime of one target: ` +
        `pass the matching --target (one of ${TARGETS.join(", ")})`,
    );
    return 2;
  }

  const root = fileURLToPath(new URL("..", import.meta.url));
  const version = await readVersion(root);
  const outDir = isAbsolute(options.outDir) || resolve(Deno.cwd()) === resolve(root)
    ? options.outDir
    : resolve(Deno.cwd(), options.outDir);
  await Deno.mkdir(resolve(root, outDir), { recursive: true });

  for (const target of options.targets) {
    const args = compileArgs(target, version, outDir);
    const output = args[args.length - 2];
    const result = await compileOne(root, args);
    if (!result.ok) {
      if (isRuntimeFailure(result.output)) {
        console.error(
          `error: ${runtimeFailureMessage(target, Deno.version.deno, result.output, denortBin)}`,
        );
      } else {
        console.error(
          [
            `error: Cannot compile harness for target "${target}": deno compile exited with code ${result.code}`,
            ...detailLines(result.output),
            ...(denortBin
              ? [
                `DENORT_BIN="${denortBin}" must be the denort of target "${target}" and Deno "${Deno.version.deno}"`,
              ]
              : []),
          ].join("\n"),
        );
      }
      return 1;
    }
    const { size } = await Deno.stat(resolve(root, output));
    console.log(`Compiled ${output} (${formatSize(size)})`);
  }
  const sumsPath = joinPath(outDir, SUMS_FILE);
  const sums = await checksums(resolve(root, outDir), version);
  await Deno.writeTextFile(resolve(root, sumsPath), formatSha256Sums(sums));
  console.log(`Wrote ${sumsPath} (${sums.length} ${sums.length === 1 ? "binary" : "binaries"})`);
  return 0;
}

/**
 * Hashes every binary of this version in the output directory, so that binaries built
 * by separate runs (one `DENORT_BIN` per target) all end up in one `SHA256SUMS`.
 */
async function checksums(
  dir: string,
  version: string,
): Promise<{ name: string; sha256: string }[]> {
  const sums: { name: string; sha256: string }[] = [];
  for (const target of TARGETS) {
    const name = binaryName(target, version);
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = await Deno.readFile(`${dir}/${name}`);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    sums.push({ name, sha256: await sha256Hex(bytes) });
  }
  return sums;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
