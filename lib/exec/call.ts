/**
 * The one call path, used by `harness tools call` and the chat loop:
 * look up → parse and validate the arguments against the tool's schema → approval
 * → effective scope → confinement plan → runner (a scoped Worker) → rendered result.
 *
 * Every failure becomes a {@linkcode CallResult} the model can act on; nothing here
 * throws for a bad call.
 *
 * @module
 */
import type { Config } from "../config/load.ts";
import { DeniedError, HarnessError } from "../errors.ts";
import type { JsonObject, ToolDefinition } from "../types.ts";
import type { ApprovalPolicy, CallFailure, CallRequest, CallResult } from "./call_types.ts";
import {
  type Confinement,
  type MachineCaps,
  planConfinement,
  workerKeyFor,
  wrapSpec,
} from "./confine.ts";
import { prepareCall, renderResult } from "./conventions/mod.ts";
import type { Prepared } from "./conventions/types.ts";
import type { ProcessResult } from "./process.ts";
import { resolveScope, type ScopeResolution } from "./scope.ts";
import { ArgumentValidator } from "./validate_args.ts";
import type { WorkerPool } from "./worker_pool.ts";

/** What the call path needs. */
export interface CallPathDeps {
  config: Config;
  /** The current tools, by name (refreshed by the caller every turn). */
  lookup: (name: string) => ToolDefinition | undefined;
  /** All tool names, for "unknown tool" messages. */
  names: () => string[];
  approve: ApprovalPolicy;
  pool: WorkerPool;
  caps: MachineCaps;
  /** The environment of the harness process (each tool gets a filtered copy). */
  env: Record<string, string>;
  /** A private temp dir for tools (TMPDIR), writable inside the sandbox. */
  tmpDir?: string;
  /** Options of enabled built-ins, by name. */
  builtinOptions?: Record<string, JsonObject>;
  now?: () => number;
}

/** What `--dry-run` shows: everything that would run, nothing run. */
export interface DryRun {
  tool: string;
  format: string;
  argv: string[];
  script?: string;
  stdin: string;
  envNames: string[];
  cwd: string;
  scope: ScopeResolution;
  confinement: Confinement;
}

/** Names whose values `--dry-run` masks. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;

/** The call path; one per run (it caches validators and keeps the worker pool). */
export class CallPath {
  #deps: CallPathDeps;
  #validator = new ArgumentValidator();
  #warmed = new WeakSet<ToolDefinition>();

  /** @param deps What the call path needs. */
  constructor(deps: CallPathDeps) {
    this.#deps = deps;
  }

  /**
   * Calls a tool.
   *
   * @param request The tool name and arguments.
   * @param signal Aborts the call (the process tree is killed).
   * @returns The result, also for failures and denials.
   */
  async call(request: CallRequest, signal?: AbortSignal): Promise<CallResult> {
    const started = (this.#deps.now ?? performance.now.bind(performance))();
    const elapsed = () =>
      Math.round((this.#deps.now ?? performance.now.bind(performance))() - started);
    const checked = await this.#check(request);
    if ("failure" in checked) return { ...checked.failure, durationMs: elapsed() };
    const { tool, args } = checked;

    const decision = await this.#deps.approve(tool, args, request.id);
    if (!decision.approved) {
      return failed(
        `Denied: ${decision.reason}. Do not retry this call; continue without it or ask the user.`,
        "denied",
        elapsed(),
        {
          reason: decision.reason,
          by: decision.by,
          ...(decision.hint ? { hint: decision.hint } : {}),
        },
      );
    }
    let plan: ReturnType<CallPath["plan"]>;
    try {
      plan = this.plan(tool, {
        args,
        ...(request.rawArguments !== undefined ? { rawArguments: request.rawArguments } : {}),
      });
    } catch (error) {
      if (error instanceof DeniedError) {
        return failed(`Denied: ${error.message}.`, "denied", elapsed(), {
          reason: error.message,
          by: "permission",
          ...(error.hint ? { hint: error.hint } : {}),
        });
      }
      throw error;
    }
    if (plan.confinement.refused) {
      return failed(`Refused: ${plan.confinement.refused}.`, "refused", elapsed(), {
        reason: plan.confinement.refused,
      });
    }
    const warnings = missingLayers(tool.name, plan.confinement);
    const key = workerKeyFor(
      plan.resolution.scope,
      plan.confinement,
      plan.prepared ? plan.prepared.spec.program : null,
    );
    try {
      if (!plan.prepared) {
        const out = await this.#deps.pool.runModule(key, tool.name, args, {
          projectDir: this.#deps.config.projectDir,
          options: this.#deps.builtinOptions?.[tool.name] ?? {},
        }, { ...(signal ? { signal } : {}), timeoutMs: tool.timeoutMs });
        return {
          ok: !out.isError,
          content: out.content,
          exitCode: null,
          signal: null,
          timedOut: false,
          truncated: false,
          durationMs: elapsed(),
          ...(out.isError ? { failure: "tool-failed" as const } : {}),
          warnings,
        };
      }
      const spec = wrapSpec(plan.prepared.spec, plan.confinement);
      const result = await this.#deps.pool.runProcess(key, spec, signal ? { signal } : {});
      return this.#result(tool, result, plan.prepared, elapsed(), warnings);
    } catch (error) {
      if (error instanceof DeniedError) {
        return failed(`Denied: ${error.message}.`, "denied", elapsed(), {
          reason: error.message,
          by: "permission",
          ...(error.hint ? { hint: error.hint } : {}),
        });
      }
      if (error instanceof HarnessError) {
        return failed(
          `The tool could not run: ${error.message}${error.hint ? ` (${error.hint})` : ""}.`,
          "tool-failed",
          elapsed(),
        );
      }
      throw error;
    }
  }

  /**
   * Everything that would run for a call, without running it.
   *
   * @throws {HarnessError} For an unknown tool or invalid arguments (exit 2), or a denial (exit 5).
   */
  async dryRun(request: CallRequest): Promise<DryRun> {
    const checked = await this.#check(request);
    if ("failure" in checked) {
      throw new HarnessError(
        checked.failure.content,
        checked.failure.failure === "unknown-tool" ||
          checked.failure.failure === "invalid-arguments"
          ? 2
          : 5,
      );
    }
    const { tool, args } = checked;
    const plan = this.plan(tool, {
      args,
      ...(request.rawArguments !== undefined ? { rawArguments: request.rawArguments } : {}),
    });
    const p = plan.prepared;
    const wrapped = p ? wrapSpec(p.spec, plan.confinement) : undefined;
    return {
      tool: tool.name,
      format: tool.source.format,
      argv: wrapped ? [wrapped.program, ...wrapped.args] : [`builtin:${tool.name}`],
      ...(p?.script !== undefined ? { script: p.script } : {}),
      stdin: p ? p.display.stdin : JSON.stringify(args),
      envNames: p ? p.display.envNames : [],
      cwd: p ? p.display.cwd : this.#deps.config.projectDir,
      scope: plan.resolution,
      confinement: plan.confinement,
    };
  }

  /**
   * Starts the Worker a call of `tool` would use, ahead of the call (the Worker start
   * then overlaps the model request). Does nothing when the call could not run.
   *
   * @param tool The tool.
   */
  warm(tool: ToolDefinition): void {
    // Once per definition: the loop warms on every call, and a plan costs ≈0.1 ms. An
    // evicted Worker is started again by the call itself.
    if (this.#warmed.has(tool)) return;
    this.#warmed.add(tool);
    try {
      const plan = this.plan(tool, { args: {} });
      if (plan.confinement.refused) return;
      const program = plan.prepared ? plan.prepared.spec.program : null;
      this.#deps.pool.warm(workerKeyFor(plan.resolution.scope, plan.confinement, program));
    } catch {
      // A denied or unpreparable tool is reported when it is called.
    }
  }

  /**
   * Resolves the scope, prepares the process (for subprocess tools) and plans the
   * confinement of a call.
   *
   * @throws {DeniedError} When the scope needs a permission harness lacks.
   */
  plan(
    tool: ToolDefinition,
    input: { args: JsonObject; rawArguments?: string },
  ): { resolution: ScopeResolution; prepared?: Prepared; confinement: Confinement } {
    const config = this.#deps.config;
    const resolution = resolveScope(tool, config);
    if (tool.runner.kind === "module") {
      const confinement = planConfinement(
        resolution.scope,
        this.#deps.caps,
        config.sandbox,
        null,
        config.projectDir,
      );
      return { resolution, confinement };
    }
    const env = filterEnv(this.#deps.env, resolution.scope.env, resolution.withheld);
    if (this.#deps.tmpDir) env.TMPDIR = this.#deps.tmpDir;
    const prepared = prepareCall(tool, input, {
      projectDir: config.projectDir,
      env,
      timeoutMs: tool.timeoutMs,
      maxOutputBytes: config.tools.defaults.maxOutputBytes,
    });
    if (!resolution.scope.run.includes(prepared.spec.program)) {
      resolution.scope.run = [prepared.spec.program, ...resolution.scope.run];
    }
    const confinement = planConfinement(
      resolution.scope,
      this.#deps.caps,
      config.sandbox,
      prepared.spec.program,
      config.projectDir,
      {
        ...(this.#deps.tmpDir ? { tmpDir: this.#deps.tmpDir } : {}),
        ...(env.PATH ? { path: env.PATH } : {}),
      },
    );
    return { resolution, prepared, confinement };
  }

  async #check(
    request: CallRequest,
  ): Promise<{ tool: ToolDefinition; args: JsonObject } | { failure: CallResult }> {
    const tool = this.#deps.lookup(request.name);
    if (!tool) {
      const names = this.#deps.names();
      return {
        failure: failed(
          `Unknown tool "${request.name}". Available tools: ${
            names.join(", ") || "(none)"
          }. Call one of them instead.`,
          "unknown-tool",
          0,
        ),
      };
    }
    let args: unknown = request.args;
    if (args === undefined) {
      const text = (request.rawArguments ?? "").trim();
      try {
        args = text === "" ? {} : JSON.parse(text);
      } catch (error) {
        return {
          failure: failed(
            `Arguments of "${tool.name}" are not valid JSON (${
              (error as Error).message
            }). Send the call again with a JSON object as arguments.`,
            "invalid-arguments",
            0,
          ),
        };
      }
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      return {
        failure: failed(
          `Arguments of "${tool.name}" must be a JSON object, got ${
            Array.isArray(args) ? "an array" : JSON.stringify(args)
          }. Send an object such as {"name": "value"}.`,
          "invalid-arguments",
          0,
        ),
      };
    }
    const problem = await this.#validator.validate(tool, args);
    if (problem?.kind === "schema") {
      // No arguments can satisfy a schema that does not compile: the model cannot fix it.
      return {
        failure: failed(
          `Tool "${tool.name}" cannot be called: ${problem.message}. Do not retry this call; continue without it`,
          "tool-failed",
          0,
        ),
      };
    }
    if (problem) {
      return {
        failure: failed(
          `Tool "${tool.name}" was called with invalid arguments: ${problem.message}. Rewrite the arguments so they satisfy the tool's schema: ${
            JSON.stringify(tool.parameters)
          }`,
          "invalid-arguments",
          0,
        ),
      };
    }
    return { tool, args: args as JsonObject };
  }

  #result(
    tool: ToolDefinition,
    result: ProcessResult,
    prepared: Prepared,
    durationMs: number,
    warnings: string[],
  ): CallResult {
    const rendered = renderResult(tool, result, prepared.spec);
    const ok = !rendered.isError && !result.timedOut && !result.spawnError && result.code === 0;
    const out: CallResult = {
      ok,
      content: rendered.content,
      exitCode: result.code,
      signal: result.signal,
      timedOut: result.timedOut,
      truncated: result.truncated,
      durationMs,
      warnings,
    };
    if (!ok) out.failure = "tool-failed";
    return out;
  }
}

function failed(
  content: string,
  failure: CallFailure,
  durationMs: number,
  denied?: CallResult["denied"],
): CallResult {
  return {
    ok: false,
    content,
    exitCode: null,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs,
    failure,
    ...(denied ? { denied } : {}),
    warnings: [],
  };
}

/**
 * One warning per reason a layer is missing on this machine, naming the entries it
 * leaves unenforced. An unrestricted entry (`*`) is the scope itself, not a missing layer.
 */
function missingLayers(tool: string, plan: Confinement): string[] {
  const byNote = new Map<string, string[]>();
  for (const l of plan.layers) {
    if (l.enforcedBy.length > 0 || !l.note || l.entry === "*") continue;
    const entries = byNote.get(l.note) ?? [];
    entries.push(`${l.kind} ${l.entry}`);
    byNote.set(l.note, entries);
  }
  return [...byNote].map(([note, entries]) => `${tool}: ${entries.join(", ")}: ${note}`);
}

/** The environment a tool may see: all of it (minus withheld names) or the listed names. */
export function filterEnv(
  env: Record<string, string>,
  allowed: true | string[],
  withheld: string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  if (allowed === true) {
    for (const [k, v] of Object.entries(env)) if (!withheld.includes(k)) out[k] = v;
  } else {
    for (const k of allowed) if (env[k] !== undefined && !withheld.includes(k)) out[k] = env[k];
  }
  return out;
}
