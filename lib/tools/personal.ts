/**
 * Where Nanocoder keeps personal tools: `getConfigPath()/tools` in Nanocoder's code.
 *
 * @module
 */

/**
 * The personal Nanocoder tools directory: `$NANOCODER_CONFIG_DIR/tools`, else on Linux
 * `$XDG_CONFIG_HOME/nanocoder/tools` or `~/.config/nanocoder/tools`, on macOS
 * `~/Library/Preferences/nanocoder/tools`, on Windows `%APPDATA%/nanocoder/tools`.
 *
 * @param getEnv Reads an environment variable.
 * @param os The operating system (`Deno.build.os`).
 * @returns The directory, or `undefined` when no home directory is known.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const env = (n: string) => ({ HOME: "/home/a" } as Record<string, string>)[n];
 * assert.equal(personalNanocoderDir(env, "linux"), "/home/a/.config/nanocoder/tools");
 * ```
 */
export function personalNanocoderDir(
  getEnv: (name: string) => string | undefined,
  os: string,
): string | undefined {
  const explicit = getEnv("NANOCODER_CONFIG_DIR");
  if (explicit) return `${explicit}/tools`;
  if (os === "windows") {
    const appData = getEnv("APPDATA");
    return appData ? `${appData}\\nanocoder\\tools` : undefined;
  }
  const home = getEnv("HOME");
  if (os === "darwin") return home ? `${home}/Library/Preferences/nanocoder/tools` : undefined;
  const xdg = getEnv("XDG_CONFIG_HOME");
  if (xdg) return `${xdg}/nanocoder/tools`;
  return home ? `${home}/.config/nanocoder/tools` : undefined;
}
