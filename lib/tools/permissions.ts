/**
 * Permission declarations, shared by the three loaders and the config.
 *
 * A tool declares what it needs in Deno's vocabulary (`read`, `write`, `net`, `env`,
 * `run`); these keys are ignored by the original tools, so files stay compatible.
 * This module only checks the shape and the values; scopes are intersected and
 * enforced by `lib/exec`.
 *
 * @module
 */
import { PERMISSION_KINDS, type PermissionKind, type PermissionScope } from "../types.ts";

/** A problem found in a permission declaration, located by its key path. */
export interface PermissionProblem {
  /** Key path inside the declaration, e.g. `["net", 1]`. Empty for the whole value. */
  path: (string | number)[];
  message: string;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST_LABEL = /^[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Whether `kind` is one of the permission kinds harness knows. */
export function isPermissionKind(kind: string): kind is PermissionKind {
  return (PERMISSION_KINDS as readonly string[]).includes(kind);
}

/**
 * Checks one permission value.
 *
 * @param kind The permission kind.
 * @param value The declared value, e.g. `./data` or `api.github.com:443`.
 * @returns A message naming the problem and the fix, or `undefined` when the value is valid.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(checkPermissionValue("net", "api.github.com:443"), undefined);
 * ```
 */
export function checkPermissionValue(kind: PermissionKind, value: string): string | undefined {
  if (value.trim() === "") return `empty ${kind} value: name a ${describe(kind)}`;
  if (value.includes("\0")) return `${kind} value "${value}" contains a NUL byte`;
  switch (kind) {
    case "read":
    case "write":
      if (value.startsWith("~")) {
        return `${kind} path "${value}" starts with "~", which is not expanded: write an absolute path or one relative to the project`;
      }
      return undefined;
    case "env":
      return ENV_NAME.test(value)
        ? undefined
        : `env name "${value}" is not a valid variable name: use letters, digits and "_", not starting with a digit`;
    case "run":
      return /\s$|^\s/.test(value)
        ? `run value "${value}" has leading or trailing white space: name the program exactly`
        : undefined;
    case "net":
      return checkNetValue(value);
  }
}

function describe(kind: PermissionKind): string {
  switch (kind) {
    case "read":
    case "write":
      return "path such as ./data";
    case "net":
      return "host or host:port such as api.github.com:443";
    case "env":
      return "variable such as GITHUB_TOKEN";
    case "run":
      return "program such as git";
  }
}

function checkNetValue(value: string): string | undefined {
  const bad = (why: string) =>
    `net value "${value}" ${why}: write host or host:port, e.g. "api.github.com:443" or "127.0.0.1:8080"`;
  if (/[/\s]/.test(value) || value.includes("://")) return bad("is not a host");
  let host = value;
  let port: string | undefined;
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    if (end < 0) return bad("has an unclosed IPv6 bracket");
    host = value.slice(1, end);
    const rest = value.slice(end + 1);
    if (rest !== "") {
      if (!rest.startsWith(":")) return bad("has text after the IPv6 address");
      port = rest.slice(1);
    }
    if (!/^[0-9A-Fa-f:.]+$/.test(host)) return bad("has an invalid IPv6 address");
  } else {
    const colon = value.lastIndexOf(":");
    if (colon >= 0) {
      host = value.slice(0, colon);
      port = value.slice(colon + 1);
    }
    if (host === "") return bad("has no host");
    const v4 = IPV4.exec(host);
    if (v4) {
      if (v4.slice(1).some((o) => Number(o) > 255)) return bad("has an invalid IPv4 address");
    } else if (!host.split(".").every((label) => HOST_LABEL.test(label))) {
      return bad("has an invalid host name");
    }
  }
  if (port !== undefined) {
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
      return bad(`has an invalid port "${port}"`);
    }
  }
  return undefined;
}

/**
 * Parses a permission declaration given as an object (Nanocoder front matter,
 * manifest entry, harness.jsonc override): `{read?: string[], write?: …}`.
 * Unknown kinds, non-list values and invalid entries are problems; valid entries
 * are kept, so a partly bad declaration still yields the good part.
 *
 * @param raw The declared value.
 * @returns The scope (when `raw` is an object) and every problem found.
 */
export function parsePermissionObject(
  raw: unknown,
): { scope?: PermissionScope; problems: PermissionProblem[] } {
  const problems: PermissionProblem[] = [];
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    problems.push({
      path: [],
      message:
        `permissions must be a mapping of kind → list, e.g. {read: ["./data"], net: ["api.github.com:443"]}`,
    });
    return { problems };
  }
  const scope: PermissionScope = {};
  for (const [key, list] of Object.entries(raw as Record<string, unknown>)) {
    if (!isPermissionKind(key)) {
      problems.push({
        path: [key],
        message: `unknown permission kind "${key}": expected one of ${
          PERMISSION_KINDS.map((k) => `"${k}"`).join(", ")
        }`,
      });
      continue;
    }
    if (!Array.isArray(list)) {
      problems.push({
        path: [key],
        message: `permissions.${key} must be a list of strings, e.g. ${key}: ["${example(key)}"]`,
      });
      continue;
    }
    const values: string[] = [];
    list.forEach((item, i) => {
      if (typeof item !== "string") {
        problems.push({ path: [key, i], message: `permissions.${key}[${i}] must be a string` });
        return;
      }
      const why = checkPermissionValue(key, item);
      if (why) problems.push({ path: [key, i], message: `permissions.${key}[${i}]: ${why}` });
      else if (!values.includes(item)) values.push(item);
    });
    scope[key] = values;
  }
  return { scope, problems };
}

function example(kind: PermissionKind): string {
  return {
    read: "./data",
    write: "./out",
    net: "api.github.com:443",
    env: "GITHUB_TOKEN",
    run: "git",
  }[
    kind
  ];
}

/**
 * Adds one `KIND VALUE` entry (Octomind's `@allow read ./data`) to a scope.
 *
 * @returns A problem message, or `undefined` when the entry was added.
 */
export function addPermissionEntry(
  scope: PermissionScope,
  kind: string,
  value: string,
): string | undefined {
  if (!isPermissionKind(kind)) {
    return `unknown permission kind "${kind}": expected one of ${
      PERMISSION_KINDS.map((k) => `"${k}"`).join(", ")
    }, as in "@allow read ./data"`;
  }
  const why = checkPermissionValue(kind, value);
  if (why) return why;
  const list = scope[kind] ??= [];
  if (!list.includes(value)) list.push(value);
  return undefined;
}
