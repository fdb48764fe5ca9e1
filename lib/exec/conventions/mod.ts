/**
 * The three calling conventions, chosen by `tool.runner.kind`: `script` (Octomind),
 * `template` (Nanocoder), `argv` (agentcli). Each is a pure `prepare` (what the tool
 * process receives) and `render` (what the model sees); `lib/exec/process.ts` runs
 * the spec in between.
 *
 * @example
 * ```ts ignore
 * const prepared = prepareCall(tool, { args, rawArguments }, ctx);
 * const result = await runProcess(prepared.spec);
 * const { content, isError } = renderResult(tool, result, prepared.spec);
 * ```
 *
 * @module
 */
import type { ToolDefinition } from "../../types.ts";
import { prepareAgentcli, renderAgentcli } from "./agentcli.ts";
import { prepareNanocoder, renderNanocoder } from "./nanocoder.ts";
import { prepareOctomind, renderOctomind } from "./octomind.ts";
import type {
  CallContext,
  CallInput,
  Prepared,
  ProcessResultLike,
  RenderedResult,
  RenderSpec,
} from "./types.ts";

export type * from "./types.ts";
export {
  agentcliError,
  goJsonString,
  oneLine,
  prepareAgentcli,
  renderAgentcli,
} from "./agentcli.ts";
export {
  expandVars,
  NANOCODER_OUTPUT_LIMIT_CHARS,
  pickShell,
  prepareNanocoder,
  renderNanocoder,
  resolveCwd,
  truncateToolResult,
} from "./nanocoder.ts";
export { prepareOctomind, renderOctomind } from "./octomind.ts";

function notSubprocess(tool: ToolDefinition): never {
  throw new TypeError(
    `Tool "${tool.name}" runs as a module, not a process: it has no calling convention`,
  );
}

/**
 * Prepares a call with the tool's own convention.
 *
 * @param tool A tool whose runner is `script`, `template` or `argv`.
 * @param input The arguments and, when known, the model's argument text.
 * @param ctx The call site.
 * @returns The spec to run and what a dry run shows.
 * @throws {TypeError} For a `module` tool, which does not run as a process.
 */
export function prepareCall(tool: ToolDefinition, input: CallInput, ctx: CallContext): Prepared {
  switch (tool.runner.kind) {
    case "script":
      return prepareOctomind(tool, input, ctx);
    case "template":
      return prepareNanocoder(tool, input, ctx);
    case "argv":
      return prepareAgentcli(tool, input, ctx);
    case "module":
      return notSubprocess(tool);
  }
}

/**
 * Renders a finished call the way the tool's original would show it to the model.
 *
 * @param tool The tool.
 * @param result What the process did.
 * @param spec The prepared spec (program and timeout really used); defaults come
 *   from the tool definition.
 * @returns The content and whether it is an error.
 * @throws {TypeError} For a `module` tool.
 */
export function renderResult(
  tool: ToolDefinition,
  result: ProcessResultLike,
  spec?: RenderSpec,
): RenderedResult {
  switch (tool.runner.kind) {
    case "script":
      return renderOctomind(tool, result, spec);
    case "template":
      return renderNanocoder(tool, result, spec);
    case "argv":
      return renderAgentcli(tool, result, spec);
    case "module":
      return notSubprocess(tool);
  }
}
