/**
 * The fixes that follow agentcli's messages in manifest diagnostics.
 *
 * Private to the manifest loader.
 *
 * @module
 */
import type { Node } from "../../_jsonc.ts";
import { didYouMean } from "../../config/_positions.ts";
import { goKind, type KeyProblem } from "./_manifest_decode.ts";

/** The keys of a manifest entry (Go's `ToolSpec` fields plus `permissions`). */
export const ENTRY_KEYS = [
  "name",
  "description",
  "schema",
  "command",
  "timeoutSec",
  "envPassthrough",
  "permissions",
];
const KEY_ALIASES: Readonly<Record<string, string>> = {
  parameters: "schema",
  params: "schema",
  inputschema: "schema",
  input_schema: "schema",
  arguments: "schema",
  args: "command",
  argv: "command",
  cmd: "command",
  program: "command",
  exec: "command",
  timeout: "timeoutSec",
  timeout_sec: "timeoutSec",
  timeoutms: "timeoutSec",
  timeout_ms: "timeoutSec",
  env: "envPassthrough",
  environment: "envPassthrough",
  env_passthrough: "envPassthrough",
  passenv: "envPassthrough",
  desc: "description",
  permission: "permissions",
  allow: "permissions",
  tool: "tools",
  functions: "tools",
};

/**
 * The fix for a key agentcli ignores: the key meant, or the keys there are.
 *
 * @param k The unknown key.
 * @returns The fix, e.g. `did you mean "schema"?`.
 */
export function unknownKeyFix(k: KeyProblem): string {
  const lower = k.key.toLowerCase();
  if (k.entry !== undefined && (lower === "function" || lower === "type")) {
    return `entries are not OpenAI tool objects: put "name", "description", "schema" (the parameters) and "command" directly in the entry`;
  }
  const known = k.entry === undefined ? ["tools"] : ENTRY_KEYS;
  const alias = Object.hasOwn(KEY_ALIASES, lower) ? KEY_ALIASES[lower] : undefined;
  const meant = alias && known.includes(alias) ? alias : didYouMean(k.key, known);
  if (!meant) return `remove it, or use one of: ${known.join(", ")}`;
  return `did you mean "${meant}"?${
    meant === "timeoutSec" && lower.includes("ms") ? " (in seconds, not milliseconds)" : ""
  }`;
}

/**
 * The fix for a `json: cannot unmarshal …` error.
 *
 * @param message Go's text.
 * @returns What to write instead.
 */
export function typeFix(message: string): string {
  const type = message.slice(message.lastIndexOf(" type ") + 6);
  const field = /field \w+\.tools\.(\w+)/.exec(message)?.[1];
  switch (type) {
    case "tools.Manifest":
      return `the manifest must be an object: {"tools": [ … ]}`;
    case "[]tools.ToolSpec":
      return `write "tools": [ {…}, … ]`;
    case "tools.ToolSpec":
      return `each entry must be an object such as {"name": "…", "command": ["./tools/bin/…"]}`;
    case "[]string":
      return field === "command"
        ? `write a list of strings, e.g. ["./tools/bin/NAME", "--flag"]`
        : `write a list of names, e.g. ["TZ"]`;
    case "int":
      return "write a whole number of seconds, e.g. 5";
    default:
      return field === "command" || field === "envPassthrough"
        ? "write each element as a string"
        : "write it as a string";
  }
}

/**
 * The fix for a Go syntax error.
 *
 * @param text The document.
 * @param message Go's text.
 * @param offset Where the scanner stopped.
 * @returns What to change.
 */
export function syntaxFix(text: string, message: string, offset: number): string {
  if (message === "unexpected end of JSON input") {
    return text.trim() === ""
      ? `the file is empty: write {"tools": []}`
      : `the file ends too early: close every "{" and "["`;
  }
  const before = text.slice(0, offset).trimEnd();
  if (message.startsWith("invalid character '/'")) {
    return "JSON does not allow comments: remove them";
  }
  if (/^invalid character '[}\]]'/.test(message) && before.endsWith(",")) {
    return "remove the trailing comma";
  }
  if (message.startsWith("invalid character '\\''")) {
    return "JSON strings and keys use double quotes";
  }
  if (message.endsWith("looking for beginning of object key string")) {
    return "put the key in double quotes";
  }
  if (message.endsWith("after object key:value pair") || message.endsWith("after array element")) {
    return `add a "," between the items, or close the "{" or "["`;
  }
  if (message.endsWith("after top-level value")) return "remove what follows the closing bracket";
  return "fix the JSON syntax";
}

/**
 * A JSON value's kind for messages: `null`, `an array`, `a string`.
 *
 * @param node A value node.
 */
export function describe(node: Node): string {
  const kind = goKind(node);
  return kind === "null" ? "null" : kind === "array" ? "an array" : `a ${kind}`;
}
