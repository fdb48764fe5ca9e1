/**
 * How Rust and Go print a finished process's status, for the Octomind and agentcli
 * result texts (Linux signal numbers).
 *
 * @module
 */
import { signalNumber } from "../_signals.ts";

export { signalNumber };

/** Rust's names, by number (`signal_string` in std's unix `process_unix.rs`). */
const RUST_NAMES: Record<number, string> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  4: "SIGILL",
  5: "SIGTRAP",
  6: "SIGABRT",
  7: "SIGBUS",
  8: "SIGFPE",
  9: "SIGKILL",
  10: "SIGUSR1",
  11: "SIGSEGV",
  12: "SIGUSR2",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
  16: "SIGSTKFLT",
  17: "SIGCHLD",
  18: "SIGCONT",
  19: "SIGSTOP",
  20: "SIGTSTP",
  21: "SIGTTIN",
  22: "SIGTTOU",
  23: "SIGURG",
  24: "SIGXCPU",
  25: "SIGXFSZ",
  26: "SIGVTALRM",
  27: "SIGPROF",
  28: "SIGWINCH",
  29: "SIGIO",
  30: "SIGPWR",
  31: "SIGSYS",
};

/** Go's `syscall.Signal.String()` on Linux (`zerrors_linux_amd64.go` signal table). */
const GO_NAMES: Record<number, string> = {
  1: "hangup",
  2: "interrupt",
  3: "quit",
  4: "illegal instruction",
  5: "trace/breakpoint trap",
  6: "aborted",
  7: "bus error",
  8: "floating point exception",
  9: "killed",
  10: "user defined signal 1",
  11: "segmentation fault",
  12: "user defined signal 2",
  13: "broken pipe",
  14: "alarm clock",
  15: "terminated",
  16: "stack fault",
  17: "child exited",
  18: "continued",
  19: "stopped (signal)",
  20: "stopped",
  21: "stopped (tty input)",
  22: "stopped (tty output)",
  23: "urgent I/O condition",
  24: "CPU time limit exceeded",
  25: "file size limit exceeded",
  26: "virtual timer expired",
  27: "profiling timer expired",
  28: "window changed",
  29: "I/O possible",
  30: "power failure",
  31: "bad system call",
};

/**
 * Rust's `Display` of `std::process::ExitStatus` on Unix: `exit status: 3`, or
 * `signal: 9 (SIGKILL)`. (Core dumps are not reported by the process layer, so the
 * ` (core dumped)` suffix never appears.)
 */
export function rustExitStatus(code: number | null, signal: string | null): string {
  if (signal !== null) {
    const n = signalNumber(signal);
    if (n === undefined) return `signal: ${signal}`;
    const name = RUST_NAMES[n];
    return name === undefined ? `signal: ${n}` : `signal: ${n} (${name})`;
  }
  return `exit status: ${code ?? 0}`;
}

/** Go's `(*os.ProcessState).String()`: `exit status 3`, or `signal: killed`. */
export function goExitStatus(code: number | null, signal: string | null): string {
  if (signal !== null) {
    const n = signalNumber(signal);
    const name = n === undefined ? undefined : GO_NAMES[n];
    return `signal: ${name ?? `signal ${n ?? signal}`}`;
  }
  return `exit status ${code ?? 0}`;
}
