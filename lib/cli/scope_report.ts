/**
 * The effective scope of a tool and, per entry, which layer enforces it on this
 * machine (for `harness tools show`).
 *
 * @module
 */
import type { Config } from "../config/load.ts";
import { HarnessError } from "../errors.ts";
import { CallPath } from "../exec/call.ts";
import { probeMachine } from "../exec/confine.ts";
import { WorkerPool } from "../exec/worker_pool.ts";
import type { ToolDefinition } from "../types.ts";
import { userApproves } from "./cmd_call.ts";
import type { Io } from "./io.ts";

/**
 * Describes the scope of a tool as it would run now, without running anything.
 *
 * @returns Lines for the text view and an object for `--json`.
 */
export async function describeScope(
  tool: ToolDefinition,
  config: Config,
  io: Io,
): Promise<{ text: string[]; json: unknown }> {
  const caps = await probeMachine();
  const pool = new WorkerPool();
  try {
    const calls = new CallPath({
      config,
      lookup: (n) => (n === tool.name ? tool : undefined),
      names: () => [tool.name],
      approve: userApproves,
      pool,
      caps,
      env: io.envObject(),
    });
    const plan = calls.plan(tool, { args: {} });
    const s = plan.resolution.scope;
    const show = (
      v: true | string[],
    ) => (v === true ? "unrestricted" : v.length === 0 ? "none" : v.join(", "));
    const text = [
      `  mode:   ${config.sandbox}${
        plan.resolution.declared ? "" : " (tool undeclared: default scope)"
      }`,
      `  read:   ${show(s.read)}`,
      `  write:  ${show(s.write)}`,
      `  net:    ${show(s.net)}`,
      `  env:    ${show(s.env)}`,
      `  run:    ${s.run.join(", ") || "none"}`,
      ...plan.resolution.notes.map((n) => `  note:   ${n}`),
      "",
      "  Enforcement on this machine:",
      ...plan.confinement.layers.map((l) =>
        `    ${l.kind.padEnd(5)} ${l.entry}: ${
          l.enforcedBy.length ? l.enforcedBy.join(" + ") : "NOT ENFORCED"
        }${l.note ? ` (${l.note})` : ""}`
      ),
    ];
    if (plan.confinement.refused) {
      text.push(`  refused in strict mode: ${plan.confinement.refused}`);
    }
    return {
      text,
      json: {
        ...plan.resolution,
        layers: plan.confinement.layers,
        netns: plan.confinement.netns,
        refused: plan.confinement.refused ?? null,
      },
    };
  } catch (error) {
    if (error instanceof HarnessError) {
      return {
        text: [
          `  cannot run here: ${error.message}`,
          ...(error.hint ? [`  hint: ${error.hint}`] : []),
        ],
        json: { error: error.message, hint: error.hint ?? null },
      };
    }
    throw error;
  } finally {
    pool.close();
  }
}
