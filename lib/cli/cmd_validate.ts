/**
 * `harness tools validate [PATH…] [--format text|json|github|sarif] [--strict]`.
 *
 * @module
 */
import { ExitCode } from "../errors.ts";
import { lintTools } from "../tools/validate.ts";
import type { CommandContext } from "./context.ts";
import { formatGithub, formatJson, formatSarif, formatText, summarize } from "./report.ts";

/** Options of `tools validate`. */
export interface ValidateOptions {
  format: string;
  strict?: boolean;
}

/** Builds the `tools validate` action. */
export function validateCommand(paths: string[], opts: ValidateOptions) {
  return async (ctx: CommandContext): Promise<void> => {
    const config = await ctx.config();
    const report = await lintTools(config, paths, ctx.io.getEnv);
    const summary = summarize(report.tools, report.diagnostics);
    const base = ctx.projectDir;
    switch (opts.format) {
      case "json":
        ctx.io.out(formatJson(report.diagnostics, summary));
        break;
      case "github":
        ctx.io.out(formatGithub(report.diagnostics, base));
        break;
      case "sarif": {
        const [{ ALL_CODES }, { VERSION }] = await Promise.all([
          import("../tools/codes.ts"),
          import("./main.ts"),
        ]);
        ctx.io.out(formatSarif(report.diagnostics, base, ALL_CODES, VERSION));
        break;
      }
      default:
        ctx.io.out(formatText(report.diagnostics, summary, base, ctx.out));
    }
    const failed = summary.errors > 0 || (opts.strict === true && summary.warnings > 0);
    ctx.setExitCode(failed ? ExitCode.Failed : ExitCode.Ok);
  };
}
