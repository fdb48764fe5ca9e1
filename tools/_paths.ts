/**
 * Confines the paths a built-in tool touches to the project directory.
 *
 * A path is relative to the project (absolute paths are accepted when they point
 * inside it). It is refused when it leaves the project lexically (`..`, an absolute
 * path elsewhere) or through a symbolic link: the longest existing prefix is resolved
 * with `Deno.realPath`, and a dangling link is followed by hand, so a file to be
 * created behind a link that points outside is refused too. This check matters: Deno's
 * own read/write permissions do not resolve symbolic links (measured: a worker with
 * `read:[project]` reads `project/link -> /etc/x`).
 *
 * Paths are POSIX paths (`/` separators); Windows drive paths are not handled.
 * Between the check and the use a concurrent process could swap a directory for a
 * link; the tools use the resolved real path to keep that window small.
 *
 * @module
 */

/** Options of {@linkcode resolveInProject}. */
export interface ResolveOptions {
  /** The path must exist. */
  mustExist?: boolean;
  /** The path will be written: it must not be the project directory itself. */
  forWrite?: boolean;
}

/** A path that passed the check. */
export interface ResolvedPath {
  /** The path passed. */
  ok: true;
  /** Absolute path with every existing symbolic link resolved, inside the project. */
  path: string;
  /** The path relative to the project (`.` for the project itself), for messages. */
  relative: string;
  /** Whether the path exists. */
  exists: boolean;
}

/** A path that was refused, with a message for the model. */
export interface RefusedPath {
  /** The path was refused. */
  ok: false;
  /** Why, and the fix. */
  message: string;
}

/** How many symbolic links are followed by hand before giving up (as Linux's ELOOP). */
export const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves `p` inside `projectDir`, refusing anything that leaves it.
 *
 * @param projectDir Absolute real path of the project.
 * @param p The path from the model, relative to the project or absolute.
 * @param opts Whether it must exist, whether it will be written.
 * @returns The resolved path, or a refusal whose message says the fix.
 */
export async function resolveInProject(
  projectDir: string,
  p: string,
  opts: ResolveOptions = {},
): Promise<ResolvedPath | RefusedPath> {
  const refuse = (message: string): RefusedPath => ({ ok: false, message });
  const outside = () =>
    refuse(`Path "${p}" is outside the project "${projectDir}": use a path inside the project`);
  if (typeof p !== "string" || p.trim() === "") {
    return refuse(`Path is empty: pass a path relative to the project, such as "."`);
  }
  if (p.includes("\0")) return refuse(`Path "${p.replaceAll("\0", "\\0")}" contains a NUL byte`);
  const root = normalize(projectDir);
  const lexical = normalize(p.startsWith("/") ? p : `${root}/${p}`);
  if (!isInside(root, lexical)) return outside();

  let real: { path: string; exists: boolean } | "outside";
  try {
    real = await realPathLenient(root, lexical, 0);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) return outside();
    if (err instanceof Deno.errors.NotADirectory) {
      return refuse(`Path "${p}" goes through a file as if it were a directory: check the path`);
    }
    if (err instanceof Deno.errors.FilesystemLoop || err instanceof SymlinkLoop) {
      return refuse(`Path "${p}" has too many levels of symbolic links: check the links`);
    }
    return refuse(`Cannot resolve path "${p}": ${err instanceof Error ? err.message : err}`);
  }
  if (real === "outside" || !isInside(root, real.path)) {
    return p.startsWith("/") || p.split("/").includes("..") ? outside() : refuse(
      `Path "${p}" leads outside the project "${projectDir}" through a symbolic link: use a path inside the project`,
    );
  }
  if (opts.mustExist && !real.exists) {
    return refuse(`Path "${p}" does not exist: check the name with list_dir`);
  }
  if (opts.forWrite && real.path === root) {
    return refuse(`Path "${p}" is the project directory itself: name a file inside it`);
  }
  return { ok: true, path: real.path, relative: relativeTo(root, real.path), exists: real.exists };
}

class SymlinkLoop extends Error {}

/**
 * `Deno.realPath` for paths that may not exist: resolves the longest existing prefix,
 * follows dangling links by hand, and keeps the missing rest as is. Stops with
 * `"outside"` as soon as a link target leaves the project lexically, so nothing
 * outside is ever touched.
 */
async function realPathLenient(
  root: string,
  abs: string,
  hops: number,
): Promise<{ path: string; exists: boolean } | "outside"> {
  if (!isInside(root, abs)) return "outside";
  try {
    return { path: await Deno.realPath(abs), exists: true };
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (abs === root) throw new Deno.errors.NotFound(`Project directory "${root}" does not exist`);
  let info: Deno.FileInfo | undefined;
  try {
    info = await Deno.lstat(abs);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (info?.isSymlink) {
    if (hops >= MAX_SYMLINK_HOPS) throw new SymlinkLoop();
    const target = await Deno.readLink(abs);
    const parentReal = await realPathLenient(root, dirname(abs), hops);
    if (parentReal === "outside") return "outside";
    const next = normalize(target.startsWith("/") ? target : `${parentReal.path}/${target}`);
    return await realPathLenient(root, next, hops + 1);
  }
  const parent = await realPathLenient(root, dirname(abs), hops);
  if (parent === "outside") return "outside";
  return { path: join(parent.path, basename(abs)), exists: false };
}

/**
 * Normalizes a POSIX path lexically: collapses `.`, `..` and repeated slashes.
 *
 * @param p An absolute or relative path.
 * @returns The normalized path (`.` for an empty relative path).
 */
export function normalize(p: string): string {
  const absolute = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(part);
  }
  const joined = out.join("/");
  return absolute ? `/${joined}` : joined === "" ? "." : joined;
}

/** Joins two POSIX path segments and normalizes. */
export function join(a: string, b: string): string {
  return normalize(`${a}/${b}`);
}

/** The parent directory of an absolute POSIX path (`/` for `/`). */
export function dirname(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

/** The last segment of a POSIX path. */
export function basename(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

/** Whether the absolute path `p` is `root` or below it. Both must be normalized. */
export function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root === "/" ? "/" : `${root}/`);
}

/**
 * The path of `p` relative to `root`, `.` for the root itself.
 *
 * @param root A normalized absolute directory.
 * @param p A normalized absolute path inside `root`.
 * @returns The relative path.
 */
export function relativeTo(root: string, p: string): string {
  if (p === root) return ".";
  return p.slice(root === "/" ? 1 : root.length + 1);
}
