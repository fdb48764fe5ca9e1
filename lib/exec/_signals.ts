/**
 * Linux signal numbers by the names Deno uses (x86_64 and aarch64 share them), for the
 * result texts of the conventions and for signalling processes through FFI.
 *
 * @module
 */

/** Linux signal numbers, aliases included (SIGIOT, SIGPOLL, SIGUNUSED). */
const SIGNAL_NUMBERS: Readonly<Record<string, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGTRAP: 5,
  SIGABRT: 6,
  SIGIOT: 6,
  SIGBUS: 7,
  SIGFPE: 8,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGSEGV: 11,
  SIGUSR2: 12,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
  SIGSTKFLT: 16,
  SIGCHLD: 17,
  SIGCONT: 18,
  SIGSTOP: 19,
  SIGTSTP: 20,
  SIGTTIN: 21,
  SIGTTOU: 22,
  SIGURG: 23,
  SIGXCPU: 24,
  SIGXFSZ: 25,
  SIGVTALRM: 26,
  SIGPROF: 27,
  SIGWINCH: 28,
  SIGIO: 29,
  SIGPOLL: 29,
  SIGPWR: 30,
  SIGSYS: 31,
  SIGUNUSED: 31,
};

/** Signal names by number; the first name wins for aliases (SIGABRT, SIGIO, SIGSYS). */
const SIGNAL_NAMES = new Map<number, Deno.Signal>();
for (const [name, n] of Object.entries(SIGNAL_NUMBERS)) {
  if (!SIGNAL_NAMES.has(n)) SIGNAL_NAMES.set(n, name as Deno.Signal);
}

/** The Linux number of a signal name, or `undefined` when unknown. */
export function signalNumber(signal: string): number | undefined {
  return Object.hasOwn(SIGNAL_NUMBERS, signal) ? SIGNAL_NUMBERS[signal] : undefined;
}

/** The name Deno reports for Linux signal `n`, or `undefined` when unknown. */
export function signalName(n: number): Deno.Signal | undefined {
  return SIGNAL_NAMES.get(n);
}
