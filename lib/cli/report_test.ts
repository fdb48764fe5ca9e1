import assert from "node:assert/strict";
import type { CodeInfo, Diagnostic } from "../types.ts";
import {
  formatGithub,
  formatJson,
  formatSarif,
  formatText,
  relativeTo,
  summarize,
} from "./report.ts";
import { makeStyle } from "./style.ts";

const BASE = "/proj";
const plain = makeStyle(false);

const ERROR: Diagnostic = {
  severity: "error",
  code: "nanocoder/invalid-name",
  message: 'Tool name "Bad" is invalid: use lower case',
  file: "/proj/.nanocoder/tools/bad.md",
  line: 2,
  column: 7,
  tool: "Bad",
};
const WARNING: Diagnostic = {
  severity: "warning",
  code: "registry/shadowed",
  message: 'Tool "x" is shadowed',
  file: "/proj/.agents/tools/x",
  line: 3,
};
const INFO: Diagnostic = {
  severity: "info",
  code: "octomind/note",
  message: "just so you know",
  file: "/elsewhere/tools.json",
};

Deno.test("summarize() counts errors and warnings, not infos", () => {
  assert.deepEqual(summarize(7, [ERROR, WARNING, INFO, ERROR]), {
    tools: 7,
    errors: 2,
    warnings: 1,
  });
});

Deno.test("relativeTo() strips the base only for paths inside it", () => {
  assert.equal(relativeTo("/proj", "/proj/a/b"), "a/b");
  assert.equal(relativeTo("/proj/", "/proj/a"), "a");
  assert.equal(relativeTo("/proj", "/project/a"), "/project/a");
  assert.equal(relativeTo("/proj", "/other"), "/other");
});

Deno.test("formatText() prints file:line:col: severity CODE: message and a summary", () => {
  const text = formatText(
    [ERROR, WARNING, INFO],
    summarize(3, [ERROR, WARNING, INFO]),
    BASE,
    plain,
  );
  assert.equal(
    text,
    '.nanocoder/tools/bad.md:2:7: error nanocoder/invalid-name: Tool name "Bad" is invalid: use lower case\n' +
      '.agents/tools/x:3:1: warning registry/shadowed: Tool "x" is shadowed\n' +
      "/elsewhere/tools.json: info octomind/note: just so you know\n" +
      "3 tools checked: 1 error, 1 warning\n",
  );
});

Deno.test("formatText() pluralizes the summary and colors it by outcome", () => {
  assert.equal(
    formatText([], summarize(1, []), BASE, plain),
    "1 tool checked: 0 errors, 0 warnings\n",
  );
  const color = makeStyle(true);
  const ESC = "\x1b[";
  assert.ok(formatText([], summarize(0, []), BASE, color).startsWith(`${ESC}32m`));
  assert.ok(
    formatText([WARNING], summarize(0, [WARNING]), BASE, color).includes(`\n${ESC}33m0 tools`),
  );
  assert.ok(formatText([ERROR], summarize(0, [ERROR]), BASE, color).includes(`\n${ESC}31m0 tools`));
});

Deno.test("formatJson() has version, summary and every diagnostic field", () => {
  const out = formatJson([ERROR, INFO], summarize(2, [ERROR, INFO]));
  assert.ok(out.endsWith("}\n"));
  const parsed = JSON.parse(out);
  assert.deepEqual(parsed, {
    version: 1,
    summary: { tools: 2, errors: 1, warnings: 0 },
    diagnostics: [
      {
        severity: "error",
        code: "nanocoder/invalid-name",
        message: 'Tool name "Bad" is invalid: use lower case',
        file: "/proj/.nanocoder/tools/bad.md",
        line: 2,
        column: 7,
        tool: "Bad",
      },
      {
        severity: "info",
        code: "octomind/note",
        message: "just so you know",
        file: "/elsewhere/tools.json",
        line: null,
        column: null,
        tool: null,
      },
    ],
  });
});

Deno.test("formatGithub() writes one workflow command per diagnostic", () => {
  assert.equal(
    formatGithub([ERROR, WARNING, INFO], BASE),
    '::error file=.nanocoder/tools/bad.md,line=2,col=7,title=nanocoder/invalid-name::Tool name "Bad" is invalid: use lower case\n' +
      '::warning file=.agents/tools/x,line=3,title=registry/shadowed::Tool "x" is shadowed\n' +
      "::notice file=/elsewhere/tools.json,title=octomind/note::just so you know\n",
  );
  assert.equal(formatGithub([], BASE), "");
});

Deno.test("formatGithub() escapes %, CR and LF in messages and , : in properties", () => {
  const d: Diagnostic = {
    severity: "error",
    code: "x/y",
    message: "100% bad\r\nsecond: line, here",
    file: "/proj/a,b:c%.md",
    line: 1,
  };
  assert.equal(
    formatGithub([d], BASE),
    "::error file=a%2Cb%3Ac%25.md,line=1,title=x/y::100%25 bad%0D%0Asecond: line, here\n",
  );
});

Deno.test("formatSarif() writes a SARIF 2.1.0 run with rules and located results", () => {
  const rules: CodeInfo[] = [
    { code: "nanocoder/invalid-name", severity: "error", summary: "Bad name" },
    { code: "registry/shadowed", severity: "warning", summary: "Shadowed" },
    { code: "unused/code", severity: "error", summary: "Never emitted here" },
  ];
  const sarif = JSON.parse(formatSarif([ERROR, WARNING, INFO], BASE, rules, "9.9.9"));
  assert.equal(sarif.version, "2.1.0");
  assert.match(sarif.$schema, /sarif-2\.1\.0/);
  assert.equal(sarif.runs.length, 1);
  const driver = sarif.runs[0].tool.driver;
  assert.equal(driver.name, "harness");
  assert.equal(driver.version, "9.9.9");
  assert.deepEqual(
    driver.rules.map((r: { id: string }) => r.id),
    ["nanocoder/invalid-name", "registry/shadowed", "octomind/note"],
  );
  assert.equal(driver.rules[0].shortDescription.text, "Bad name");
  assert.equal(driver.rules[1].defaultConfiguration.level, "warning");
  const [e, w, i] = sarif.runs[0].results;
  assert.equal(e.ruleId, "nanocoder/invalid-name");
  assert.equal(e.ruleIndex, 0);
  assert.equal(e.level, "error");
  assert.equal(e.message.text, ERROR.message);
  assert.equal(e.locations[0].physicalLocation.artifactLocation.uri, ".nanocoder/tools/bad.md");
  assert.deepEqual(e.locations[0].physicalLocation.region, { startLine: 2, startColumn: 7 });
  assert.equal(w.level, "warning");
  assert.equal(w.ruleIndex, 1);
  assert.deepEqual(w.locations[0].physicalLocation.region, { startLine: 3, startColumn: 1 });
  assert.equal(i.level, "note");
  assert.equal(i.ruleIndex, 2);
  assert.equal(i.locations[0].physicalLocation.region, undefined);
});

Deno.test("formatSarif() has an empty result list when nothing was found", () => {
  const sarif = JSON.parse(formatSarif([], BASE, [], "1.0.0"));
  assert.deepEqual(sarif.runs[0].results, []);
  assert.deepEqual(sarif.runs[0].tool.driver.rules, []);
});

Deno.test("formatSarif() encodes paths as URIs, relative to the source root when inside it", () => {
  const diagnostics = [
    { severity: "error" as const, code: "x/y", message: "m", file: "/p/a b/c.md", line: 1 },
    { severity: "warning" as const, code: "x/y", message: "m", file: "/home/u/.config/t.md" },
  ];
  const sarif = JSON.parse(formatSarif(diagnostics, "/p", [], "1.0.0"));
  const locations = sarif.runs[0].results.map((
    r: { locations: { physicalLocation: { artifactLocation: unknown } }[] },
  ) => r.locations[0].physicalLocation.artifactLocation);
  assert.deepEqual(locations, [
    { uri: "a%20b/c.md", uriBaseId: "%SRCROOT%" },
    { uri: "file:///home/u/.config/t.md" },
  ]);
});
