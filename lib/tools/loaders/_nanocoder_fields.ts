/**
 * The top-level front-matter fields of a Nanocoder tool after `parameters`, plus
 * `name`, `description` and harness's `permissions` extension: Nanocoder's rule,
 * default and exact error text for each, followed by the fix.
 *
 * Private to the Nanocoder loader.
 *
 * @module
 */
import type { Approval, PermissionScope } from "../../types.ts";
import { isPermissionKind, parsePermissionObject } from "../permissions.ts";
import {
  describeValue,
  isMapping,
  NAME_REGEX,
  type Reporter,
  safeString,
  snakeCase,
} from "./_nanocoder_report.ts";

/** Nanocoder's `DEFAULT_TIMEOUT_MS`. */
const DEFAULT_TIMEOUT_MS = 30_000;
/** Nanocoder's `MAX_TIMEOUT_MS`. */
const MAX_TIMEOUT_MS = 300_000;
const APPROVALS: readonly Approval[] = ["never", "always", "destructive"];
const SHELLS = ["bash", "sh"] as const;

/**
 * Checks `name` (Nanocoder's first check) and notes a file name that differs.
 *
 * @param value The front-matter value.
 * @param path The file path, for the suggestion and the file-name note.
 * @param r Where findings are reported.
 * @returns The name, or `undefined` when invalid.
 */
export function checkName(value: unknown, path: string, r: Reporter): string | undefined {
  if (typeof value === "string" && NAME_REGEX.test(value)) {
    const file = path.split(/[\\/]/).pop()!;
    const stem = file.replace(/\.md$/, "");
    if (stem.replace(/-/g, "_").toLowerCase() !== value) {
      r.info(
        "nanocoder/name-differs-from-file",
        `Tool "${value}" is defined in "${file}": the model sees "${value}", not the file name; rename the file to "${value}.md" if that is confusing`,
        r.at(["name"]),
      );
    }
    return value;
  }
  const fromFile = snakeCase(path.split(/[\\/]/).pop()!.replace(/\.md$/, ""));
  let fix: string;
  if (value === undefined) fix = `add a line such as "name: ${fromFile ?? "my_tool"}"`;
  else if (typeof value === "string") {
    const better = snakeCase(value);
    fix = `got ${describeValue(value)}; ${
      better ? `write "${better}"` : "write a snake_case name"
    }`;
  } else {fix = `got ${describeValue(value)}; write a snake_case name such as "${
      fromFile ?? "my_tool"
    }"`;}
  r.error(
    "nanocoder/invalid-name",
    `Invalid or missing "name" — must match ${NAME_REGEX} (snake_case starting with a letter): ${fix}`,
    value === undefined ? 0 : r.at(["name"]),
  );
  return undefined;
}

/**
 * Checks `description`: a non-empty string after trim.
 *
 * @returns The trimmed description, or `undefined` when invalid.
 */
export function checkDescription(value: unknown, r: Reporter): string | undefined {
  if (typeof value === "string" && value.trim()) return value.trim();
  const fix = value === undefined
    ? `add a line such as "description: What the tool does, shown to the model"`
    : typeof value === "string"
    ? "it is empty; say what the tool does"
    : `got ${describeValue(value)}; write the description as text`;
  r.error(
    "nanocoder/missing-description",
    `Missing "description": ${fix}`,
    value === undefined ? 0 : r.at(["description"]),
  );
  return undefined;
}

/**
 * Checks `approval`; null or absent means `always`.
 *
 * @returns The approval (`always` when invalid).
 */
export function checkApproval(value: unknown, r: Reporter): Approval {
  if (value === undefined || value === null) return "always";
  if (typeof value === "string" && (APPROVALS as readonly string[]).includes(value)) {
    return value as Approval;
  }
  r.error(
    "nanocoder/invalid-approval",
    `Invalid "approval" value — expected one of: ${APPROVALS.join(", ")}: got ${
      describeValue(value)
    }`,
    r.at(["approval"]),
  );
  return "always";
}

/**
 * Checks `read_only`; null or absent means `approval === "never"`.
 *
 * @returns Whether the tool is read-only.
 */
export function checkReadOnly(value: unknown, approval: Approval, r: Reporter): boolean {
  if (value === undefined || value === null) return approval === "never";
  if (typeof value === "boolean") return value;
  const yes = typeof value === "string" && /^(yes|no|on|off|y|n)$/i.test(value);
  r.error(
    "nanocoder/invalid-read-only",
    `"read_only" must be a boolean: got ${describeValue(value)}; write true or false${
      yes ? " (YAML 1.2 reads yes, no, on and off as text)" : ""
    }`,
    r.at(["read_only"]),
  );
  return false;
}

/**
 * Checks `timeout_ms`: an integer from 1 to 300000, not clamped; default 30000.
 *
 * @returns The timeout in milliseconds (the default when invalid).
 */
export function checkTimeout(value: unknown, r: Reporter): number {
  if (value === undefined || value === null) return DEFAULT_TIMEOUT_MS;
  let message: string | undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    message = `timeout_ms must be a finite number: got ${
      describeValue(value)
    }; write milliseconds without quotes, e.g. 30000`;
  } else if (!Number.isInteger(value)) {
    message = `timeout_ms must be an integer: got ${value}; write whole milliseconds`;
  } else if (value <= 0) {
    message =
      `"timeout_ms" must be positive: got ${value}; write at least 1 (the default is ${DEFAULT_TIMEOUT_MS})`;
  } else if (value > MAX_TIMEOUT_MS) {
    message =
      `"timeout_ms" exceeds maximum of ${MAX_TIMEOUT_MS}: got ${value}; write at most ${MAX_TIMEOUT_MS} (5 minutes)`;
  } else return value;
  r.error("nanocoder/invalid-timeout", message, r.at(["timeout_ms"]));
  return DEFAULT_TIMEOUT_MS;
}

/**
 * Checks `cwd`: any string; Nanocoder tests `=== undefined`, so null is an error.
 *
 * @returns The directory before `${VAR}` expansion, or `undefined`.
 */
export function checkCwd(value: unknown, r: Reporter): string | undefined {
  // Nanocoder checks `cwd === undefined`, so an empty `cwd:` (null) is an error.
  if (value === undefined || typeof value === "string") return value;
  r.error(
    "nanocoder/invalid-cwd",
    `cwd must be a string: got ${
      describeValue(value)
    }; write a directory such as ./scripts, or remove the key`,
    r.at(["cwd"]),
  );
  return undefined;
}

/**
 * Checks `env`: a mapping whose values become `String(v)` (null becomes `""`).
 *
 * @returns The variables, or `undefined` when absent or invalid.
 */
export function checkEnv(value: unknown, r: Reporter): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isMapping(value)) {
    r.error(
      "nanocoder/invalid-env",
      `"env" must be a mapping of name → value: got ${
        describeValue(value)
      }; write e.g. env: {FOO: bar}`,
      r.at(["env"]),
    );
    return undefined;
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    env[k] = v === null || v === undefined ? "" : safeString(v);
    if (typeof v === "object" && v !== null) {
      r.warn(
        "nanocoder/env-value-not-scalar",
        `env value of "${k}" is ${describeValue(v)}, which becomes the text "${
          env[k]
        }": write it as text`,
        r.at(["env", k]),
      );
    }
  }
  return env;
}

/**
 * Checks `shell`: bash or sh.
 *
 * @returns The shell, or `undefined` when absent or invalid.
 */
export function checkShell(value: unknown, r: Reporter): "bash" | "sh" | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === "bash" || value === "sh") return value;
  r.error(
    "nanocoder/invalid-shell",
    `Invalid "shell" — expected one of: ${SHELLS.join(", ")}: got ${
      describeValue(value)
    }; use bash or sh`,
    r.at(["shell"]),
  );
  return undefined;
}

/**
 * Checks harness's `permissions` extension, which Nanocoder ignores.
 *
 * @returns The valid part of the declaration; `{}` (nothing) when it is not a mapping.
 */
export function checkPermissions(value: unknown, r: Reporter): PermissionScope {
  const { scope, problems } = parsePermissionObject(value);
  for (const p of problems) {
    const unknownKind = p.path.length === 1 && !isPermissionKind(String(p.path[0]));
    const message = p.message.charAt(0).toUpperCase() + p.message.slice(1);
    r.error(
      "nanocoder/invalid-permission",
      message,
      r.at(["permissions", ...p.path], unknownKind ? "key" : "value"),
    );
  }
  // A declaration that is not a mapping grants nothing rather than falling back to "none declared".
  return scope ?? {};
}
