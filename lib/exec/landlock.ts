/**
 * Linux Landlock through Deno FFI: confine the calling thread, and every process it
 * starts afterwards, to a set of filesystem paths and TCP ports.
 *
 * Landlock applies to the calling thread and its descendants only (DENO-NOTES §5b), so
 * harness calls {@linkcode restrictSelf} on a tool's Worker thread, never on the main
 * thread. The policy is split into the rights the kernel at hand knows
 * ({@linkcode buildRuleset}), which is pure and tested without touching the thread.
 *
 * @module
 */

/** What a confined thread and its children may touch. Paths are absolute. */
export interface LandlockPolicy {
  /** Paths that may be read (files, and listing directories). */
  read: string[];
  /** Paths that may be read, written, created, removed and renamed. */
  write: string[];
  /** Paths whose files may be executed (and read, which loading a program needs). */
  exec: string[];
  /** TCP ports that may be connected to; `[]` blocks every TCP connect; `"any"` leaves TCP connects alone. */
  connectTcp: number[] | "any";
}

/** A Landlock call that failed, with the kernel's errno. */
export class LandlockError extends Error {
  /** The errno name, e.g. `EPERM`, or `""` when the failure was not a system call. */
  readonly errno: string;

  /**
   * @param message What failed and why.
   * @param errno The errno name.
   */
  constructor(message: string, errno = "") {
    super(message);
    this.name = "LandlockError";
    this.errno = errno;
  }
}

/** Landlock filesystem rights (`LANDLOCK_ACCESS_FS_*`). */
export const FS = {
  EXECUTE: 1n << 0n,
  WRITE_FILE: 1n << 1n,
  READ_FILE: 1n << 2n,
  READ_DIR: 1n << 3n,
  REMOVE_DIR: 1n << 4n,
  REMOVE_FILE: 1n << 5n,
  MAKE_CHAR: 1n << 6n,
  MAKE_DIR: 1n << 7n,
  MAKE_REG: 1n << 8n,
  MAKE_SOCK: 1n << 9n,
  MAKE_FIFO: 1n << 10n,
  MAKE_BLOCK: 1n << 11n,
  MAKE_SYM: 1n << 12n,
  /** ABI 2: link or rename a file into another directory. */
  REFER: 1n << 13n,
  /** ABI 3: truncate a file. */
  TRUNCATE: 1n << 14n,
  /** ABI 5: ioctl on a device file. */
  IOCTL_DEV: 1n << 15n,
} as const;

/** Landlock TCP rights (ABI 4). */
export const NET = { BIND_TCP: 1n << 0n, CONNECT_TCP: 1n << 1n } as const;

/** Landlock scopes (ABI 6): abstract Unix sockets and signals outside the domain. */
export const SCOPE = { ABSTRACT_UNIX_SOCKET: 1n << 0n, SIGNAL: 1n << 1n } as const;

/** The rights a rule on a regular file may carry; the kernel rejects others with EINVAL. */
const FILE_RIGHTS = FS.EXECUTE | FS.WRITE_FILE | FS.READ_FILE | FS.TRUNCATE | FS.IOCTL_DEV;

/** Every filesystem right a kernel of the given ABI knows. */
export function fsRightsForAbi(abi: number): bigint {
  let rights = (1n << 13n) - 1n;
  if (abi >= 2) rights |= FS.REFER;
  if (abi >= 3) rights |= FS.TRUNCATE;
  if (abi >= 5) rights |= FS.IOCTL_DEV;
  return rights;
}

const READ = FS.READ_FILE | FS.READ_DIR;
const WRITE = READ | FS.WRITE_FILE | FS.REMOVE_DIR | FS.REMOVE_FILE | FS.MAKE_DIR | FS.MAKE_REG |
  FS.MAKE_SOCK | FS.MAKE_FIFO | FS.MAKE_SYM | FS.REFER | FS.TRUNCATE | FS.IOCTL_DEV;
const EXEC = READ | FS.EXECUTE;

/** One path rule before the path is opened: the rights for a directory (masked for files). */
export interface PathRule {
  path: string;
  /** Rights when the path is a directory; a file keeps only the file rights among them. */
  access: bigint;
}

/** A policy translated for one kernel ABI. */
export interface Ruleset {
  abi: number;
  handledFs: bigint;
  handledNet: bigint;
  scoped: bigint;
  /** One rule per distinct path, rights merged. */
  paths: PathRule[];
  /** TCP ports allowed to connect (only when TCP connects are handled). */
  ports: number[];
  /** Parts of the policy this ABI cannot enforce, one sentence each. */
  unenforced: string[];
}

/**
 * Translates a policy into the masks and rules for a kernel of Landlock ABI `abi`.
 * Pure: it opens nothing.
 *
 * @param policy The policy.
 * @param abi The kernel's Landlock ABI (≥ 1).
 * @returns The ruleset; `unenforced` lists what this ABI cannot enforce (TCP before ABI 4).
 * @example
 * ```ts
 * import { assertEquals } from "node:assert/strict";
 * const r = buildRuleset({ read: ["/data"], write: [], exec: [], connectTcp: [] }, 3);
 * assertEquals(r.handledNet, 0n);
 * ```
 */
export function buildRuleset(policy: LandlockPolicy, abi: number): Ruleset {
  const handledFs = fsRightsForAbi(abi);
  const merged = new Map<string, bigint>();
  const add = (paths: string[], access: bigint) => {
    for (const path of paths) merged.set(path, (merged.get(path) ?? 0n) | (access & handledFs));
  };
  add(policy.read, READ);
  add(policy.write, WRITE);
  add(policy.exec, EXEC);
  const unenforced: string[] = [];
  let handledNet = 0n;
  let ports: number[] = [];
  if (abi >= 4) {
    handledNet = NET.BIND_TCP;
    if (policy.connectTcp !== "any") {
      handledNet |= NET.CONNECT_TCP;
      ports = [...new Set(policy.connectTcp)].sort((a, b) => a - b);
    }
  } else if (policy.connectTcp !== "any") {
    unenforced.push(
      `TCP connects are not restricted: Landlock ABI ${abi} has no network rules (needs ABI 4, Linux 6.7)`,
    );
  }
  const scoped = abi >= 6 ? SCOPE.ABSTRACT_UNIX_SOCKET | SCOPE.SIGNAL : 0n;
  const paths = [...merged].map(([path, access]) => ({ path, access }));
  return { abi, handledFs, handledNet, scoped, paths, ports, unenforced };
}

/** The rights a rule may carry on `path`, given whether it is a directory. */
export function ruleAccess(rule: PathRule, isDirectory: boolean): bigint {
  return isDirectory ? rule.access : rule.access & FILE_RIGHTS;
}

/** What {@linkcode restrictSelf} did. */
export interface RestrictReport {
  abi: number;
  /** Policy paths that were skipped because they could not be opened (e.g. do not exist). */
  skipped: { path: string; reason: string }[];
  /** Parts of the policy this kernel cannot enforce. */
  unenforced: string[];
}

const SYS_CREATE_RULESET = 444n;
const SYS_ADD_RULE = 445n;
const SYS_RESTRICT_SELF = 446n;
const CREATE_RULESET_VERSION = 1;
const RULE_PATH_BENEATH = 1;
const RULE_NET_PORT = 2;
const PR_SET_NO_NEW_PRIVS = 38;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
/** O_DIRECTORY is one of the few open flags whose value differs between x86_64 and arm64. */
const O_DIRECTORY = Deno.build.arch === "aarch64" ? 0o40000 : 0o200000;
const ENOTDIR = 20;
const CLONE_NEWNET = 0x40000000;
const LINUX_CAPABILITY_VERSION_3 = 0x20080522;
const CAP_SYS_ADMIN = 21;
/** close_range(2) has the same number on every architecture (Linux 5.9; CLOEXEC 5.11). */
const SYS_CLOSE_RANGE = 436n;
const CLOSE_RANGE_CLOEXEC = 1 << 2;

const SYMBOLS = {
  create_ruleset: { name: "syscall", parameters: ["i64", "buffer", "usize", "u32"], result: "i64" },
  add_rule: { name: "syscall", parameters: ["i64", "i32", "u32", "buffer", "u32"], result: "i64" },
  restrict_self: { name: "syscall", parameters: ["i64", "i32", "u32"], result: "i64" },
  prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
  open: { parameters: ["buffer", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  unshare: { parameters: ["i32"], result: "i32" },
  capget: { parameters: ["buffer", "buffer"], result: "i32" },
  close_range: { name: "syscall", parameters: ["i64", "u32", "u32", "u32"], result: "i64" },
  __errno_location: { parameters: [], result: "pointer" },
  strerror: { parameters: ["i32"], result: "pointer" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

let libc: Libc | null | undefined;

/** Opens libc once; `null` when FFI is not permitted or libc is not found. */
function openLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (Deno.build.os !== "linux") return libc;
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      libc = Deno.dlopen(name, SYMBOLS).symbols;
      break;
    } catch {
      // NotCapable (no --allow-ffi) or not this libc: try the next name, then give up.
    }
  }
  return libc;
}

function errno(c: Libc): number {
  const p = c.__errno_location();
  return p === null ? 0 : new Deno.UnsafePointerView(p).getInt32();
}

function errnoText(c: Libc, code: number): string {
  const p = c.strerror(code);
  const text = p === null ? "" : Deno.UnsafePointerView.getCString(p);
  return `${ERRNO_NAMES[code] ?? `errno ${code}`} (${text})`;
}

const ERRNO_NAMES: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  7: "E2BIG",
  9: "EBADF",
  13: "EACCES",
  14: "EFAULT",
  20: "ENOTDIR",
  22: "EINVAL",
  38: "ENOSYS",
  40: "ELOOP",
  42: "ENOMSG",
  77: "EBADFD",
  95: "EOPNOTSUPP",
};

let cachedAbi: number | undefined;

/**
 * The Landlock ABI version of the running kernel.
 *
 * @returns The ABI (1–7 on current kernels), or 0 when Landlock is unavailable: not
 * Linux, FFI not permitted (`--allow-ffi`), libc not found, a kernel without Landlock
 * (ENOSYS) or with Landlock disabled (EOPNOTSUPP). Never throws.
 */
export function landlockAbi(): number {
  if (cachedAbi !== undefined) return cachedAbi;
  const c = openLibc();
  if (c === null) return 0;
  try {
    const v = Number(c.create_ruleset(SYS_CREATE_RULESET, null, 0n, CREATE_RULESET_VERSION));
    cachedAbi = v > 0 ? v : 0;
  } catch {
    cachedAbi = 0;
  }
  return cachedAbi;
}

/**
 * Confines the calling thread, and every process it starts from now on, to `policy`.
 * Sets `PR_SET_NO_NEW_PRIVS` first (Landlock requires it without CAP_SYS_ADMIN). Paths
 * that cannot be opened are skipped and reported; a rule on a file keeps only the
 * rights a file can carry. Irreversible: call it on a Worker thread, never on the main
 * thread.
 *
 * @param policy What stays allowed.
 * @returns The ABI used, the skipped paths and what this kernel cannot enforce.
 * @throws {LandlockError} When Landlock is unavailable or a system call fails.
 */
export function restrictSelf(policy: LandlockPolicy): RestrictReport {
  const c = openLibc();
  if (c === null) {
    throw new LandlockError(
      "Cannot apply Landlock: libc is not reachable through FFI: run on Linux with --allow-ffi",
    );
  }
  const abi = landlockAbi();
  if (abi === 0) {
    throw new LandlockError(
      "Cannot apply Landlock: the kernel does not support it: run on Linux 5.13 or later with Landlock enabled (lsm=landlock)",
    );
  }
  const rs = buildRuleset(policy, abi);
  const attr = new BigUint64Array([rs.handledFs, rs.handledNet, rs.scoped]);
  const attrSize = abi >= 6 ? 24n : abi >= 4 ? 16n : 8n;
  const fd = Number(
    c.create_ruleset(SYS_CREATE_RULESET, new Uint8Array(attr.buffer), attrSize, 0),
  );
  if (fd < 0) fail(c, "create the Landlock ruleset");
  const skipped: RestrictReport["skipped"] = [];
  try {
    for (const rule of rs.paths) {
      const opened = openPath(c, rule.path);
      if (typeof opened === "string") {
        skipped.push({ path: rule.path, reason: opened });
        continue;
      }
      try {
        const access = ruleAccess(rule, opened.isDirectory);
        if (access === 0n) continue;
        const buf = new Uint8Array(12);
        const view = new DataView(buf.buffer);
        view.setBigUint64(0, access, true);
        view.setInt32(8, opened.fd, true);
        if (Number(c.add_rule(SYS_ADD_RULE, fd, RULE_PATH_BENEATH, buf, 0)) < 0) {
          fail(c, `add the Landlock rule for "${rule.path}"`);
        }
      } finally {
        c.close(opened.fd);
      }
    }
    for (const port of rs.ports) {
      const buf = new Uint8Array(16);
      const view = new DataView(buf.buffer);
      view.setBigUint64(0, NET.CONNECT_TCP, true);
      view.setBigUint64(8, BigInt(port), true);
      if (Number(c.add_rule(SYS_ADD_RULE, fd, RULE_NET_PORT, buf, 0)) < 0) {
        fail(c, `add the Landlock rule for TCP port ${port}`);
      }
    }
    if (c.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) fail(c, "set PR_SET_NO_NEW_PRIVS");
    if (Number(c.restrict_self(SYS_RESTRICT_SELF, fd, 0)) < 0) {
      fail(c, "enforce the Landlock ruleset");
    }
  } finally {
    c.close(fd);
  }
  return { abi, skipped, unenforced: rs.unenforced };
}

/**
 * Marks every fd from 3 up close-on-exec, so that no tool inherits an fd harness itself
 * inherited from whatever started it (an open fd bypasses Landlock, which checks paths
 * when a file is opened). Deno opens its own fds close-on-exec already, and a child's
 * stdio is set up after the fork, so nothing harness means to pass is affected.
 *
 * @returns true when done; false off Linux, without FFI, or before Linux 5.11.
 */
export function closeInheritedFdsOnExec(): boolean {
  const c = openLibc();
  if (c === null) return false;
  try {
    return Number(c.close_range(SYS_CLOSE_RANGE, 3, 0xffffffff, CLOSE_RANGE_CLOEXEC)) === 0;
  } catch {
    return false;
  }
}

/**
 * Whether this process has CAP_SYS_ADMIN in its effective set, and so may move a
 * Worker thread into a new network namespace itself ({@linkcode unshareNetwork}).
 * Asked of the kernel with `capget(2)`: Deno refuses to read `/proc/self/status`
 * without `--allow-all`, which harness never has.
 *
 * @returns false when FFI or libc is unavailable, or the call fails. Never throws.
 */
export function hasCapSysAdmin(): boolean {
  const c = openLibc();
  if (c === null) return false;
  const header = new Uint32Array([LINUX_CAPABILITY_VERSION_3, 0]);
  // Two {effective, permitted, inheritable} triples: capabilities 0–31, then 32–63.
  const data = new Uint32Array(6);
  try {
    if (c.capget(new Uint8Array(header.buffer), new Uint8Array(data.buffer)) !== 0) return false;
  } catch {
    return false;
  }
  return (data[0] & (1 << CAP_SYS_ADMIN)) !== 0;
}

/**
 * Moves the calling thread, and every process it starts from now on, into a new
 * network namespace with no interfaces up: no TCP, UDP or DNS at all. Needs
 * CAP_SYS_ADMIN (root); like Landlock it affects only the calling thread.
 *
 * @throws {LandlockError} When FFI is unavailable or `unshare(CLONE_NEWNET)` fails.
 */
export function unshareNetwork(): void {
  const c = openLibc();
  if (c === null) {
    throw new LandlockError(
      "Cannot create a network namespace: libc is not reachable through FFI: run on Linux with --allow-ffi",
    );
  }
  if (c.unshare(CLONE_NEWNET) !== 0) fail(c, "create a network namespace (unshare CLONE_NEWNET)");
}

function fail(c: Libc, what: string): never {
  const code = errno(c);
  throw new LandlockError(`Cannot ${what}: ${errnoText(c, code)}`, ERRNO_NAMES[code] ?? "");
}

/** Opens `path` with O_PATH, as a directory when it is one; a string is the reason it failed. */
function openPath(c: Libc, path: string): { fd: number; isDirectory: boolean } | string {
  const cPath = new TextEncoder().encode(path + "\0");
  const dirFd = c.open(cPath, O_PATH | O_CLOEXEC | O_DIRECTORY);
  if (dirFd >= 0) return { fd: dirFd, isDirectory: true };
  const code = errno(c);
  if (code !== ENOTDIR) return errnoText(c, code);
  const fileFd = c.open(cPath, O_PATH | O_CLOEXEC);
  if (fileFd >= 0) return { fd: fileFd, isDirectory: false };
  return errnoText(c, errno(c));
}
