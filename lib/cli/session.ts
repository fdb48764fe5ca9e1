/**
 * A session: configuration, registry, worker pool and call path, opened once per
 * command that runs tools (`tools call`, `run`, `chat`) and closed at the end.
 *
 * @module
 */
import type { Config } from "../config/load.ts";
import { CallPath } from "../exec/call.ts";
import type { ApprovalPolicy } from "../exec/call_types.ts";
import { type MachineCaps, probeMachine } from "../exec/confine.ts";
import { closeInheritedFdsOnExec } from "../exec/landlock.ts";
import { WorkerPool } from "../exec/worker_pool.ts";
import { enabledBuiltins } from "../tools/builtins.ts";
import { projectSources, type RegistrySnapshot, ToolRegistry } from "../tools/registry.ts";
import type { JsonObject } from "../types.ts";
import type { CommandContext } from "./context.ts";

/** An open session. */
export interface Session {
  config: Config;
  caps: MachineCaps;
  /** Re-scans the tool sources (stat-cached) and returns the current tools. */
  refresh(): Promise<RegistrySnapshot>;
  /** The tools of the last refresh. */
  current(): RegistrySnapshot;
  calls: CallPath;
  /** Stops the workers and removes the temp dir. */
  close(): Promise<void>;
}

/**
 * Opens a session.
 *
 * @param ctx The command context.
 * @param approve The approval policy of the calls.
 */
export async function openSession(ctx: CommandContext, approve: ApprovalPolicy): Promise<Session> {
  // The probe may start a subprocess (user namespaces): let it run while config and tools load.
  const probing = probeMachine();
  const config = await ctx.config();
  const registry = new ToolRegistry(config, projectSources(config, ctx.io.getEnv));
  let snapshot = await registry.refresh();
  const caps = await probing;
  // No tool may inherit an fd harness inherited: Landlock would not see it.
  closeInheritedFdsOnExec();
  const pool = new WorkerPool();
  // Without write access harness cannot make a private TMPDIR: tools then get none.
  const tmpDir = await Deno.makeTempDir({ prefix: "harness-tools-" }).catch(() => undefined);
  const builtinOptions: Record<string, JsonObject> = {};
  for (const { name, options } of enabledBuiltins(config)) builtinOptions[name] = options;
  const calls = new CallPath({
    config,
    lookup: (name) => snapshot.byName.get(name),
    names: () => [...snapshot.byName.keys()],
    approve,
    pool,
    caps,
    env: ctx.io.envObject(),
    ...(tmpDir ? { tmpDir } : {}),
    builtinOptions,
  });
  return {
    config,
    caps,
    async refresh() {
      snapshot = await registry.refresh();
      return snapshot;
    },
    current: () => snapshot,
    calls,
    async close() {
      pool.close();
      if (tmpDir) await Deno.remove(tmpDir, { recursive: true }).catch(() => {});
    },
  };
}
