/**
 * `harness tools list`, `tools show NAME` and `tools schema`.
 *
 * @module
 */
import type { Config } from "../config/load.ts";
import { UsageError } from "../errors.ts";
import { didYouMean } from "../config/_positions.ts";
import { projectSources, type RegistrySnapshot, ToolRegistry } from "../tools/registry.ts";
import { sourceExcerpt } from "../tools/excerpt.ts";
import { toFunctionSpec, type ToolDefinition } from "../types.ts";
import type { CommandContext } from "./context.ts";
import { relativeTo } from "./report.ts";

/** Loads the project's tools once. */
export async function projectSnapshot(
  ctx: CommandContext,
): Promise<{ config: Config; snapshot: RegistrySnapshot }> {
  const config = await ctx.config();
  const registry = new ToolRegistry(config, projectSources(config, ctx.io.getEnv));
  return { config, snapshot: await registry.refresh() };
}

/** The `tools` array sent to the provider: function tools, then native tools verbatim. */
export function toolsPayload(tools: ToolDefinition[], nativeTools: unknown[]): unknown[] {
  return [
    ...tools.map((t) => ({ type: "function", function: toFunctionSpec(t) })),
    ...nativeTools,
  ];
}

/** One tool as `tools list --json` and `tools show --json` print it. */
export function toolJson(
  tool: ToolDefinition,
  snapshot: RegistrySnapshot,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: tool.name,
    format: tool.source.format,
    path: tool.source.path,
  };
  if (tool.source.line !== undefined) out.line = tool.source.line;
  out.function = toFunctionSpec(tool);
  out.approval = tool.approval;
  out.readOnly = tool.readOnly;
  out.timeoutMs = tool.timeoutMs;
  out.permissions = tool.permissions ?? null;
  out.shadows = (snapshot.shadows.get(tool.name) ?? []).map((s) => ({
    format: s.format,
    path: s.path,
    ...(s.line !== undefined ? { line: s.line } : {}),
  }));
  return out;
}

/** Builds the `tools list` action. */
export function listCommand(opts: { json?: boolean }) {
  return async (ctx: CommandContext): Promise<void> => {
    const { snapshot } = await projectSnapshot(ctx);
    if (opts.json) {
      ctx.io.out(
        JSON.stringify(
          {
            tools: snapshot.tools.map((t) => toolJson(t, snapshot)),
            skipped: snapshot.skipped,
          },
          null,
          2,
        ) + "\n",
      );
      return;
    }
    if (snapshot.tools.length === 0) {
      ctx.io.out("No tools found. Add one with `harness init`, or see `harness tools --help`.\n");
    } else {
      const rows = snapshot.tools.map((t) => [
        t.name,
        t.source.format,
        relativeTo(ctx.projectDir, t.source.path) + (t.source.line ? `:${t.source.line}` : ""),
        (t.description ?? "").split("\n")[0],
      ]);
      ctx.io.out(table(["NAME", "FORMAT", "SOURCE", "DESCRIPTION"], rows, ctx.out.bold));
    }
    if (snapshot.skipped.length > 0) {
      ctx.io.err(
        ctx.err.yellow(
          `${snapshot.skipped.length} file(s) skipped; run \`harness tools validate\` for details\n`,
        ),
      );
    }
  };
}

function table(header: string[], rows: string[][], bold: (s: string) => string): string {
  const widths = header.map((h, i) =>
    Math.min(48, Math.max(h.length, ...rows.map((r) => r[i].length)))
  );
  const fit = (s: string, w: number) => (s.length > w ? s.slice(0, w - 1) + "…" : s.padEnd(w));
  const line = (r: string[]) =>
    r.map((c, i) => (i === r.length - 1 ? c : fit(c, widths[i]))).join("  ").trimEnd();
  return [bold(line(header)), ...rows.map(line)].join("\n") + "\n";
}

/**
 * Finds a tool by name.
 *
 * @throws {UsageError} When there is no such tool (with a "did you mean").
 */
export function findTool(snapshot: RegistrySnapshot, name: string): ToolDefinition {
  const tool = snapshot.byName.get(name);
  if (tool) return tool;
  const hint = didYouMean(name, [...snapshot.byName.keys()]);
  throw new UsageError(`Unknown tool "${name}"`, {
    hint: hint
      ? `did you mean "${hint}"? (harness tools list shows every tool)`
      : "run `harness tools list` to see every tool",
  });
}

/** Builds the `tools show NAME` action. */
export function showCommand(name: string, opts: { json?: boolean }) {
  return async (ctx: CommandContext): Promise<void> => {
    const { config, snapshot } = await projectSnapshot(ctx);
    const tool = findTool(snapshot, name);
    const { describeScope } = await import("./scope_report.ts");
    const scope = await describeScope(tool, config, ctx.io);
    const excerpt = await sourceExcerpt(tool);
    if (opts.json) {
      ctx.io.out(
        JSON.stringify(
          { ...toolJson(tool, snapshot), scope: scope.json, source: excerpt },
          null,
          2,
        ) + "\n",
      );
      return;
    }
    const b = ctx.out.bold;
    const lines = [
      `${b(tool.name)} (${tool.source.format})`,
      `  source:      ${relativeTo(ctx.projectDir, tool.source.path)}${
        tool.source.line ? `:${tool.source.line}` : ""
      }`,
      `  approval:    ${tool.approval}`,
      `  read-only:   ${tool.readOnly ? "yes (may run in parallel)" : "no"}`,
      `  timeout:     ${tool.timeoutMs} ms`,
      `  declared:    ${
        tool.permissions
          ? JSON.stringify(tool.permissions)
          : "nothing (undeclared: the default scope applies)"
      }`,
    ];
    const shadows = snapshot.shadows.get(tool.name) ?? [];
    for (const s of shadows) {
      lines.push(`  shadows:     ${s.format} ${relativeTo(ctx.projectDir, s.path)}`);
    }
    lines.push(
      "",
      b("Description"),
      ...(tool.description ?? "(none)").split("\n").map((l) => `  ${l}`),
    );
    lines.push(
      "",
      b("Function (as sent to the model)"),
      indent(JSON.stringify(toFunctionSpec(tool), null, 2)),
    );
    lines.push("", b("Effective scope"), ...scope.text);
    if (excerpt) lines.push("", b(`Source (${excerpt.label})`), indent(excerpt.text));
    ctx.io.out(lines.join("\n") + "\n");
  };
}

function indent(text: string): string {
  return text.split("\n").map((l) => `  ${l}`).join("\n");
}

/** Builds the `tools schema` action. */
export function schemaCommand() {
  return async (ctx: CommandContext): Promise<void> => {
    const { config, snapshot } = await projectSnapshot(ctx);
    ctx.io.out(JSON.stringify(toolsPayload(snapshot.tools, config.nativeTools), null, 2) + "\n");
  };
}
