/**
 * Renders lint diagnostics: compiler-style text, JSON, GitHub workflow commands and
 * SARIF 2.1.0 for code scanning. Pure functions of the diagnostics.
 *
 * @module
 */
import type { CodeInfo, Diagnostic } from "../types.ts";
import type { Style } from "./style.ts";

/** Counts of a lint run. */
export interface LintSummary {
  tools: number;
  errors: number;
  warnings: number;
}

/** Counts errors and warnings. */
export function summarize(tools: number, diagnostics: Diagnostic[]): LintSummary {
  return {
    tools,
    errors: diagnostics.filter((d) => d.severity === "error").length,
    warnings: diagnostics.filter((d) => d.severity === "warning").length,
  };
}

/** A path relative to `base` when it lies inside it. */
export function relativeTo(base: string, path: string): string {
  const prefix = base.endsWith("/") ? base : `${base}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

function position(d: Diagnostic): string {
  return d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : "";
}

/**
 * Compiler-style text: `file:line:col: error CODE: message`, then a summary line.
 *
 * @param base Paths inside it are shown relative to it.
 */
export function formatText(
  diagnostics: Diagnostic[],
  summary: LintSummary,
  base: string,
  style: Style,
): string {
  const lines = diagnostics.map((d) => {
    const sev = d.severity === "error"
      ? style.red("error")
      : d.severity === "warning"
      ? style.yellow("warning")
      : style.cyan("info");
    return `${style.bold(relativeTo(base, d.file) + position(d))}: ${sev} ${
      style.dim(d.code)
    }: ${d.message}`;
  });
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;
  const tail = `${plural(summary.tools, "tool")} checked: ${plural(summary.errors, "error")}, ${
    plural(summary.warnings, "warning")
  }`;
  lines.push(
    summary.errors > 0
      ? style.red(tail)
      : summary.warnings > 0
      ? style.yellow(tail)
      : style.green(tail),
  );
  return lines.join("\n") + "\n";
}

/** The JSON report: `{"version":1,"summary":{…},"diagnostics":[…]}`. */
export function formatJson(diagnostics: Diagnostic[], summary: LintSummary): string {
  return JSON.stringify(
    {
      version: 1,
      summary,
      diagnostics: diagnostics.map((d) => ({
        severity: d.severity,
        code: d.code,
        message: d.message,
        file: d.file,
        line: d.line ?? null,
        column: d.column ?? null,
        tool: d.tool ?? null,
      })),
    },
    null,
    2,
  ) + "\n";
}

function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** GitHub Actions workflow commands (`::error file=…,line=…::message`). */
export function formatGithub(diagnostics: Diagnostic[], base: string): string {
  return diagnostics.map((d) => {
    const kind = d.severity === "error" ? "error" : d.severity === "warning" ? "warning" : "notice";
    const props = [`file=${escapeProperty(relativeTo(base, d.file))}`];
    if (d.line !== undefined) props.push(`line=${d.line}`);
    if (d.column !== undefined) props.push(`col=${d.column}`);
    props.push(`title=${escapeProperty(d.code)}`);
    return `::${kind} ${props.join(",")}::${escapeData(d.message)}\n`;
  }).join("");
}

/** A SARIF artifact location: relative to the source root when inside it, else a file URI. */
function sarifLocation(base: string, file: string): { uri: string; uriBaseId?: string } {
  const relative = relativeTo(base, file);
  return relative === file
    ? { uri: encodeURI(`file://${file}`) }
    : { uri: encodeURI(relative), uriBaseId: "%SRCROOT%" };
}

const SARIF_LEVEL = { error: "error", warning: "warning", info: "note" } as const;

/**
 * SARIF 2.1.0, one run, one rule per code that can be emitted.
 *
 * @param rules The catalogue of codes (for rule descriptions).
 * @param version The version of harness.
 */
export function formatSarif(
  diagnostics: Diagnostic[],
  base: string,
  rules: readonly CodeInfo[],
  version: string,
): string {
  const used = new Set(diagnostics.map((d) => d.code));
  const ruleList = rules.filter((r) => used.has(r.code));
  for (const code of used) {
    if (!ruleList.some((r) => r.code === code)) {
      ruleList.push({ code, severity: "error", summary: code });
    }
  }
  const index = new Map(ruleList.map((r, i) => [r.code, i]));
  const sarif = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [{
      tool: {
        driver: {
          name: "harness",
          version,
          informationUri: "https://github.com/harness-dev/harness#diagnostic-codes",
          rules: ruleList.map((r) => ({
            id: r.code,
            shortDescription: { text: r.summary },
            defaultConfiguration: { level: SARIF_LEVEL[r.severity] },
            helpUri: `https://github.com/harness-dev/harness#${r.code.replace(/[^a-z0-9]+/g, "-")}`,
          })),
        },
      },
      results: diagnostics.map((d) => ({
        ruleId: d.code,
        ruleIndex: index.get(d.code),
        level: SARIF_LEVEL[d.severity],
        message: { text: d.message },
        locations: [{
          physicalLocation: {
            artifactLocation: sarifLocation(base, d.file),
            ...(d.line !== undefined
              ? { region: { startLine: d.line, startColumn: d.column ?? 1 } }
              : {}),
          },
        }],
      })),
    }],
  };
  return JSON.stringify(sarif, null, 2) + "\n";
}
