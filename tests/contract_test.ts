/**
 * The loader contract: the same expectations, run through all three loaders with one
 * table of per-format fixtures (Hono's shared router suite, applied to loaders).
 *
 * @module
 */
import assert from "node:assert/strict";
import { loadManifest, MANIFEST_CODES } from "../lib/tools/loaders/manifest.ts";
import { loadNanocoder, NANOCODER_CODES } from "../lib/tools/loaders/nanocoder.ts";
import { loadOctomind, OCTOMIND_CODES } from "../lib/tools/loaders/octomind.ts";
import {
  type CodeInfo,
  type Diagnostic,
  type LoadContext,
  type LoadResult,
  type PermissionScope,
  toFunctionSpec,
  type ToolFormat,
} from "../lib/types.ts";

const P = "/p";
const CTX: LoadContext = { mode: 0o755, projectDir: P };

/** One fixture: the file (path and text) and what the contract expects of it. */
interface Fixture {
  path: string;
  text: string;
}

/** What a case expects of a format where the formats legitimately differ. */
interface Outcome {
  /** The diagnostic code the fixture must produce (`undefined`: no error or warning at all). */
  code?: string;
  /** Whether the tool is still loaded. */
  loads: boolean;
}

interface FormatCase {
  format: Exclude<ToolFormat, "builtin">;
  load: (path: string, text: string, ctx: LoadContext) => LoadResult;
  catalogue: readonly CodeInfo[];
  /** A tool "greet", description "Say hello", one required string parameter "who". */
  valid: Fixture;
  missingDescription: Fixture & Outcome;
  badName: Fixture & Outcome;
  badType: Fixture & Outcome;
  /** Declares read ./data and net api.github.com:443. */
  permissions: Fixture;
  /** Declares read ./data (valid) and net https://x (invalid). */
  badPermission: Fixture & { code: string };
}

const OCTO = `${P}/.agents/tools/greet`;
const NANO = `${P}/.nanocoder/tools/greet.md`;
const MANI = `${P}/tools.json`;

const octoHeader = (lines: string[]) =>
  ["#!/bin/sh", ...lines, 'echo "hi $OCTOMIND_PARAM_WHO"', ""]
    .join("\n");
const nanoFile = (front: string[]) => ["---", ...front, "---", "echo {{ who }}", ""].join("\n");
const manifest = (entry: Record<string, unknown>) =>
  JSON.stringify({ tools: [{ command: ["./tools/bin/greet"], ...entry }] }, null, 2) + "\n";
const WHO_SCHEMA = {
  type: "object",
  properties: { who: { type: "string", description: "Who to greet" } },
  required: ["who"],
};

const FORMATS: FormatCase[] = [
  {
    format: "octomind",
    load: loadOctomind,
    catalogue: OCTOMIND_CODES,
    valid: {
      path: OCTO,
      text: octoHeader(["# @description Say hello", "# @param *who string Who to greet"]),
    },
    missingDescription: {
      path: OCTO,
      text: octoHeader(["# @param *who string Who to greet"]),
      code: "octomind/missing-description",
      loads: false,
    },
    badName: {
      path: `${P}/.agents/tools/greet me`,
      text: octoHeader(["# @description Say hello"]),
      code: "octomind/invalid-name",
      loads: false,
    },
    badType: {
      path: OCTO,
      text: octoHeader(["# @description Say hello", "# @param *who strnig Who to greet"]),
      code: "octomind/unknown-type",
      loads: true,
    },
    permissions: {
      path: OCTO,
      text: octoHeader([
        "# @description Say hello",
        "# @allow read ./data",
        "# @allow net api.github.com:443",
      ]),
    },
    badPermission: {
      path: OCTO,
      text: octoHeader([
        "# @description Say hello",
        "# @allow read ./data",
        "# @allow net https://x",
      ]),
      code: "octomind/invalid-permission",
    },
  },
  {
    format: "nanocoder",
    load: loadNanocoder,
    catalogue: NANOCODER_CODES,
    valid: {
      path: NANO,
      text: nanoFile([
        "name: greet",
        "description: Say hello",
        "parameters:",
        "  who:",
        "    type: string",
        "    required: true",
        "    description: Who to greet",
      ]),
    },
    missingDescription: {
      path: NANO,
      text: nanoFile(["name: greet"]),
      code: "nanocoder/missing-description",
      loads: false,
    },
    badName: {
      path: NANO,
      text: nanoFile(["name: Greet Me", "description: Say hello"]),
      code: "nanocoder/invalid-name",
      loads: false,
    },
    badType: {
      path: NANO,
      text: nanoFile([
        "name: greet",
        "description: Say hello",
        "parameters:",
        "  who:",
        "    type: strnig",
      ]),
      code: "nanocoder/invalid-parameter-type",
      loads: false,
    },
    permissions: {
      path: NANO,
      text: nanoFile([
        "name: greet",
        "description: Say hello",
        "permissions:",
        "  read: [./data]",
        "  net: [api.github.com:443]",
      ]),
    },
    badPermission: {
      path: NANO,
      text: nanoFile([
        "name: greet",
        "description: Say hello",
        "permissions:",
        "  read: [./data]",
        "  net: ['https://x']",
      ]),
      code: "nanocoder/invalid-permission",
    },
  },
  {
    format: "manifest",
    load: loadManifest,
    catalogue: MANIFEST_CODES,
    valid: {
      path: MANI,
      text: manifest({ name: "greet", description: "Say hello", schema: WHO_SCHEMA }),
    },
    // agentcli allows an entry without a description and omits the key: so do we.
    missingDescription: {
      path: MANI,
      text: manifest({ name: "greet", schema: WHO_SCHEMA }),
      loads: true,
    },
    badName: {
      path: MANI,
      text: manifest({ name: "", description: "Say hello" }),
      code: "manifest/missing-name",
      loads: false,
    },
    badType: {
      path: MANI,
      text: manifest({ name: "greet", description: "Say hello", timeoutSec: "5" }),
      code: "manifest/type-error",
      loads: false,
    },
    permissions: {
      path: MANI,
      text: manifest({
        name: "greet",
        description: "Say hello",
        permissions: { read: ["./data"], net: ["api.github.com:443"] },
      }),
    },
    badPermission: {
      path: MANI,
      text: manifest({
        name: "greet",
        description: "Say hello",
        permissions: { read: ["./data"], net: ["https://x"] },
      }),
      code: "manifest/invalid-permission",
    },
  },
];

/** Invariants of every result: codes from the catalogue with their severity, real positions. */
function checkResult(c: FormatCase, f: Fixture, result: LoadResult): void {
  const severities = new Map(c.catalogue.map((i) => [i.code, i.severity]));
  const lines = f.text.split("\n").length;
  for (const d of result.diagnostics) {
    assert.equal(severities.get(d.code), d.severity, `${d.code} is in the ${c.format} catalogue`);
    assert.equal(d.file, f.path, `${d.code} names the file`);
    assert.ok(d.message.length > 0);
    if (d.line !== undefined) assert.ok(d.line >= 1 && d.line <= lines, `${d.code} line ${d.line}`);
    if (d.column !== undefined) assert.ok(d.column >= 1, `${d.code} column ${d.column}`);
  }
  for (const t of result.tools) {
    assert.equal(t.source.format, c.format);
    assert.equal(t.source.path, f.path);
  }
}

function run(c: FormatCase, f: Fixture): LoadResult {
  const result = c.load(f.path, f.text, CTX);
  checkResult(c, f, result);
  return result;
}

const problems = (r: LoadResult) => r.diagnostics.filter((d) => d.severity !== "info");
const show = (ds: Diagnostic[]) => JSON.stringify(ds.map((d) => [d.code, d.line, d.message]));

function expectOutcome(r: LoadResult, o: Outcome): void {
  if (o.code === undefined) {
    assert.deepEqual(problems(r), [], show(r.diagnostics));
  } else {
    const found = r.diagnostics.filter((d) => d.code === o.code);
    assert.equal(found.length, 1, `one ${o.code} in ${show(r.diagnostics)}`);
    if (!o.loads) assert.equal(found[0].severity, "error", "a skipped file gets an error");
  }
  assert.equal(r.tools.length, o.loads ? 1 : 0, show(r.diagnostics));
}

for (const c of FORMATS) {
  Deno.test(`load${cap(c.format)}() contract: a valid tool loads with what the model sees`, () => {
    const r = run(c, c.valid);
    assert.deepEqual(problems(r), [], show(r.diagnostics));
    assert.equal(r.tools.length, 1);
    const spec = toFunctionSpec(r.tools[0]);
    assert.deepEqual(Object.keys(spec), ["name", "description", "parameters"]);
    assert.equal(spec.name, "greet");
    assert.equal(spec.description, "Say hello");
    const params = spec.parameters as typeof WHO_SCHEMA;
    assert.equal(params.type, "object");
    assert.equal(params.properties.who.type, "string");
    assert.equal(params.properties.who.description, "Who to greet");
    assert.deepEqual(params.required, ["who"]);
    assert.equal(r.tools[0].permissions, undefined, "no declaration, no permissions");
    assert.ok(r.tools[0].timeoutMs > 0);
  });

  Deno.test(`load${cap(c.format)}() contract: a missing description`, () => {
    const r = run(c, c.missingDescription);
    expectOutcome(r, c.missingDescription);
    if (c.missingDescription.loads) {
      assert.equal(r.tools[0].description, undefined);
      assert.ok(!("description" in toFunctionSpec(r.tools[0])), "the key is omitted");
    } else {
      const d = r.diagnostics.find((x) => x.code === c.missingDescription.code)!;
      assert.match(d.message, /description/);
    }
  });

  Deno.test(`load${cap(c.format)}() contract: a bad name is an error and skips the tool`, () => {
    const r = run(c, c.badName);
    expectOutcome(r, c.badName);
    assert.ok(c.badName.code?.endsWith("-name"));
  });

  Deno.test(`load${cap(c.format)}() contract: a bad type is reported at its line`, () => {
    const r = run(c, c.badType);
    expectOutcome(r, c.badType);
    const d = r.diagnostics.find((x) => x.code === c.badType.code)!;
    assert.ok(d.line !== undefined && d.line > 1, `located: ${show([d])}`);
    const lineText = c.badType.text.split("\n")[d.line - 1];
    assert.match(lineText, /strnig|timeoutSec/);
    if (c.badType.loads) {
      const p = r.tools[0].parameters as typeof WHO_SCHEMA;
      assert.equal(p.properties.who.type, "string", "falls back as the original does");
    }
  });

  Deno.test(`load${cap(c.format)}() contract: a valid permission declaration sets permissions`, () => {
    const r = run(c, c.permissions);
    assert.deepEqual(problems(r), [], show(r.diagnostics));
    assert.equal(r.tools.length, 1);
    assert.deepEqual(
      r.tools[0].permissions,
      {
        read: ["./data"],
        net: ["api.github.com:443"],
      } satisfies PermissionScope,
    );
  });

  Deno.test(`load${cap(c.format)}() contract: a malformed permission is an error, the tool keeps the valid part`, () => {
    const r = run(c, c.badPermission);
    const found = r.diagnostics.filter((d) => d.code === c.badPermission.code);
    assert.equal(found.length, 1, show(r.diagnostics));
    assert.equal(found[0].severity, "error");
    assert.match(found[0].message, /https:\/\/x/);
    assert.ok(found[0].line !== undefined, "located");
    assert.match(c.badPermission.text.split("\n")[found[0].line - 1], /https:\/\/x/);
    assert.equal(r.tools.length, 1, "still loaded");
    assert.deepEqual(r.tools[0].permissions?.read, ["./data"]);
    assert.ok(!(r.tools[0].permissions?.net ?? []).includes("https://x"));
  });
}

function cap(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}
