/**
 * harness as a library: load a project's tools in the three supported formats, lint
 * them, run them inside their declared permissions, and drive an OpenAI-compatible
 * agent loop over them.
 *
 * @example
 * ```ts ignore
 * import { loadConfig, lintTools } from "./mod.ts";
 * const config = await loadConfig({ projectDir: Deno.cwd(), getEnv: Deno.env.get });
 * const report = await lintTools(config, [], Deno.env.get);
 * console.log(report.tools, report.diagnostics.length);
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./errors.ts";
export { type Config, loadConfig, type LoadConfigOptions } from "./config/load.ts";
export { projectSources, type RegistrySnapshot, ToolRegistry } from "./tools/registry.ts";
export { type LintReport, lintTools } from "./tools/validate.ts";
export { loadOctomind } from "./tools/loaders/octomind.ts";
export { loadNanocoder } from "./tools/loaders/nanocoder.ts";
export { loadManifest } from "./tools/loaders/manifest.ts";
export { CallPath, type CallPathDeps } from "./exec/call.ts";
export type { ApprovalPolicy, CallRequest, CallResult } from "./exec/call_types.ts";
export { resolveScope } from "./exec/scope.ts";
export { type LoopEvent, type LoopOptions, runChat } from "./chat/loop.ts";
export type { ModelEvent, ModelPort, ModelRequest } from "./chat/port.ts";
export { makeApprovalPolicy } from "./chat/approval.ts";
