/**
 * The body of a tool Worker: confine the thread on `init`, then serve process and
 * module calls by message. `worker_main.ts` serves the built-in tools with it; tests
 * serve test modules with it. Kept free of npm imports: a worker that imports one
 * starts in ~67 ms instead of ~15 ms (DENO-NOTES §2).
 *
 * @module
 */
import { restrictSelf, unshareNetwork } from "./landlock.ts";
import { runProcess, setThreadProcessDefaults } from "./process.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

/** A built-in tool module: what `tools/mod.ts` exports per tool. */
export interface ToolModule {
  execute(args: unknown, ctx: unknown): Promise<{ content: string; isError?: boolean }>;
}

/** Tool modules by id, all statically imported (a compiled binary must embed them). */
export type ModuleMap = Readonly<Record<string, ToolModule>>;

interface WorkerScope {
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker): void;
}

/**
 * Serves calls on this Worker thread.
 *
 * @param modules The modules `module` calls may name.
 * @param scope The worker global (injectable for tests). @default `self`
 */
export function serveWorker(
  modules: ModuleMap,
  scope: WorkerScope = self as unknown as WorkerScope,
): void {
  const post = (m: FromWorker) => scope.postMessage(m);
  const aborts = new Map<number, AbortController>();
  let groupKill = false;

  // Without FFI this thread may not kill a process group: the parent does it.
  const killViaParent = (pid: number, signal: Deno.Signal) => {
    if (!groupKill) return false;
    post({ type: "kill", pid, signal });
    return true;
  };

  const onProcess = async (id: number, msg: Extract<ToWorker, { type: "process" }>) => {
    const ac = new AbortController();
    aborts.set(id, ac);
    try {
      const result = await runProcess(msg.spec, {
        signal: ac.signal,
        onSpawn: (pid) => post({ type: "spawned", id, pid }),
      });
      post({ type: "process-result", id, result });
    } catch (err) {
      post({ type: "call-error", id, message: describeError(err) });
    } finally {
      aborts.delete(id);
    }
  };

  const onModule = async (msg: Extract<ToWorker, { type: "module" }>) => {
    const mod = Object.hasOwn(modules, msg.moduleId) ? modules[msg.moduleId] : undefined;
    if (mod === undefined) {
      post({
        type: "module-result",
        id: msg.id,
        content: `Unknown built-in tool module "${msg.moduleId}": it is not in the module map`,
        isError: true,
      });
      return;
    }
    const ac = new AbortController();
    aborts.set(msg.id, ac);
    const ctx = msg.ctx !== null && typeof msg.ctx === "object"
      ? { ...msg.ctx, signal: ac.signal }
      : msg.ctx;
    try {
      const out = await mod.execute(msg.args, ctx);
      post({ type: "module-result", id: msg.id, content: out.content, isError: !!out.isError });
    } catch (err) {
      post({ type: "module-result", id: msg.id, content: describeError(err), isError: true });
    } finally {
      aborts.delete(msg.id);
    }
  };

  scope.onmessage = (e) => {
    const msg = e.data;
    switch (msg.type) {
      case "init":
        try {
          groupKill = msg.groupKill;
          setThreadProcessDefaults({ killGroup: killViaParent, setsid: msg.setsid });
          if (msg.netns) unshareNetwork();
          const report = msg.landlock ? restrictSelf(msg.landlock) : undefined;
          post(report ? { type: "ready", report } : { type: "ready" });
        } catch (err) {
          const errno = (err as { errno?: string }).errno;
          post({ type: "init-error", message: describeError(err), ...(errno ? { errno } : {}) });
        }
        return;
      case "process":
        void onProcess(msg.id, msg);
        return;
      case "module":
        void onModule(msg);
        return;
      case "abort":
        aborts.get(msg.id)?.abort();
        return;
    }
  };
}

/**
 * A message for an error thrown inside a Worker. A Deno permission denial is
 * rewritten to name the tool permission to add, instead of a `deno run` flag.
 */
export function describeError(err: unknown): string {
  if (err instanceof Deno.errors.NotCapable) {
    const m = /Requires (\w+) access to "?([^",]*)"?/.exec(err.message);
    if (m) {
      return `Permission denied: the tool may not use ${m[1]} "${m[2]}": add it to the tool's "${
        m[1]
      }" permission`;
    }
    return `Permission denied: ${err.message.replace(/, run again with.*$/, "")}`;
  }
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
