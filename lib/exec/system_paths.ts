/**
 * The system paths a confined tool may touch besides its scope: what starting a
 * program needs, and nothing under /root, /home or /tmp.
 *
 * @module
 */

/**
 * Paths every confined program may read (and, for the program directories, execute),
 * because starting a program needs them. Nothing under /root, /home or /tmp.
 * - `/usr`: programs, shared libraries and their data (locales, zoneinfo, terminfo).
 * - `/bin`, `/sbin`: programs; symlinks into /usr on merged-/usr systems, real elsewhere.
 * - `/lib`, `/lib32`, `/lib64`, `/libx32`: shared libraries and the dynamic loader.
 * - `/etc/ld.so.cache`: the dynamic loader's index of libraries.
 * - `/etc/localtime`: the time zone, for `date` and timestamps.
 * - `/etc/nsswitch.conf`, `/etc/passwd`, `/etc/group`: user and group names (`id`,
 *   `ls -l`, git and ssh look up the current user). No password hashes: those live in
 *   /etc/shadow, which is never granted.
 * - `/etc/ssl`, `/etc/ca-certificates`, `/etc/pki`: CA certificates for TLS clients.
 * - `/dev/zero`, `/dev/random`, `/dev/urandom`, `/dev/full`: harmless character devices.
 *
 * Deliberately absent: `/dev/tty` (tools run in their own session without a
 * controlling terminal, so it would fail with ENXIO anyway, and must not reach the
 * user's terminal), and `/proc` (a rule on `/proc/self` would name the harness
 * process, not the tool, and all of /proc exposes every process's command line; a
 * tool that needs it declares `read: ["/proc"]`).
 */
export const SYSTEM_READ_PATHS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc/ld.so.cache",
  "/etc/localtime",
  "/etc/nsswitch.conf",
  "/etc/passwd",
  "/etc/group",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
  "/dev/full",
];

/** The subset of {@linkcode SYSTEM_READ_PATHS} whose files may be executed. */
export const SYSTEM_EXEC_PATHS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
];

/** Paths every confined program may write: `/dev/null` (`> /dev/null` is everywhere). */
export const SYSTEM_WRITE_PATHS: readonly string[] = ["/dev/null"];

/** Name-resolution files, readable only when the scope allows some network. */
export const NET_READ_PATHS: readonly string[] = [
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/services",
  "/etc/protocols",
];
