/**
 * Starts `builtin_worker.ts` with a given permission scope and sends it calls.
 *
 * @module
 */
import type { BuiltinPermissions, BuiltinResult } from "../../tools/mod.ts";
import type { BuiltinWorkerRequest } from "./builtin_worker.ts";

/** The reply of the test worker. */
export type BuiltinWorkerReply = { result: BuiltinResult } | { error: string };

/** A running test worker. */
export interface BuiltinWorkerHandle {
  /** Sends one request and waits for its reply. */
  call(request: DistributiveOmit<BuiltinWorkerRequest, "id">): Promise<BuiltinWorkerReply>;
  /** Terminates the worker. */
  close(): void;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Starts the test worker with exactly `permissions` (kinds left out are denied).
 *
 * @param permissions The scope, as `BuiltinTool.permissions()` returns it.
 * @returns The handle; close it at the end of the test.
 */
export function startBuiltinWorker(permissions: BuiltinPermissions): BuiltinWorkerHandle {
  const worker = new Worker(new URL("./builtin_worker.ts", import.meta.url), {
    type: "module",
    deno: {
      permissions: {
        read: listOrNone(permissions.read),
        write: listOrNone(permissions.write),
        net: listOrNone(permissions.net),
        env: listOrNone(permissions.env),
        run: listOrNone(permissions.run),
        ffi: false,
        sys: false,
        import: false,
      },
    },
  });
  let next = 0;
  const pending = new Map<number, (reply: BuiltinWorkerReply) => void>();
  worker.onmessage = (e: MessageEvent<{ id: number } & BuiltinWorkerReply>) => {
    const { id, ...reply } = e.data;
    pending.get(id)?.(reply as BuiltinWorkerReply);
    pending.delete(id);
  };
  worker.onerror = (e) => {
    e.preventDefault();
    for (const resolve of pending.values()) resolve({ error: `WorkerError: ${e.message}` });
    pending.clear();
  };
  return {
    call(request) {
      const id = next++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        worker.postMessage({ ...request, id });
      });
    },
    close() {
      worker.terminate();
    },
  };
}

/** An absent or empty list means "none of this kind", never "all". */
function listOrNone(list: string[] | undefined): string[] | false {
  return list !== undefined && list.length > 0 ? list : false;
}
