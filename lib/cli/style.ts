/**
 * Terminal colors, off unless the stream is a terminal and neither `--no-color` nor
 * `NO_COLOR` says otherwise.
 *
 * @module
 */

/** Color functions; each is the identity when color is off. */
export interface Style {
  enabled: boolean;
  red(s: string): string;
  yellow(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

/**
 * Makes a style.
 *
 * @param enabled Whether to emit ANSI escapes.
 */
export function makeStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (s: string) =>
    enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s;
  return {
    enabled,
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    green: wrap(32, 39),
    cyan: wrap(36, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}

/**
 * Whether color is wanted: a terminal, no `--no-color`, no non-empty `NO_COLOR`
 * (https://no-color.org).
 */
export function wantColor(
  isTerminal: boolean,
  flag: boolean,
  noColorEnv: string | undefined,
): boolean {
  return isTerminal && flag && !(noColorEnv !== undefined && noColorEnv !== "");
}
