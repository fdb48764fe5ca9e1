import { deepStrictEqual as assertEquals, equal, ok } from "node:assert/strict";
import type { LoadResult } from "../../types.ts";
import { loadNanocoder, NANOCODER_CODES } from "./nanocoder.ts";

const CTX = { mode: null, projectDir: "/p" };
const FIXTURES = new URL("../../../tests/fixtures/broken/nanocoder/", import.meta.url);
const KNOWN = new Set(NANOCODER_CODES.map((c) => c.code));

Deno.test("loadNanocoder() reports what EXPECTED.json says for every broken fixture", async () => {
  const expected: Record<string, { code: string; line: number }[]> = JSON.parse(
    await Deno.readTextFile(new URL("EXPECTED.json", FIXTURES)),
  );
  const files = [...Deno.readDirSync(FIXTURES)].map((e) => e.name).filter((n) => n.endsWith(".md"))
    .sort();
  ok(files.length >= 16, `${files.length} fixtures`);
  assertEquals(files, Object.keys(expected).sort(), "EXPECTED.json lists exactly the fixtures");
  for (const name of files) {
    const path = new URL(name, FIXTURES).pathname;
    // Deno.readTextFile keeps a BOM, as Nanocoder's readFileSync(path, "utf-8") does.
    const result = loadNanocoder(path, await Deno.readTextFile(path), CTX);
    assertEquals(
      result.diagnostics.map(({ code, line }) => ({ code, line })),
      expected[name],
      name,
    );
    const rule = expected[name]![0]!.code.replace("nanocoder/", "");
    ok(name.startsWith(rule), `${name} is named after its rule ${rule}`);
    checkInvariants(result, path);
  }
});

/** The contract every result keeps, whatever the input. */
function checkInvariants(result: LoadResult, path: string): void {
  for (const d of result.diagnostics) {
    ok(KNOWN.has(d.code), `${d.code} is in NANOCODER_CODES`);
    equal(d.severity, NANOCODER_CODES.find((c) => c.code === d.code)!.severity, d.code);
    equal(d.file, path);
    ok(d.line! >= 1 && d.column! >= 1, `${d.code} at ${d.line}:${d.column}`);
    ok(d.message.length > 0 && !d.message.endsWith("."), d.message);
  }
  const blocking = result.diagnostics.some((d) =>
    d.severity === "error" && d.code !== "nanocoder/invalid-permission"
  );
  equal(result.tools.length, blocking ? 0 : 1, JSON.stringify(result.diagnostics));
  for (const tool of result.tools) {
    ok(/^[a-z][a-z0-9_]*$/.test(tool.name));
    ok(JSON.stringify(tool.parameters).startsWith('{"type":"object","properties":{'));
    equal(tool.source.path, path);
  }
}

const BASES = [
  `---
name: k8s_pods
description: List pods in a Kubernetes namespace. Returns kubectl output as text.
parameters:
  namespace:
    type: string
    required: true
    description: The Kubernetes namespace
    pattern: '^[a-z0-9-]+$'
    maxLength: 63
  selector:
    type: string
    description: Optional label selector (e.g. "app=api")
approval: never
read_only: true
---
kubectl get pods -n {{ namespace }} {{# selector }}-l "{{ selector }}"{{/ selector }}
`,
  `---
name: jira_ticket
description: |
  Fetch a Jira ticket.
parameters:
  - name: key
    type: string
    required: true
    enum: [ABC-1, ABC-2]
    default: ABC-1
  - name: fields
    type: array
    items: {type: string}
  - {name: limit, type: integer, min: 1, max: 50}
approval: destructive
timeout_ms: 60000
cwd: ./scripts
env:
  TOKEN: \${JIRA_TOKEN}
  DEBUG: 1
shell: bash
permissions:
  net: ['jira.example.com:443']
  env: [JIRA_TOKEN]
---
curl -s "https://jira.example.com/{{ key }}" {{# fields }}--fields {{ fields }}{{/ fields }}
`.replaceAll("\n", "\r\n"),
];

const TOKENS = [
  "yes",
  "null",
  "~",
  "object",
  ".inf",
  "-1",
  "1e999",
  "1.5",
  "[",
  "]",
  "{",
  "}",
  "&a ",
  "*a",
  "!!binary ",
  "!!str ",
  "---",
  "...",
  "toString",
  "__proto__",
  "constructor",
  "\uFEFF",
  "'",
  '"',
  ": ",
  "- ",
  "#",
  "|",
  ">",
  "\t",
  "\r",
  "\n",
  "{{",
  "}}",
  "type: object",
  "required: no",
  "pattern: '('",
  "- name: x",
  "permissions: 1",
  "name: 9",
  "",
];

/** mulberry32: a small seeded generator, so every run mutates the same way. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(text: string, rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const at = Math.floor(rnd() * (text.length + 1));
  const lines = text.split("\n");
  const line = Math.floor(rnd() * lines.length);
  switch (Math.floor(rnd() * 7)) {
    case 0:
      return text.slice(0, at) + text.slice(at + 1 + Math.floor(rnd() * 8));
    case 1:
      return text.slice(0, at) + pick(TOKENS) + text.slice(at);
    case 2:
      lines.splice(line, 0, lines[line]!);
      return lines.join("\n");
    case 3:
      lines.splice(line, 1);
      return lines.join("\n");
    case 4:
      lines[line] = (rnd() < 0.5 ? "  " : "") + lines[line]!.replace(/^ {2}/, "");
      return lines.join("\n");
    case 5: {
      const other = Math.floor(rnd() * lines.length);
      [lines[line], lines[other]] = [lines[other]!, lines[line]!];
      return lines.join("\n");
    }
    default:
      return text.replace(/: [^\n]*/, `: ${pick(TOKENS)}`);
  }
}

Deno.test("loadNanocoder() never throws on 1,000 seeded mutations of valid files", () => {
  const rnd = random(20260822);
  const seen = new Set<string>();
  for (const base of BASES) {
    const result = loadNanocoder("/p/t.md", base, CTX);
    equal(result.tools.length, 1, JSON.stringify(result.diagnostics));
  }
  for (let i = 0; i < 1000; i++) {
    let text = BASES[i % BASES.length]!;
    const n = 1 + Math.floor(rnd() * 3);
    for (let j = 0; j < n; j++) text = mutate(text, rnd);
    let result: LoadResult;
    try {
      result = loadNanocoder("/p/t.md", text, CTX);
    } catch (err) {
      throw new Error(`mutation ${i} threw on ${JSON.stringify(text)}`, { cause: err });
    }
    checkInvariants(result, "/p/t.md");
    for (const d of result.diagnostics) seen.add(d.code);
  }
  ok(seen.size >= 10, `the mutations reach many rules: ${[...seen].join(", ")}`);
});
