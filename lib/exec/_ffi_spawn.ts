/**
 * Starting a tool process in its own session with glibc's `posix_spawn` and
 * `POSIX_SPAWN_SETSID` through Deno FFI: no extra exec (as with `setsid(1)`) and no
 * fork of the whole harness (as with `detached: true`).
 *
 * The spawn is a synchronous FFI call on the calling thread, so the child inherits that
 * thread's Landlock domain and network namespace (DENO-NOTES §5b); glibc clones with
 * `CLONE_VFORK`, which keeps it cheap. The child's pipes are plain file descriptors,
 * read and written without blocking. What they wait for (data, room, the exit through a
 * pidfd) is collected in one epoll set per child, and one `epoll_wait` at a time runs on
 * Deno's blocking thread pool, in bounded slices: no thread is ever parked in a `read`,
 * so a cancelled read returns even while an escaped grandchild keeps the pipe open. The
 * exit is reaped on the calling thread, so the pid cannot be reused while
 * {@linkcode FfiChild.kill} may still signal it.
 *
 * Linux with glibc only (2.29+ for `posix_spawn_file_actions_addchdir_np`, Linux 5.3+ for
 * `pidfd_open`); check {@linkcode ffiSpawnAvailable} first.
 *
 * @module
 */
import type { ProcessSpec, SpawnError } from "./process.ts";
import { BUSY, describeSpawnError } from "./_spawn.ts";
import { signalName, signalNumber } from "./_signals.ts";

// Linux values, the same on x86_64 and aarch64.
const O_RDONLY = 0;
const O_NONBLOCK = 0o4000;
const O_CLOEXEC = 0o2000000;
const F_SETFL = 4;
const F_DUPFD_CLOEXEC = 1030;
const EPOLLIN = 0x1;
const EPOLLOUT = 0x4;
const EPOLLONESHOT = 1 << 30;
const EPOLL_CLOEXEC = 0o2000000;
const EPOLL_CTL_ADD = 1;
const EPOLL_CTL_DEL = 2;
const EPOLL_CTL_MOD = 3;
/** `struct epoll_event` is packed on x86_64 only: { u32 events; u64 data }. */
const EPOLL_EVENT_BYTES = Deno.build.arch === "x86_64" ? 12 : 16;
const EPOLL_DATA_OFFSET = Deno.build.arch === "x86_64" ? 4 : 8;
const SYS_PIDFD_OPEN = 434n;
const WNOHANG = 1;
const AT_FDCWD = -100;
const STATX_TYPE = 0x1;
const STATX_MODE = 0x2;
const STATX_MODE_OFFSET = 28;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const X_OK = 1;

const SIGKILL = signalNumber("SIGKILL")!;
const SIGSTOP = signalNumber("SIGSTOP")!;

const POSIX_SPAWN_SETSIGDEF = 0x04;
const POSIX_SPAWN_SETSIGMASK = 0x08;
const POSIX_SPAWN_SETSID = 0x80;

const EPERM = 1;
const ENOENT = 2;
const ESRCH = 3;
const EINTR = 4;
const ENOEXEC = 8;
const EAGAIN = 11;
const EACCES = 13;
const ENOTDIR = 20;
const ETXTBSY = 26;

/**
 * How long one `epoll_wait` may run. It returns at once when something is ready; the
 * bound only matters when nothing waits any more (after a cancel) and for a Worker that
 * is terminated meanwhile (its pool thread is free again after one slice).
 */
const WAIT_SLICE_MS = 100;
/** Bytes a default (non-BYOB) reader gets per read. */
const READ_CHUNK = 65536;
/**
 * Room for `posix_spawnattr_t` (336 bytes on glibc x86_64), `posix_spawn_file_actions_t`
 * (80), `sigset_t` (128) and `struct statx` (256): generous, for other architectures.
 */
const STRUCT_BYTES = 1024;

const SYMBOLS = {
  posix_spawn: {
    parameters: ["buffer", "buffer", "buffer", "buffer", "buffer", "buffer"],
    result: "i32",
  },
  posix_spawn_file_actions_init: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_adddup2: { parameters: ["buffer", "i32", "i32"], result: "i32" },
  posix_spawn_file_actions_addopen: {
    parameters: ["buffer", "i32", "buffer", "i32", "u32"],
    result: "i32",
  },
  posix_spawn_file_actions_addchdir_np: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawnattr_init: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_setflags: { parameters: ["buffer", "i16"], result: "i32" },
  posix_spawnattr_setsigmask: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawnattr_setsigdefault: { parameters: ["buffer", "buffer"], result: "i32" },
  sigemptyset: { parameters: ["buffer"], result: "i32" },
  sigaddset: { parameters: ["buffer", "i32"], result: "i32" },
  pipe2: { parameters: ["buffer", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  // Variadic in C; an int third argument is passed like a fixed one on x86_64 and aarch64 Linux.
  fcntl: { parameters: ["i32", "i32", "i32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  epoll_create1: { parameters: ["i32"], result: "i32" },
  epoll_ctl: { parameters: ["i32", "i32", "i32", "buffer"], result: "i32" },
  epoll_wait: { parameters: ["i32", "buffer", "i32", "i32"], result: "i32", nonblocking: true },
  /** epoll_wait with timeout 0, on this thread: what is ready already, without the pool. */
  epoll_ready: { name: "epoll_wait", parameters: ["i32", "buffer", "i32", "i32"], result: "i32" },
  pidfd_open: { name: "syscall", parameters: ["i64", "i64", "i64"], result: "i64" },
  getpid: { parameters: [], result: "i32" },
  kill: { parameters: ["i32", "i32"], result: "i32" },
  waitpid: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
  access: { parameters: ["buffer", "i32"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
  strerror: { parameters: ["i32"], result: "pointer" },
} as const;

/** glibc 2.34+: closes every fd from 3 up in the child, inherited ones included. */
const CLOSEFROM = {
  posix_spawn_file_actions_addclosefrom_np: { parameters: ["buffer", "i32"], result: "i32" },
} as const;

type Symbols = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

/** libc bound on this thread, with the buffers reused by every (synchronous) spawn. */
interface Libc {
  sym: Symbols;
  /** Adds "close every fd from `lowFd` up" to the file actions; null before glibc 2.34. */
  closeFrom: ((actions: Uint8Array, lowFd: number) => number) | null;
  /** This thread's `errno`. */
  errno: Deno.UnsafePointerView;
  /** Signal set with nothing in it: the child's signal mask. */
  emptySet: Uint8Array;
  /** Signals 1–31 but SIGKILL and SIGSTOP: reset to the default action in the child. */
  defaultSet: Uint8Array;
  attr: Uint8Array;
  actions: Uint8Array;
  statx: Uint8Array;
  pid: Int32Array;
  pipe: Int32Array;
  /** The buffer that argv and envp point into, during a spawn. */
  pinned: Uint8Array | null;
}

let libc: Libc | null | undefined;

/** Binds libc once; null when not Linux, FFI is not permitted, or a symbol is missing. */
function openLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  try {
    if (Deno.build.os !== "linux") return libc;
    if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return libc;
    let sym: Symbols | undefined;
    let closeFrom: Libc["closeFrom"] = null;
    for (const name of ["libc.so.6", "libc.so"]) {
      try {
        const both = Deno.dlopen(name, { ...SYMBOLS, ...CLOSEFROM }).symbols;
        sym = both;
        closeFrom = (actions, lowFd) =>
          both.posix_spawn_file_actions_addclosefrom_np(actions, lowFd);
        break;
      } catch {
        // glibc < 2.34 lacks closefrom: bind the rest alone.
      }
      try {
        sym = Deno.dlopen(name, SYMBOLS).symbols;
        break;
      } catch {
        // Not this libc (or a symbol it lacks, e.g. glibc < 2.29): try the next name.
      }
    }
    if (sym === undefined) return libc;
    const errnoPtr = sym.__errno_location();
    if (errnoPtr === null) return libc;
    const emptySet = bytes(STRUCT_BYTES);
    const defaultSet = bytes(STRUCT_BYTES);
    if (sym.sigemptyset(emptySet) !== 0 || sym.sigemptyset(defaultSet) !== 0) return libc;
    for (let sig = 1; sig <= 31; sig++) {
      if (sig === SIGKILL || sig === SIGSTOP) continue;
      if (sym.sigaddset(defaultSet, sig) !== 0) return libc;
    }
    // The exit is awaited through a pidfd: Linux 5.3, and not blocked by seccomp.
    const pidfd = Number(sym.pidfd_open(SYS_PIDFD_OPEN, BigInt(sym.getpid()), 0n));
    if (pidfd < 0) return libc;
    sym.close(pidfd);
    libc = {
      sym,
      closeFrom,
      errno: new Deno.UnsafePointerView(errnoPtr),
      emptySet,
      defaultSet,
      attr: bytes(STRUCT_BYTES),
      actions: bytes(STRUCT_BYTES),
      statx: bytes(STRUCT_BYTES),
      pid: new Int32Array(new ArrayBuffer(4)),
      pipe: new Int32Array(new ArrayBuffer(8)),
      pinned: null,
    };
  } catch {
    libc = null;
  }
  return libc;
}

/** Bytes with an off-heap backing store, which never moves while native code uses it. */
function bytes(n: number): Uint8Array {
  return new Uint8Array(new ArrayBuffer(n));
}

/**
 * Whether {@linkcode spawnFfi} can be used on this thread: Linux 5.3+ (`pidfd_open`),
 * `--allow-ffi` granted, glibc found and every symbol bound
 * (`posix_spawn_file_actions_addchdir_np` needs glibc 2.29). The answer is cached per
 * thread.
 *
 * @returns true when spawnFfi works here. Never throws.
 */
export function ffiSpawnAvailable(): boolean {
  return openLibc() !== null;
}

/**
 * Whether libc is already bound on this thread ({@linkcode ffiSpawnAvailable} said yes).
 * Binding costs ~8 ms (a `dlopen` of ~40 symbols), so a caller may start its first
 * processes another way and bind when idle.
 *
 * @returns true when {@linkcode spawnFfi} can be used without binding first.
 */
export function ffiSpawnBound(): boolean {
  return libc !== undefined && libc !== null;
}

/** The exit status of a child, as `Deno.ChildProcess.status` reports it. */
export type FfiStatus = Deno.CommandStatus;

/**
 * A child started by {@linkcode spawnFfi}: the part of `Deno.ChildProcess` that
 * `runProcess` uses. Each of `stdout` and `stderr` must be read to the end or
 * cancelled, and `stdin` (when piped) closed or aborted, or its pipe (and the child's
 * epoll fd) stays open, as Deno's own child pipes would.
 */
export interface FfiChild {
  /** The process id; also its process group and session id. */
  readonly pid: number;
  /**
   * Resolves once the process has exited and been reaped: `code` is 128 + n and `signal`
   * its name when signal n ended it. Rejects only if the process cannot be waited for.
   */
  readonly status: Promise<FfiStatus>;
  /**
   * The write end of the child's stdin. A write resolves once every byte is in the
   * pipe and rejects when the child closed its end (EPIPE); `abort()` closes the pipe at
   * once, even while a write waits for a child that does not read. Throws a TypeError
   * when stdin was `"null"`.
   */
  readonly stdin: WritableStream<Uint8Array>;
  /**
   * The child's stdout: a byte stream, so `getReader({ mode: "byob" })` works. Cancel
   * closes the pipe at once (a read still pending ends as done) and resolves within
   * about 100 ms, also while an escaped grandchild holds the pipe open.
   */
  readonly stdout: ReadableStream<Uint8Array>;
  /** The child's stderr, like {@linkcode FfiChild.stdout}. */
  readonly stderr: ReadableStream<Uint8Array>;
  /**
   * Sends `signal` to the child (not its group). Does nothing once the child has been
   * reaped or is gone.
   *
   * @param signal The signal. @default "SIGTERM"
   * @throws {TypeError} For a signal Linux does not have.
   */
  kill(signal?: Deno.Signal): void;
  /**
   * Sends `signal` to the child's whole process group (`kill(-pid)`), which needs no
   * Deno run permission. The group outlives the child while its descendants live.
   *
   * @param signal The signal.
   * @returns true when the group was signalled or no longer exists, false when the
   * kernel refused (EPERM).
   * @throws {TypeError} For a signal Linux does not have.
   */
  killGroup(signal: Deno.Signal): boolean;
}

/**
 * Starts `spec` in a new session (pid = process group id = session id) with
 * `posix_spawn`, exactly as `spawnChild` does with `setsid(1)`: the same run-permission
 * check, PATH lookup through `spec.env.PATH`, argv `[program, ...args]`, exactly
 * `spec.env`, `spec.cwd`, stdin piped or /dev/null, stdout and stderr piped. The child
 * gets an empty signal mask and the default action for signals 1–31 (SIGPIPE is
 * ignored in Deno and would otherwise stay ignored across exec). A file without `#!`
 * runs under /bin/sh, as execvp (and so `setsid` and `Deno.Command`) does. The spawn is
 * a synchronous call on this thread, so the child inherits the thread's Landlock domain
 * and network namespace. The child gets fds 0–2 and nothing else: with glibc 2.34+
 * even fds harness itself inherited without close-on-exec are closed (an open fd would
 * bypass Landlock, which checks paths at open time); before 2.34 those pass on, as they
 * do with `Deno.Command`.
 *
 * @param spec What to run (`timeoutMs` and `maxOutputBytes` are the caller's business).
 * @returns The child, why it could not start, or {@linkcode BUSY} when the program is
 * open for writing (ETXTBSY) and the start should be retried.
 */
export function spawnFfi(spec: ProcessSpec): FfiChild | SpawnError | typeof BUSY {
  const path = spec.env.PATH;
  const c = openLibc();
  if (c === null) {
    return describeSpawnError(
      spec.program,
      path,
      new Error("posix_spawn through FFI is not available: needs Linux, glibc and --allow-ffi"),
    );
  }
  if (Deno.permissions.querySync({ name: "run", command: spec.program }).state !== "granted") {
    return describeSpawnError(spec.program, path, new Deno.errors.NotCapable());
  }
  const argv = [spec.program, ...spec.args];
  const envp = Object.entries(spec.env).map(([k, v]) => `${k}=${v}`);
  if ([...argv, ...envp, spec.cwd].some((s) => s.includes("\0"))) {
    return describeSpawnError(spec.program, path, new Error("nul byte found in provided data"));
  }
  const file = resolveProgram(c, spec.program, path);
  if (file === null) {
    return describeSpawnError(
      spec.program,
      path,
      new Deno.errors.NotFound(`No such file or directory (os error ${ENOENT})`),
    );
  }
  const piped = spec.stdin !== "null";
  const opened: number[] = [];
  const closeAll = (fds: number[]) => {
    for (const fd of fds) if (fd >= 0) c.sym.close(fd);
  };
  // [child's stdin, our stdin, our stdout, child's stdout, our stderr, child's stderr]
  const fds: number[] = [];
  for (let i = 0; i < (piped ? 3 : 2); i++) {
    const pair = makePipe(c);
    if (typeof pair === "number") {
      closeAll(opened);
      return describeSpawnError(spec.program, path, new Error(errnoText(c, pair)));
    }
    opened.push(...pair);
    fds.push(...pair);
  }
  if (!piped) fds.unshift(-1, -1);
  const [childIn, ourIn, ourOut, childOut, ourErr, childErr] = fds;
  for (const fd of [ourIn, ourOut, ourErr]) if (fd >= 0) setNonblocking(c, fd);
  const epfd = c.sym.epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0) {
    const code = errno(c);
    closeAll(opened);
    return describeSpawnError(spec.program, path, new Error(errnoText(c, code)));
  }

  const strings = cStrings([file, spec.cwd, ...argv, ...envp]);
  const [fileC, cwdC] = strings.offsets;
  const argvPtrs = pointerArray(strings.base, strings.offsets.slice(2, 2 + argv.length));
  const envpPtrs = pointerArray(strings.base, strings.offsets.slice(2 + argv.length));
  const { attr, actions, sym } = c;
  let rc = sym.posix_spawn_file_actions_init(actions);
  if (rc !== 0) {
    closeAll(opened);
    return describeSpawnError(spec.program, path, new Error(errnoText(c, rc)));
  }
  rc = sym.posix_spawnattr_init(attr);
  if (rc !== 0) {
    sym.posix_spawn_file_actions_destroy(actions);
    closeAll(opened);
    return describeSpawnError(spec.program, path, new Error(errnoText(c, rc)));
  }
  try {
    rc = (piped
      ? sym.posix_spawn_file_actions_adddup2(actions, childIn, 0)
      : sym.posix_spawn_file_actions_addopen(actions, 0, DEV_NULL, O_RDONLY, 0)) ||
      sym.posix_spawn_file_actions_adddup2(actions, childOut, 1) ||
      sym.posix_spawn_file_actions_adddup2(actions, childErr, 2) ||
      sym.posix_spawn_file_actions_addchdir_np(actions, strings.block.subarray(cwdC)) ||
      // Only stdin, stdout and stderr: an fd harness inherited would bypass Landlock,
      // which checks paths when a file is opened, not when it is read.
      (c.closeFrom?.(actions, 3) ?? 0) ||
      sym.posix_spawnattr_setflags(
        attr,
        POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF,
      ) ||
      sym.posix_spawnattr_setsigmask(attr, c.emptySet) ||
      sym.posix_spawnattr_setsigdefault(attr, c.defaultSet);
    // Native code reads the strings through raw pointers: keep their buffer alive.
    c.pinned = strings.block;
    if (rc === 0) {
      rc = sym.posix_spawn(
        c.pid,
        strings.block.subarray(fileC),
        actions,
        attr,
        argvPtrs,
        envpPtrs,
      );
    }
    if (rc === ENOEXEC) {
      // Like execvp, and so setsid(1) and Deno.Command: a file without "#!" is a shell script.
      const shArgv = new BigUint64Array(new ArrayBuffer(8 * (argv.length + 2)));
      shArgv[0] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(BIN_SH)));
      shArgv[1] = strings.base + BigInt(fileC);
      shArgv.set(argvPtrs.subarray(1, argv.length), 2);
      rc = sym.posix_spawn(c.pid, BIN_SH, actions, attr, shArgv, envpPtrs);
    }
  } finally {
    c.pinned = null;
    sym.posix_spawnattr_destroy(attr);
    sym.posix_spawn_file_actions_destroy(actions);
    closeAll([childIn, childOut, childErr]);
  }
  if (rc !== 0) {
    closeAll([ourIn, ourOut, ourErr, epfd]);
    return spawnFailure(c, spec, rc);
  }
  const pid = c.pid[0];
  const pidfd = Number(sym.pidfd_open(SYS_PIDFD_OPEN, BigInt(pid), 0n));
  if (pidfd < 0) {
    // Out of fds, say: without a pidfd the exit cannot be awaited, so take the child down.
    const code = errno(c);
    sym.kill(pid, SIGKILL);
    sym.waitpid(pid, c.pid, 0);
    closeAll([ourIn, ourOut, ourErr, epfd]);
    return describeSpawnError(spec.program, path, new Error(errnoText(c, code)));
  }
  return new Child(c, pid, new Watch(c, epfd), pidfd, ourIn, ourOut, ourErr);
}

const DEV_NULL = cString("/dev/null");
const BIN_SH = cString("/bin/sh");

function cString(s: string): Uint8Array {
  const encoded = new TextEncoder().encode(s + "\0");
  const buf = bytes(encoded.byteLength);
  buf.set(encoded);
  return buf;
}

function spawnFailure(c: Libc, spec: ProcessSpec, code: number): SpawnError | typeof BUSY {
  if (code === ETXTBSY) return BUSY;
  const text = errnoText(c, code);
  const err = code === ENOENT || code === ENOTDIR
    ? new Deno.errors.NotFound(text)
    : code === EACCES || code === EPERM
    ? new Deno.errors.PermissionDenied(text)
    : new Error(text);
  return describeSpawnError(spec.program, spec.env.PATH, err);
}

/**
 * The file to execute: `program` itself when it has a "/", else the first absolute
 * `PATH` entry holding a regular file we may execute (like Deno's own lookup).
 */
function resolveProgram(c: Libc, program: string, path: string | undefined): string | null {
  if (program.includes("/")) return program;
  if (path === undefined) return null;
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/")) continue;
    const candidate = dir.endsWith("/") ? dir + program : `${dir}/${program}`;
    if (isExecutableFile(c, candidate)) return candidate;
  }
  return null;
}

function isExecutableFile(c: Libc, file: string): boolean {
  const name = new TextEncoder().encode(file + "\0");
  if (c.sym.statx(AT_FDCWD, name, 0, STATX_TYPE | STATX_MODE, c.statx) !== 0) return false;
  const mode = c.statx[STATX_MODE_OFFSET] | (c.statx[STATX_MODE_OFFSET + 1] << 8);
  return (mode & S_IFMT) === S_IFREG && c.sym.access(name, X_OK) === 0;
}

/**
 * NUL-terminated UTF-8 strings in one buffer, each one's offset in it, and the
 * buffer's address (for `char *[]` arrays).
 */
function cStrings(strings: string[]): { block: Uint8Array; offsets: number[]; base: bigint } {
  let size = 0;
  for (const s of strings) size += s.length * 3 + 1;
  const block = bytes(size);
  const encoder = new TextEncoder();
  const offsets: number[] = [];
  let at = 0;
  for (const s of strings) {
    offsets.push(at);
    at += encoder.encodeInto(s, block.subarray(at)).written;
    block[at++] = 0;
  }
  const base = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(block)));
  return { block, offsets, base };
}

/** A NULL-terminated `char *[]` of the strings at `offsets` from `base`. */
function pointerArray(base: bigint, offsets: number[]): BigUint64Array {
  const array = new BigUint64Array(new ArrayBuffer(8 * (offsets.length + 1)));
  offsets.forEach((offset, i) => array[i] = base + BigInt(offset));
  return array;
}

/** A close-on-exec pipe as [read end, write end], both ≥ 3; or the errno. */
function makePipe(c: Libc): [number, number] | number {
  if (c.sym.pipe2(c.pipe, O_CLOEXEC) !== 0) return errno(c);
  const pair: [number, number] = [c.pipe[0], c.pipe[1]];
  for (let i = 0; i < 2; i++) {
    // An fd below 3 (the harness's own stdio closed) would be overwritten by the dup2
    // of another stream in the child: move it up.
    if (pair[i] >= 3) continue;
    const moved = c.sym.fcntl(pair[i], F_DUPFD_CLOEXEC, 3);
    const code = errno(c);
    if (moved < 0) {
      c.sym.close(pair[0]);
      c.sym.close(pair[1]);
      return code;
    }
    c.sym.close(pair[i]);
    pair[i] = moved;
  }
  return pair;
}

/** Makes our end of a fresh pipe nonblocking (F_SETFL ignores the access mode bits). */
function setNonblocking(c: Libc, fd: number): void {
  c.sym.fcntl(fd, F_SETFL, O_NONBLOCK);
}

function errno(c: Libc): number {
  return c.errno.getInt32();
}

function errnoText(c: Libc, code: number): string {
  const p = c.sym.strerror(code);
  const text = p === null ? `errno ${code}` : Deno.UnsafePointerView.getCString(p);
  return `${text} (os error ${code})`;
}

/** What one {@linkcode Watch} waiter is: the exit, or one of the pipes. */
const TOKEN = { exit: 1, stdin: 2, stdout: 3, stderr: 4 } as const;

/**
 * Readiness of one child's fds: an epoll set in which each fd is armed once per wait
 * (`EPOLLONESHOT`), and at most one `epoll_wait` in flight on the thread pool while
 * anything waits. Arming an fd while a wait runs takes effect at once.
 */
class Watch {
  readonly #c: Libc;
  readonly #epfd: number;
  readonly #events = bytes(EPOLL_EVENT_BYTES * 4);
  readonly #ctl = bytes(EPOLL_EVENT_BYTES);
  readonly #added = new Set<number>();
  readonly #waiters = new Map<number, { resolve(): void; reject(err: Error): void }>();
  /** An epoll_wait loop runs (it may finish without awaiting anything). */
  #running = false;
  /** Settles when the current loop has ended. */
  #idle: Promise<void> = Promise.resolve();
  #closing = false;
  #closed = false;

  constructor(c: Libc, epfd: number) {
    this.#c = c;
    this.#epfd = epfd;
  }

  /**
   * Resolves once `fd` is ready for `events` (or hung up, or in error), or once it is
   * {@linkcode Watch.forget}-ten.
   */
  wait(token: number, fd: number, events: number): Promise<void> {
    const view = new DataView(this.#ctl.buffer);
    view.setUint32(0, events | EPOLLONESHOT, true);
    view.setBigUint64(EPOLL_DATA_OFFSET, BigInt(token), true);
    const op = this.#added.has(token) ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (this.#c.sym.epoll_ctl(this.#epfd, op, fd, this.#ctl) !== 0) {
      return Promise.reject(
        new Error(`Cannot watch the child: ${errnoText(this.#c, errno(this.#c))}`),
      );
    }
    this.#added.add(token);
    const waiting = new Promise<void>((resolve, reject) => {
      this.#waiters.set(token, { resolve, reject });
    });
    if (!this.#running) this.#idle = this.#run();
    return waiting;
  }

  /** Stops watching `fd` (before it is closed) and releases its waiter. */
  forget(token: number, fd: number): void {
    if (this.#added.delete(token)) this.#c.sym.epoll_ctl(this.#epfd, EPOLL_CTL_DEL, fd, null);
    const waiter = this.#waiters.get(token);
    this.#waiters.delete(token);
    waiter?.resolve();
  }

  /** Resolves when no `epoll_wait` is left running, unless something else still waits. */
  settled(): Promise<void> {
    return this.#waiters.size === 0 && this.#running ? this.#idle : Promise.resolve();
  }

  /** Closes the epoll fd, once no `epoll_wait` uses it any more. */
  close(): void {
    this.#closing = true;
    if (!this.#running) this.#closeNow();
  }

  #closeNow(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#c.sym.close(this.#epfd);
  }

  async #run(): Promise<void> {
    this.#running = true;
    const view = new DataView(this.#events.buffer);
    let failures = 0;
    try {
      while (this.#waiters.size > 0) {
        // What is ready already costs one system call here; a wait on the pool costs two
        // thread switches.
        let n = this.#c.sym.epoll_ready(this.#epfd, this.#events, 4, 0);
        if (n === 0) n = await this.#c.sym.epoll_wait(this.#epfd, this.#events, 4, WAIT_SLICE_MS);
        if (n < 0) {
          // EINTR; anything else would repeat: give up after a while rather than spin.
          if (++failures < 1000) continue;
          const err = new Error("Cannot watch the child: epoll_wait keeps failing");
          for (const waiter of this.#waiters.values()) waiter.reject(err);
          this.#waiters.clear();
          break;
        }
        failures = 0;
        for (let i = 0; i < n; i++) {
          const token = view.getUint32(i * EPOLL_EVENT_BYTES + EPOLL_DATA_OFFSET, true);
          const waiter = this.#waiters.get(token);
          this.#waiters.delete(token);
          waiter?.resolve();
        }
      }
    } finally {
      this.#running = false;
      if (this.#closing) this.#closeNow();
    }
  }
}

/** Reads a nonblocking pipe `fd` as a byte stream, closing it on EOF, error or cancel. */
function readableOf(
  c: Libc,
  watch: Watch,
  token: number,
  fd: number,
  onClose: () => void,
): ReadableStream<Uint8Array> {
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    watch.forget(token, fd);
    c.sym.close(fd);
    onClose();
  };
  return new ReadableStream({
    type: "bytes",
    autoAllocateChunkSize: READ_CHUNK,
    async pull(controller) {
      while (open) {
        const request = controller.byobRequest;
        const view = request?.view
          ? new Uint8Array(request.view.buffer, request.view.byteOffset, request.view.byteLength)
          : bytes(READ_CHUNK);
        const n = Number(c.sym.read(fd, view, BigInt(view.byteLength)));
        if (n > 0) {
          if (request) request.respond(n);
          else controller.enqueue(view.subarray(0, n));
          return;
        }
        if (n === 0) {
          close();
          controller.close();
          request?.respond(0);
          return;
        }
        const code = errno(c);
        if (code === EINTR) continue;
        if (code !== EAGAIN) {
          close();
          throw new Error(`Cannot read from the child: ${errnoText(c, code)}`);
        }
        try {
          await watch.wait(token, fd, EPOLLIN);
        } catch (err) {
          close();
          throw err;
        }
      }
    },
    cancel() {
      close();
      return watch.settled();
    },
  });
}

/** Writes to a nonblocking pipe `fd`, closing it on close, abort or a failed write. */
function writableOf(
  c: Libc,
  watch: Watch,
  fd: number,
  onClose: () => void,
): WritableStream<Uint8Array> {
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    watch.forget(TOKEN.stdin, fd);
    c.sym.close(fd);
    onClose();
  };
  return new WritableStream<Uint8Array>({
    start(controller) {
      // An abort does not wait for a write stuck on a child that never reads.
      controller.signal.addEventListener("abort", close, { once: true });
    },
    async write(chunk) {
      let done = 0;
      while (done < chunk.byteLength) {
        if (!open) throw new Error("The child's stdin was closed");
        const n = Number(c.sym.write(fd, chunk.subarray(done), BigInt(chunk.byteLength - done)));
        if (n >= 0) {
          done += n;
          continue;
        }
        const code = errno(c);
        if (code === EINTR) continue;
        if (code !== EAGAIN) {
          // EPIPE (the child closed its end) or EBADF.
          close();
          throw new Error(`Cannot write to the child's stdin: ${errnoText(c, code)}`);
        }
        try {
          await watch.wait(TOKEN.stdin, fd, EPOLLOUT);
        } catch (err) {
          close();
          throw err;
        }
      }
    },
    close,
    abort: close,
  });
}

/** Decodes a `waitpid` status the way Deno reports it. */
function decodeStatus(status: number): FfiStatus {
  const sig = status & 0x7f;
  if (sig === 0) {
    const code = (status >> 8) & 0xff;
    return { success: code === 0, code, signal: null };
  }
  return { success: false, code: 128 + sig, signal: signalName(sig) ?? null };
}

class Child implements FfiChild {
  readonly pid: number;
  readonly status: Promise<FfiStatus>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly #stdin: WritableStream<Uint8Array> | null;
  readonly #c: Libc;
  #reaped = false;

  constructor(
    c: Libc,
    pid: number,
    watch: Watch,
    pidfd: number,
    stdinFd: number,
    stdoutFd: number,
    stderrFd: number,
  ) {
    this.#c = c;
    this.pid = pid;
    // The epoll set is closed once the exit and every pipe are done with.
    let users = stdinFd >= 0 ? 4 : 3;
    const release = () => {
      if (--users === 0) watch.close();
    };
    this.#stdin = stdinFd >= 0 ? writableOf(c, watch, stdinFd, release) : null;
    this.stdout = readableOf(c, watch, TOKEN.stdout, stdoutFd, release);
    this.stderr = readableOf(c, watch, TOKEN.stderr, stderrFd, release);
    this.status = this.#wait(watch, pidfd).finally(() => {
      watch.forget(TOKEN.exit, pidfd);
      c.sym.close(pidfd);
      release();
    });
    // A rejection nobody awaits must not end the harness; awaiting callers still see it.
    this.status.catch(() => {});
  }

  get stdin(): WritableStream<Uint8Array> {
    if (this.#stdin === null) throw new TypeError("stdin is not piped");
    return this.#stdin;
  }

  kill(signal: Deno.Signal = "SIGTERM"): void {
    const signo = signalNumber(signal);
    if (signo === undefined) throw new TypeError(`Invalid signal: ${signal}`);
    if (this.#reaped) return;
    if (this.#c.sym.kill(this.pid, signo) === 0) return;
    const code = errno(this.#c);
    if (code !== ESRCH) {
      throw new Error(`Cannot kill process ${this.pid}: ${errnoText(this.#c, code)}`);
    }
  }

  killGroup(signal: Deno.Signal): boolean {
    const signo = signalNumber(signal);
    if (signo === undefined) throw new TypeError(`Invalid signal: ${signal}`);
    return this.#c.sym.kill(-this.pid, signo) === 0 || errno(this.#c) === ESRCH;
  }

  /**
   * Waits for the pidfd to become readable (the child exited), then reaps here: until
   * then the zombie holds the pid, so kill() cannot hit a new process that reuses it.
   */
  async #wait(watch: Watch, pidfd: number): Promise<FfiStatus> {
    const status = new Int32Array(new ArrayBuffer(4));
    for (;;) {
      await watch.wait(TOKEN.exit, pidfd, EPOLLIN);
      const reaped = this.#c.sym.waitpid(this.pid, status, WNOHANG);
      if (reaped === this.pid) {
        this.#reaped = true;
        return decodeStatus(status[0]);
      }
      if (reaped < 0) {
        const code = errno(this.#c);
        if (code === EINTR) continue;
        this.#reaped = true;
        throw new Error(`Cannot wait for process ${this.pid}: ${errnoText(this.#c, code)}`);
      }
    }
  }
}
