/**
 * The fast path of `harness run`: parses the plain forms of its command line without
 * loading commander. commander is CommonJS, and loading it starts Deno's Node
 * compatibility layer, which costs more than the rest of a one-shot run's startup
 * (docs/benchmarks.md). This parser accepts a strict subset of what commander accepts
 * and returns `undefined` for everything else (help, unknown or misspelled options, a
 * bad choice, `--`, a value that looks like an option, a second prompt), so commander
 * still parses, and reports on, every command line this one does not take. A test
 * checks that both parse every command line this one takes to the same result.
 *
 * @module
 */
import type { GlobalOptions } from "./context.ts";
import { flagKey, type FlagSpec, GLOBAL_FLAGS, RUN_ONLY_FLAGS, SESSION_FLAGS } from "./flags.ts";

/** A parsed `harness run` command line. */
export interface RunInvocation {
  globals: GlobalOptions;
  prompt: string | undefined;
  opts: Record<string, string | boolean>;
}

const RUN_FLAGS = [...SESSION_FLAGS, ...RUN_ONLY_FLAGS];

/**
 * Parses `args` when it is a plain `harness run` command line.
 *
 * @param args The arguments after the program name.
 * @returns The invocation, or `undefined` when commander must parse `args`.
 */
export function parseRunFast(args: readonly string[]): RunInvocation | undefined {
  const globals: Record<string, string | boolean> = { color: true };
  const opts: Record<string, string | boolean> = {};
  let command = false;
  let prompt: string | undefined;
  let hasPrompt = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.length < 2 || !arg.startsWith("-")) {
      if (!command) {
        if (arg !== "run") return undefined;
        command = true;
      } else if (hasPrompt) return undefined;
      else [prompt, hasPrompt] = [arg, true];
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const global = find(GLOBAL_FLAGS, name);
    const spec = global ?? (command ? find(RUN_FLAGS, name) : undefined);
    if (spec === undefined) return undefined;
    const into = global ? globals : opts;
    if (spec.value === undefined) {
      if (eq > 0) return undefined;
      into[flagKey(spec)] = !spec.negate;
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || (eq < 0 && value.startsWith("-"))) return undefined;
    if (spec.choices && !spec.choices.includes(value)) return undefined;
    into[flagKey(spec)] = value;
  }
  if (!command) return undefined;
  return { globals: globals as GlobalOptions, prompt, opts };
}

function find(specs: readonly FlagSpec[], arg: string): FlagSpec | undefined {
  return specs.find((s) => arg === `--${s.long}` || (s.short && arg === `-${s.short}`));
}
