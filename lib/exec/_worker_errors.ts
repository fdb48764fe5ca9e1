/**
 * The errors a WorkerPool throws, and how a refused Worker construction is turned
 * into the permission harness lacks and the flag that grants it.
 *
 * @module
 */
import { DeniedError, ExitCode, HarnessError } from "../errors.ts";

/** Harness itself lacks a permission a tool's Worker needs (exit 5). */
export class WorkerPermissionError extends DeniedError {
  /** The Deno permission kind, e.g. `ffi`. */
  readonly permission: string;
  /** The `deno run` flag that grants it, e.g. `--allow-ffi`. */
  readonly flag: string;

  /**
   * @param permission The missing permission kind.
   * @param value The missing entry, when a list entry is missing.
   */
  constructor(permission: string, value?: string) {
    const flag = value === undefined ? `--allow-${permission}` : `--allow-${permission}=${value}`;
    super(
      `Cannot start a tool Worker: harness itself lacks the "${permission}" permission${
        value === undefined ? "" : ` for "${value}"`
      } the tool needs: run harness with ${flag}`,
      { hint: flag },
    );
    this.name = "WorkerPermissionError";
    this.permission = permission;
    this.flag = flag;
  }
}

/** A tool Worker could not confine itself, crashed or stopped answering (exit 1). */
export class WorkerError extends HarnessError {
  /**
   * @param message What happened, and the fix when there is one.
   * @param options `cause`: the underlying error.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, ExitCode.Failed, options);
    this.name = "WorkerError";
  }
}

/**
 * Names the permission harness lacks for a Worker, by querying this process's grant
 * for each kind and entry the Worker asks for.
 */
export function missingPermission(perms: Deno.PermissionOptionsObject, cause: Error): Error {
  for (const [kind, value] of Object.entries(perms)) {
    if (value === false || value === undefined || value === "none") continue;
    const entries = Array.isArray(value) ? value.map(String) : [undefined];
    for (const entry of entries) {
      const state = Deno.permissions.querySync(descriptor(kind, entry)).state;
      if (state !== "granted") return new WorkerPermissionError(kind, entry);
    }
  }
  return new WorkerError(`Cannot start a tool Worker: ${cause.message}`, { cause });
}

function descriptor(kind: string, entry: string | undefined): Deno.PermissionDescriptor {
  const field: Record<string, string> = {
    read: "path",
    write: "path",
    net: "host",
    env: "variable",
    run: "command",
    ffi: "path",
    sys: "kind",
    import: "host",
  };
  const d: Record<string, string> = { name: kind };
  if (entry !== undefined && field[kind] !== undefined) d[field[kind]] = entry;
  return d as unknown as Deno.PermissionDescriptor;
}
