/**
 * The agentcli manifest loader: one `tools.json` → its tools.
 *
 * It follows agentcli's `LoadManifest` exactly (FACTS §3.1–3.3): Go's
 * `encoding/json` syntax and decoding rules (case-insensitive keys, unknown keys
 * ignored, last duplicate wins, `json: cannot unmarshal …` texts), then the checks
 * of each entry with the original messages (`tool[i]: name is required`, `%q`
 * quoting, `path.Clean` for `command[0]`), then the mapping to a tool: relative
 * programs resolved against the manifest's directory, `description` omitted when
 * empty, the `schema` value sent as it is.
 *
 * Unlike agentcli, which rejects the whole manifest at the first problem, it reports
 * every bad entry and still returns the good ones. Harness extension: an entry's
 * `"permissions": {read: […], …}` declares its permissions (agentcli ignores the key).
 *
 * Pure: no disk, no environment. Unix path semantics.
 *
 * @module
 */
import { LineIndex } from "../../_lines.ts";
import { type Node, type ParseError, parseTree, printParseErrorCode } from "../../_jsonc.ts";
import type {
  CodeInfo,
  Diagnostic,
  LoadContext,
  LoadResult,
  Severity,
  ToolDefinition,
} from "../../types.ts";
import { isPermissionKind, parsePermissionObject } from "../permissions.ts";
import { goClean, goDir, goJsonSyntaxError, goQuote, goToUpper, goTrimSpace } from "./_go.ts";
import { decodeManifest, jsonValue, type RawEntry } from "./_manifest_decode.ts";
import { describe, syntaxFix, typeFix, unknownKeyFix } from "./_manifest_messages.ts";

/** agentcli's default call timeout when neither `timeoutSec` nor a flag sets one. */
const DEFAULT_TIMEOUT_MS = 30_000;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
/** Every code {@linkcode loadManifest} can emit. */
export const MANIFEST_CODES: readonly CodeInfo[] = [
  code(
    "syntax",
    "error",
    "The manifest is not JSON as Go reads it (no comments, no trailing commas)",
  ),
  code(
    "type-error",
    "error",
    "A value has the wrong type (json: cannot unmarshal …); the entry is skipped",
  ),
  code("missing-name", "error", "An entry has no name (tool[i]: name is required)"),
  code("duplicate-name", "error", "Two entries share a name; the later one is skipped"),
  code(
    "missing-command",
    "error",
    "An entry's command is empty (command must have at least program name)",
  ),
  code("invalid-env", "error", "An envPassthrough entry is empty or not a variable name"),
  code(
    "invalid-command",
    "error",
    "A relative command[0] is not inside ./tools/bin/ or escapes it",
  ),
  code(
    "invalid-permission",
    "error",
    "A permissions entry is invalid; the tool loads with the valid part",
  ),
  code("unknown-key", "warning", "A key agentcli ignores, often a misspelling"),
  code("duplicate-key", "warning", "A key appears twice in one object; agentcli uses the last"),
  code(
    "schema-not-object",
    "warning",
    `"schema" is not a JSON object, which OpenAI rejects as parameters`,
  ),
  code(
    "no-tools",
    "info",
    `The manifest has no "tools" list (or it is null), so it defines no tools`,
  ),
];

function code(id: string, severity: Severity, summary: string): CodeInfo {
  return { code: `manifest/${id}`, severity, summary };
}

/**
 * Loads one agentcli `tools.json` manifest.
 *
 * @param path Absolute path of the manifest; relative programs resolve against its directory.
 * @param text The manifest's text.
 * @param ctx `defaults` gives the timeout of entries without `timeoutSec` and the approval.
 * @returns The good entries as tools, in manifest order, and every finding. Never throws.
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * const text = '{"tools":[{"name":"now","command":["./tools/bin/now"]}]}';
 * const { tools } = loadManifest("/p/tools.json", text, { mode: null, projectDir: "/p" });
 * deepStrictEqual(tools[0]!.runner, { kind: "argv", argv: ["/p/tools/bin/now"], envPassthrough: [] });
 * ```
 */
export function loadManifest(path: string, text: string, ctx: LoadContext): LoadResult {
  const lines = new LineIndex(text);
  const diagnostics: Diagnostic[] = [];
  const report = (
    severity: Severity,
    id: string,
    message: string,
    offset: number,
    tool?: string,
  ) => {
    const d: Diagnostic = {
      severity,
      code: `manifest/${id}`,
      message,
      file: path,
      ...lines.at(offset),
    };
    if (tool) d.tool = tool;
    diagnostics.push(d);
  };
  const syntax = goJsonSyntaxError(text);
  if (syntax) {
    const fix = syntaxFix(text, syntax.message, syntax.offset);
    report("error", "syntax", `parse manifest: ${syntax.message}: ${fix}`, syntax.offset);
    return { tools: [], diagnostics };
  }
  const errors: ParseError[] = [];
  let root: Node | undefined;
  let decoded;
  try {
    root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
    if (root && errors.length === 0) decoded = decodeManifest(root, text);
  } catch {
    // A RangeError: nested too deeply for a recursive parser (Go allows 10,000 levels).
    report(
      "error",
      "syntax",
      "parse manifest: the document is nested too deeply to load: simplify it",
      0,
    );
    return { tools: [], diagnostics };
  }
  if (!decoded) {
    const what = errors[0] ? printParseErrorCode(errors[0].error) : "empty document";
    report(
      "error",
      "syntax",
      `parse manifest: ${what}: fix the JSON syntax`,
      errors[0]?.offset ?? 0,
    );
    return { tools: [], diagnostics };
  }
  for (const e of decoded.typeErrors) {
    report("error", "type-error", `parse manifest: ${e.value}: ${typeFix(e.value)}`, e.node.offset);
  }
  if (
    (decoded.tools === "missing" || decoded.tools === "null") && decoded.typeErrors.length === 0
  ) {
    report(
      "info",
      "no-tools",
      `Manifest defines no tools: "tools" is ${decoded.tools}: add "tools": [{"name": "…", "command": ["./tools/bin/…"]}]`,
      0,
    );
  }
  const names = new Map(decoded.entries.map((e) => [e.index, e.name?.value ?? ""]));
  for (const k of decoded.keys) {
    if (k.kind === "unknown" && k.entry === undefined && k.key === "$schema") continue;
    const name = k.entry === undefined ? "" : names.get(k.entry) ?? "";
    const where = k.entry === undefined
      ? "at the top level"
      : `in tool[${k.entry}]${name ? ` ${goQuote(name)}` : ""}`;
    if (k.kind === "unknown") {
      report(
        "warning",
        "unknown-key",
        `Key "${k.key}" ${where} is ignored by agentcli: ${unknownKeyFix(k)}`,
        k.node.offset,
        name,
      );
    } else {
      report(
        "warning",
        "duplicate-key",
        `Key "${k.key}" ${where} sets "${k.field}" again (first at line ${
          lines.at(k.first!.offset).line
        }): agentcli uses the last value${
          k.field === "tools" ? ", merging the two lists entry by entry" : ""
        }: keep only one`,
        k.node.offset,
        name,
      );
    }
  }

  const tools: ToolDefinition[] = [];
  const seen = new Map<string, number>();
  for (const entry of decoded.entries) {
    const tool = checkEntry(entry, path, ctx, seen, lines, report);
    if (tool) tools.push(tool);
  }
  diagnostics.sort((a, b) => (a.line! - b.line!) || (a.column! - b.column!));
  return { tools, diagnostics };
}

type Report = (
  severity: Severity,
  id: string,
  message: string,
  offset: number,
  tool?: string,
) => void;

function checkEntry(
  entry: RawEntry,
  path: string,
  ctx: LoadContext,
  seen: Map<string, number>,
  lines: LineIndex,
  report: Report,
): ToolDefinition | undefined {
  const i = entry.index;
  const name = entry.name?.value ?? "";
  const label = `tool[${i}] ${goQuote(name)}`;
  const error = (id: string, message: string, node: Node) =>
    report("error", id, message, node.offset, name);
  let bad = entry.typeErrors.length > 0;
  for (const e of entry.typeErrors) {
    error("type-error", `parse manifest: ${e.value}: ${typeFix(e.value)}`, e.node);
  }

  if (entry.node.type !== "object" && entry.node.type !== "null") return undefined;
  const typed = new Set(entry.typeErrors.map((e) => e.field));
  if (name === "" && !typed.has("name")) {
    bad = true;
    error(
      "missing-name",
      `tool[${i}]: name is required: add "name": "…"${
        entry.node.type === "null" ? " (the entry is null)" : ""
      }`,
      entry.name?.node ?? entry.node,
    );
  } else if (seen.has(name)) {
    bad = true;
    error(
      "duplicate-name",
      `${label}: duplicate name: rename it (the entry at line ${seen.get(name)} is kept)`,
      entry.name!.node,
    );
  } else if (name !== "") seen.set(name, lines.at(entry.node.offset).line);

  const command = entry.command?.items ?? [];
  if (command.length < 1 && !typed.has("command")) {
    bad = true;
    error(
      "missing-command",
      `${label}: command must have at least program name: write "command": ["./tools/bin/${
        name || "NAME"
      }"]`,
      entry.command?.node ?? entry.node,
    );
  }

  const env: string[] = [];
  entry.envPassthrough?.items.forEach((item, j) => {
    const trimmed = goTrimSpace(item.value);
    if (trimmed === "") {
      bad = true;
      error(
        "invalid-env",
        `${label}: envPassthrough[${j}]: empty name: remove the empty entry`,
        item.node,
      );
      return;
    }
    const upper = goToUpper(trimmed);
    if (!ENV_NAME.test(upper)) {
      bad = true;
      const better = upper.replace(/[^A-Z0-9_]/g, "_").replace(/^(\d)/, "_$1");
      error(
        "invalid-env",
        `${label}: envPassthrough[${j}]: invalid name ${
          goQuote(item.value)
        } (must match [A-Z_][A-Z0-9_]*): write a variable name such as "${better}"`,
        item.node,
      );
      return;
    }
    if (!env.includes(upper)) env.push(upper);
  });

  let program: string | undefined;
  const first = entry.command?.items[0];
  if (first) {
    const checked = checkProgram(first.value, path);
    if ("error" in checked) {
      bad = true;
      error("invalid-command", `${label}: ${checked.error}`, first.node);
    } else program = checked.program;
  }

  if (entry.schema && entry.schema.type !== "object") {
    report(
      "warning",
      "schema-not-object",
      `"schema" of ${label} is ${
        describe(entry.schema)
      }, not a JSON object: agentcli sends it to the model as "parameters" unchanged, and OpenAI-compatible servers reject it: write {"type": "object", "properties": {…}}`,
      entry.schema.offset,
      name,
    );
  }
  const permissions = entry.permissions
    ? checkPermissions(entry.permissions, label, name, report)
    : undefined;
  if (bad || program === undefined) return undefined;

  const timeoutSec = entry.timeoutSec?.value ?? 0;
  const tool: ToolDefinition = {
    name,
    source: { format: "manifest", path, line: lines.at(entry.node.offset).line },
    runner: {
      kind: "argv",
      argv: [program, ...command.slice(1).map((c) => c.value)],
      envPassthrough: env,
    },
    approval: ctx.defaults?.approval ?? "always",
    readOnly: false,
    timeoutMs: timeoutSec > 0 ? timeoutSec * 1000 : ctx.defaults?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  const description = entry.description?.value ?? "";
  if (description !== "") tool.description = description;
  if (entry.schema) tool.parameters = jsonValue(entry.schema);
  if (permissions) tool.permissions = permissions;
  return tool;
}

/**
 * agentcli's `command[0]` rules.
 *
 * @returns The absolute program, or the original error text (after `tool[i] "name": `) with the fix.
 */
function checkProgram(cmd0: string, manifestPath: string): { program: string } | { error: string } {
  if (cmd0.startsWith("/")) return { program: cmd0 };
  const raw = cmd0.replaceAll("\\", "/");
  let norm = goClean(raw);
  if (norm.startsWith("tools/") || norm === "tools") norm = "./" + norm;
  const inside =
    "keep the program inside ./tools/bin/ next to the manifest, or write an absolute path";
  if (norm.startsWith("../") || norm === "..") {
    return {
      error: `command[0] must not start with '..' or escape tools/bin (got ${
        goQuote(cmd0)
      }): ${inside}`,
    };
  }
  if (raw.startsWith("./tools/bin/") || raw === "./tools/bin") {
    if (!norm.startsWith("./tools/bin/")) {
      return {
        error: `command[0] escapes ./tools/bin after normalization (got ${goQuote(cmd0)} -> ${
          goQuote(norm)
        }): ${inside}`,
      };
    }
  } else if (!norm.startsWith("./tools/bin/")) {
    const fix = raw.includes("/") || raw === ""
      ? `move the program to ./tools/bin/ next to the manifest, or write an absolute path`
      : `agentcli does not search PATH: write "./tools/bin/${cmd0}" for a program next to the manifest, or an absolute path such as "/usr/bin/${cmd0}"`;
    return { error: `relative command[0] must start with ./tools/bin/: ${fix}` };
  }
  return { program: goClean(`${goDir(manifestPath)}/${norm.slice(2)}`) };
}

function checkPermissions(node: Node, label: string, tool: string, report: Report) {
  const { scope, problems } = parsePermissionObject(jsonValue(node));
  for (const p of problems) {
    const unknownKind = p.path.length === 1 && !isPermissionKind(String(p.path[0]));
    const target = nodeAt(node, p.path, unknownKind);
    report("error", "invalid-permission", `${label}: ${p.message}`, target.offset, tool);
  }
  // A declaration that is not a mapping grants nothing rather than falling back to "none declared".
  return scope ?? {};
}

/** The node at a key path (the key node itself when `key` is set), or the deepest one found. */
function nodeAt(node: Node, path: (string | number)[], key: boolean): Node {
  let current = node;
  for (const [depth, segment] of path.entries()) {
    const last = depth === path.length - 1;
    let next: Node | undefined;
    if (current.type === "object") {
      const property = current.children?.findLast((p) => p.children?.[0]?.value === segment);
      next = last && key ? property?.children?.[0] : property?.children?.[1];
    } else if (current.type === "array" && typeof segment === "number") {
      next = current.children?.[segment];
    }
    if (!next) return current;
    current = next;
  }
  return current;
}
