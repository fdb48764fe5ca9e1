/**
 * Path arithmetic on strings, without touching the file system and without
 * `node:path`, whose import starts Deno's Node compatibility layer (startup cost,
 * docs/benchmarks.md).
 *
 * @module
 */

/** The parent directory of an absolute POSIX or Windows path. */
export function dirname(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (i < 0) return ".";
  if (i === 0) return "/";
  return path.slice(0, i);
}

/** Resolves `path` against `base` unless it is absolute, normalizing `.` and `..`. */
export function resolvePath(base: string, path: string): string {
  const abs = path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) ? path : `${base}/${path}`;
  const parts: string[] = [];
  for (const part of abs.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return /^[A-Za-z]:/.test(abs) ? parts.join("/") : "/" + parts.join("/");
}
