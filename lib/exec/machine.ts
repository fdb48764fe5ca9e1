/**
 * What this machine offers for confinement: Landlock, FFI, network namespaces.
 *
 * @module
 */
import { hasCapSysAdmin, landlockAbi } from "./landlock.ts";

/** What this machine offers for confinement. */
export interface MachineCaps {
  /** `Deno.build.os`. */
  os: string;
  /** 0 when unavailable. */
  landlockAbi: number;
  /** Whether this process may use FFI (`--allow-ffi`). */
  ffi: boolean;
  /** Absolute path of bubblewrap, or null. */
  bwrap: string | null;
  /** Absolute path of util-linux `unshare`, or null. */
  unshare: string | null;
  /** Whether unprivileged user namespaces work (`unshare --user --net`); probed only without CAP_SYS_ADMIN. */
  userns: boolean;
  /** Whether this process may create a network namespace directly (CAP_SYS_ADMIN); known only with FFI. */
  netnsPrivileged: boolean;
}

/** The PATH used to resolve program names when none is given. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Resolves a program name through PATH.
 *
 * @param program An absolute path (returned when it exists) or a bare name.
 * @param path A PATH value.
 * @returns The absolute path of an existing file, or undefined.
 */
export function resolveProgram(program: string, path: string): string | undefined {
  if (program.includes("/")) return exists(program) ? program : undefined;
  for (const dir of path.split(":")) {
    if (dir === "" || !dir.startsWith("/")) continue;
    const candidate = `${dir}/${program}`;
    try {
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

let probed: Promise<MachineCaps> | undefined;

/**
 * Finds what this machine offers for confinement. Cached after the first call; the
 * first call costs a few milliseconds (one `unshare --user --net true` when the process
 * is not privileged). Never throws: anything it may not inspect counts as missing.
 *
 * @returns The machine's capabilities.
 */
export function probeMachine(): Promise<MachineCaps> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<MachineCaps> {
  const os = Deno.build.os;
  const ffi = Deno.permissions.querySync({ name: "ffi" }).state === "granted";
  const caps: MachineCaps = {
    os,
    landlockAbi: 0,
    ffi,
    bwrap: null,
    unshare: null,
    userns: false,
    netnsPrivileged: false,
  };
  if (os !== "linux") return caps;
  if (ffi) caps.landlockAbi = landlockAbi();
  let path = DEFAULT_PATH;
  try {
    path = Deno.env.get("PATH") ?? DEFAULT_PATH;
  } catch {
    // No env permission: the default PATH.
  }
  caps.bwrap = resolveProgram("bwrap", path) ?? null;
  caps.unshare = resolveProgram("unshare", path) ?? null;
  caps.netnsPrivileged = hasCapSysAdmin();
  // With CAP_SYS_ADMIN the Worker unshares its own thread: user namespaces are not
  // needed, so the ~10 ms probe is skipped.
  if (caps.unshare !== null && !caps.netnsPrivileged) {
    caps.userns = await succeeds(caps.unshare, ["--user", "--net", "true"]);
  }
  return caps;
}

async function succeeds(program: string, args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(program, { args, stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}
