/**
 * The command policy of the `shell` built-in tool (Contenox `local_shell`): which
 * programs may run, decided before anything is spawned. Pure functions, no I/O.
 *
 * What the deny list catches, honestly: it compares the base name of words, so it
 * stops `sudo`, `/usr/bin/sudo`, `mkfs.ext4` (a denied `mkfs` also blocks `mkfs.*`),
 * a denied program after a wrapper such as `env`, `nice`, `xargs`, `sh -c` (every later
 * word of a wrapper is checked, conservatively), and with `shell: true` the first word
 * of each pipeline, list or substitution (`a | sudo b`, `x; dd`, `$(su)`, `` `su` ``).
 * It does not stop obfuscation: `eval`, variables (`$X`), quoting inside a word
 * (`s"u"do`), aliases, functions, scripts that call a denied program, `find -exec`. It
 * is a guard rail for honest mistakes, not a sandbox: confinement is the kernel
 * layer's job (lib/exec/confine.ts).
 *
 * @module
 */

/** Privilege escalation and raw-disk programs denied when `deniedCommands` is not set. */
export const DEFAULT_DENIED_COMMANDS: readonly string[] = [
  "sudo",
  "su",
  "doas",
  "pkexec",
  "runuser",
  "dd",
  "mkfs",
  "mke2fs",
  "mkswap",
  "fdisk",
  "sfdisk",
  "parted",
  "wipefs",
  "shred",
  "blkdiscard",
];

/** Programs that run another program from their arguments: their later words are checked too. */
export const WRAPPER_COMMANDS: readonly string[] = [
  "env",
  "nice",
  "nohup",
  "timeout",
  "xargs",
  "stdbuf",
  "setsid",
  "ionice",
  "command",
  "exec",
  "builtin",
  "time",
  "sh",
  "bash",
  "dash",
  "zsh",
];

/** The shell policy after reading the options. */
export interface ShellPolicy {
  /** Exact command strings that may run; empty means no allowlist. */
  allowedCommands: string[];
  /** Programs always refused, compared by base name. */
  deniedCommands: string[];
  /** Absolute directory programs must reside in, when set. */
  allowedDir?: string;
  /** Explicit opt-in to run any command when there is no allowlist. */
  allowAnyCommand: boolean;
}

/** How a permitted call is started. */
export type LaunchMode =
  /** Spawn the program itself; the Worker's run permission is the allowlist. */
  | "direct"
  /** `/bin/sh -c 'exec "$0" "$@"' program args…`: no shell parsing of the arguments. */
  | "exec"
  /** `/bin/sh -c "command args"`: pipes, redirects, `$VAR`. */
  | "shell";

/**
 * How calls under this policy are started, or `undefined` when every call is refused
 * (no allowlist and no `allowAnyCommand`).
 *
 * @param policy The policy.
 * @param shell Whether the call asks for `/bin/sh -c`.
 * @returns The launch mode.
 */
export function launchMode(policy: ShellPolicy, shell: boolean): LaunchMode | undefined {
  if (policy.allowedDir !== undefined) return "exec";
  if (policy.allowedCommands.length > 0) return "direct";
  if (!policy.allowAnyCommand) return undefined;
  return shell ? "shell" : "exec";
}

/**
 * Checks a call against the policy, in the original's order: shell mode, deny list,
 * allowlist. The `allowedDir` check needs the file system and is done by the caller.
 *
 * @param policy The policy.
 * @param command The program (or, with `shell`, the start of the script).
 * @param args The split arguments.
 * @param shell Whether the call asks for `/bin/sh -c`.
 * @returns A refusal message, or `undefined` when the call may go on.
 */
export function checkCommand(
  policy: ShellPolicy,
  command: string,
  args: string[],
  shell: boolean,
): string | undefined {
  const restricted = policy.allowedCommands.length > 0 || policy.allowedDir !== undefined;
  if (shell && restricted) {
    return `Cannot run with "shell": true: the shell tool has an allowlist ("allowedCommands" or "allowedDir"): run the program directly with "command" and "args", without pipes or redirects`;
  }
  const words = shell ? scriptCommands([command, ...args].join(" ")) : commandWords(command, args);
  for (const word of words) {
    const denied = deniedBy(policy.deniedCommands, word);
    if (denied !== undefined) {
      return `Command "${word}" is denied by policy ("deniedCommands" has "${denied}"): do this another way, or ask the user to run it`;
    }
  }
  if (!restricted && !policy.allowAnyCommand) {
    return `The shell tool has no allowlist, so every command is refused: set "allowedCommands" (or "allowedDir", or "allowAnyCommand": true) under tools.builtins.shell in harness.jsonc`;
  }
  if (policy.allowedCommands.length > 0 && !policy.allowedCommands.includes(command)) {
    return `Command "${command}" is not in the allowlist: use one of ${
      policy.allowedCommands.map((c) => `"${c}"`).join(", ")
    }`;
  }
  return undefined;
}

/** The deny-list entry that blocks `word`, compared by base name (`mkfs` also blocks `mkfs.ext4`). */
export function deniedBy(denied: readonly string[], word: string): string | undefined {
  const clean = word.replace(/^["']+|["']+$/g, "");
  const base = clean.slice(clean.lastIndexOf("/") + 1);
  if (base === "") return undefined;
  return denied.find((d) => {
    const dBase = d.slice(d.lastIndexOf("/") + 1);
    return d === clean || dBase === base || base.startsWith(`${dBase}.`);
  });
}

/** The program and, after a wrapper such as `env` or `sh`, every later word. */
function commandWords(command: string, args: string[]): string[] {
  return isWrapper(command) ? [command, ...args] : [command];
}

function isWrapper(word: string): boolean {
  const clean = word.replace(/^["']+|["']+$/g, "");
  return WRAPPER_COMMANDS.includes(clean.slice(clean.lastIndexOf("/") + 1));
}

const SHELL_KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{"]);

/**
 * The words of a `/bin/sh` script that are checked against the deny list: the first
 * word of every simple command (split at `;`, `&`, `|`, newlines, parentheses,
 * backticks and `$(`), after variable assignments and keywords, plus every later word
 * of a wrapper command.
 *
 * @param script The script.
 * @returns The words, in order.
 */
export function scriptCommands(script: string): string[] {
  const words: string[] = [];
  for (const segment of script.split(/\$\(|[;&|()\n`]/)) {
    const tokens = segment.trim().split(/\s+/).filter((t) => t !== "");
    let i = 0;
    while (
      i < tokens.length && (SHELL_KEYWORDS.has(tokens[i]) || /^[A-Za-z_]\w*=/.test(tokens[i]))
    ) i++;
    if (i >= tokens.length) continue;
    words.push(...commandWords(tokens[i], tokens.slice(i + 1)));
  }
  return words;
}

/**
 * Splits the `args` string like the original (Go's `strings.Fields`): at runs of white
 * space, with no quoting or escaping, so `"a b"` gives `"a` and `b"`.
 *
 * @param args The space-separated arguments.
 * @returns The words.
 */
export function splitArgs(args: string | undefined): string[] {
  if (args === undefined) return [];
  return args.split(/\s+/).filter((a) => a !== "");
}

/**
 * Parses a Go-style duration such as `30s`, `1m30s`, `500ms` or `1.5h`.
 *
 * @param text The duration.
 * @returns Milliseconds, or `undefined` when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const units: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    "µs": 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
  };
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const m of trimmed.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(m[1]) * units[m[2]];
  }
  return total;
}
