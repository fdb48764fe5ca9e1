/**
 * The one definition of how harness runs: the Deno permission grant, the unstable
 * flags and the modules a compiled binary must embed. `deno task harness`, the
 * compile script and the tests all read it from here, so the binary and the source
 * run behave the same (a test checks that the `harness` task in deno.json matches).
 *
 * Why this grant, and not `-A`: a Worker's dynamic `import()` is checked against the
 * parent's read permission (DENO-NOTES §2), so harness never runs with `--allow-all`,
 * and its Workers import only modules embedded in the binary. Each kind is granted
 * because a feature needs it:
 * - read, write: the project directory is chosen at run time (`-C`), tools read and
 *   write it, transcripts go where the user says; Workers narrow both per tool.
 * - net: the provider's URL comes from config; tool Workers narrow it per tool.
 * - env: Octomind and Nanocoder tools inherit the environment (filtered per tool).
 * - run: tools are programs; killing a tool's process group needs unrestricted run.
 * - ffi: Landlock is applied through libc from a tool's Worker.
 * - sys=osRelease: `harness doctor` reports the kernel release.
 *
 * @module
 */

/** Permission flags of the harness process. */
export const PERMISSION_FLAGS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-ffi",
  "--allow-sys=osRelease",
  "--no-prompt",
];

/** Unstable features harness uses (per-Worker permissions). */
export const UNSTABLE_FLAGS: readonly string[] = ["--unstable-worker-options"];

/** The entry point, relative to the repository root. */
export const ENTRY = "main.ts";

/**
 * Modules loaded at run time by URL rather than by a static import, which
 * `deno compile` must embed with `--include`.
 */
export const INCLUDES: readonly string[] = [
  "lib/exec/worker_main.ts",
  "lib/exec/worker_process.ts",
];

/** The `deno run` argument list of the `harness` task (after `deno`). */
export function runArgs(): string[] {
  return ["run", ...PERMISSION_FLAGS, ENTRY];
}
