import { deepStrictEqual as assertEquals, equal, ok } from "node:assert/strict";
import type { Diagnostic, LoadResult } from "../../types.ts";
import { loadNanocoder, NANOCODER_CODES } from "./nanocoder.ts";

const CTX = { mode: null, projectDir: "/p" };
const PATH = "/p/.nanocoder/tools/t.md";

function load(text: string, path = PATH): LoadResult {
  return loadNanocoder(path, text, CTX);
}

/** A file with a valid name and description plus `front` lines. */
function file(front: string, body = "echo hi"): string {
  return `---\nname: t\ndescription: D\n${front}\n---\n${body}\n`;
}

function only(result: LoadResult, code: string): Diagnostic {
  const found = result.diagnostics.filter((d) => d.code === code);
  equal(found.length, 1, `one ${code} in ${JSON.stringify(result.diagnostics, null, 1)}`);
  return found[0]!;
}

function codes(result: LoadResult): { code: string; line?: number }[] {
  return result.diagnostics.map(({ code, line }) => ({ code, line }));
}

const SEED = `---
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
`;

Deno.test("loadNanocoder() loads the seed's k8s_pods example exactly", () => {
  const result = load(SEED, "/p/.nanocoder/tools/k8s-pods.md");
  assertEquals(result.diagnostics, []);
  const schema = {
    type: "object",
    properties: {
      namespace: {
        type: "string",
        description: "The Kubernetes namespace",
        pattern: "^[a-z0-9-]+$",
        maxLength: 63,
      },
      selector: { type: "string", description: 'Optional label selector (e.g. "app=api")' },
    },
    required: ["namespace"],
    additionalProperties: false,
  };
  assertEquals(result.tools, [{
    name: "k8s_pods",
    description: "List pods in a Kubernetes namespace. Returns kubectl output as text.",
    parameters: schema,
    source: { format: "nanocoder", path: "/p/.nanocoder/tools/k8s-pods.md" },
    runner: {
      kind: "template",
      body: 'kubectl get pods -n {{ namespace }} {{# selector }}-l "{{ selector }}"{{/ selector }}',
    },
    approval: "never",
    readOnly: true,
    timeoutMs: 30000,
  }]);
  equal(
    JSON.stringify(result.tools[0]!.parameters),
    '{"type":"object","properties":{"namespace":{"type":"string","description":"The Kubernetes namespace",' +
      '"pattern":"^[a-z0-9-]+$","maxLength":63},"selector":{"type":"string","description":' +
      '"Optional label selector (e.g. \\"app=api\\")"}},"required":["namespace"],"additionalProperties":false}',
  );
});

Deno.test("loadNanocoder() applies Nanocoder's defaults", () => {
  const [tool] = load(file("")).tools;
  assertEquals(tool!.parameters, {
    type: "object",
    properties: {},
    required: [],
    additionalProperties: false,
  });
  assertEquals(tool!.runner, { kind: "template", body: "echo hi" });
  equal(tool!.approval, "always");
  equal(tool!.readOnly, false);
  equal(tool!.timeoutMs, 30000);
  equal(tool!.permissions, undefined);
  equal(load(file("approval: never")).tools[0]!.readOnly, true);
  equal(load(file("approval: never\nread_only: false")).tools[0]!.readOnly, false);
  equal(load(file("approval: destructive\nread_only: true")).tools[0]!.readOnly, true);
  const nulls = load(file("parameters:\napproval:\nread_only:\ntimeout_ms:\nenv:\nshell:"))
    .tools[0]!;
  assertEquals([nulls.approval, nulls.readOnly, nulls.timeoutMs], ["always", false, 30000]);
  assertEquals(nulls.runner, { kind: "template", body: "echo hi" });
});

Deno.test("loadNanocoder() fills the runner from shell, cwd and env", () => {
  const text = file(
    "shell: sh\ncwd: ./scripts\nenv:\n  A: 1\n  B: true\n  C:\n  D: ${HOME}/x\n  E: yes",
  );
  assertEquals(load(text).tools[0]!.runner, {
    kind: "template",
    shell: "sh",
    body: "echo hi",
    cwd: "./scripts",
    env: { A: "1", B: "true", C: "", D: "${HOME}/x", E: "yes" },
  });
});

Deno.test("loadNanocoder() turns an env list or mapping into text with a warning", () => {
  const result = load(file("env:\n  A: [1, 2]\n  B: {toString: 1}"));
  assertEquals(result.tools[0]!.runner, {
    kind: "template",
    body: "echo hi",
    env: { A: "1,2", B: "[object Object]" },
  });
  assertEquals(codes(result), [
    { code: "nanocoder/env-value-not-scalar", line: 5 },
    { code: "nanocoder/env-value-not-scalar", line: 6 },
  ]);
});

Deno.test("loadNanocoder() trims the description and the body", () => {
  const [tool] =
    load("---\nname: t\ndescription: '  Spaced  '\n---\n\n\n  echo a\n\n  echo b  \n\n").tools;
  equal(tool!.description, "Spaced");
  equal((tool!.runner as { body: string }).body, "echo a\n\n  echo b");
});

Deno.test("loadNanocoder() takes the name from the front matter, never the file", () => {
  const result = load(file(""), "/p/.nanocoder/tools/Other Name.md");
  equal(result.tools[0]!.name, "t");
  const info = only(result, "nanocoder/name-differs-from-file");
  equal(info.severity, "info");
  equal(info.line, 2);
  equal(info.tool, "t");
  assertEquals(load(file(""), "/p/.nanocoder/tools/.t.md").diagnostics.length, 1);
  assertEquals(load(SEED, "/p/.nanocoder/tools/k8s-pods.md").diagnostics, []);
});

const TOP_LEVEL_RULES: [string, string, string, number][] = [
  // [front matter lines after name/description, code, message prefix, line]
  [
    "approval: ask",
    "nanocoder/invalid-approval",
    'Invalid "approval" value — expected one of: never, always, destructive: got "ask"',
    4,
  ],
  ["read_only: 1", "nanocoder/invalid-read-only", '"read_only" must be a boolean: got 1', 4],
  ["x: 1\ntimeout_ms: '5'", "nanocoder/invalid-timeout", "timeout_ms must be a finite number: ", 5],
  ["timeout_ms: .inf", "nanocoder/invalid-timeout", "timeout_ms must be a finite number: ", 4],
  ["timeout_ms: 1.5", "nanocoder/invalid-timeout", "timeout_ms must be an integer: got 1.5", 4],
  ["timeout_ms: 0", "nanocoder/invalid-timeout", '"timeout_ms" must be positive: got 0', 4],
  [
    "timeout_ms: 300001",
    "nanocoder/invalid-timeout",
    '"timeout_ms" exceeds maximum of 300000: got 300001',
    4,
  ],
  ["cwd: 5", "nanocoder/invalid-cwd", "cwd must be a string: got 5", 4],
  ["cwd:", "nanocoder/invalid-cwd", "cwd must be a string: got nothing (null)", 4],
  ["env: [A]", "nanocoder/invalid-env", '"env" must be a mapping of name → value: got a list', 4],
  ["env: A=1", "nanocoder/invalid-env", '"env" must be a mapping of name → value: got "A=1"', 4],
  [
    "shell: zsh",
    "nanocoder/invalid-shell",
    'Invalid "shell" — expected one of: bash, sh: got "zsh"',
    4,
  ],
];

Deno.test("loadNanocoder() reports each top-level rule with Nanocoder's text and its line", () => {
  for (const [front, code, prefix, line] of TOP_LEVEL_RULES) {
    const result = load(file(front));
    equal(result.tools.length, 0, front);
    const d = only(result, code);
    ok(d.message.startsWith(prefix), `${front}: ${d.message}`);
    assertEquals([d.severity, d.line, d.file, d.tool], ["error", line, PATH, "t"], front);
  }
});

Deno.test("loadNanocoder() checks the name", () => {
  const missing = only(load("---\ndescription: D\n---\necho\n"), "nanocoder/invalid-name");
  equal(
    missing.message,
    'Invalid or missing "name" — must match /^[a-z][a-z0-9_]*$/ (snake_case starting with a letter): add a line such as "name: t"',
  );
  equal(missing.line, 1);
  equal(missing.tool, undefined);
  const bad = only(
    load("---\ndescription: D\nname: K8s-Pods\n---\necho\n"),
    "nanocoder/invalid-name",
  );
  ok(bad.message.endsWith(': got "K8s-Pods"; write "k8s_pods"'), bad.message);
  equal(bad.line, 3);
  equal(bad.column, 7);
  ok(
    only(load("---\nname: 42\ndescription: D\n---\necho\n"), "nanocoder/invalid-name").message
      .endsWith('got 42; write a snake_case name such as "t"'),
  );
});

Deno.test("loadNanocoder() checks the description", () => {
  const missing = only(load("---\nname: t\n---\necho\n"), "nanocoder/missing-description");
  ok(missing.message.startsWith('Missing "description": add a line such as'), missing.message);
  equal(missing.line, 1);
  const empty = only(
    load("---\nname: t\ndescription: '  '\n---\necho\n"),
    "nanocoder/missing-description",
  );
  equal(empty.message, 'Missing "description": it is empty; say what the tool does');
  equal(empty.line, 3);
  ok(
    only(load("---\nname: t\ndescription: [a]\n---\necho\n"), "nanocoder/missing-description")
      .message.includes("got a list"),
  );
});

Deno.test("loadNanocoder() reads yes and no as strings (YAML 1.2)", () => {
  equal(load("---\nname: t\ndescription: no\n---\necho\n").tools[0]!.description, "no");
  const d = only(load(file("read_only: yes")), "nanocoder/invalid-read-only");
  equal(
    d.message,
    '"read_only" must be a boolean: got "yes"; write true or false (YAML 1.2 reads yes, no, on and off as text)',
  );
});

Deno.test("loadNanocoder() rejects an empty body at the closing marker", () => {
  const d = only(load("---\nname: t\ndescription: D\n---\n  \n\n"), "nanocoder/empty-body");
  equal(
    d.message,
    'Tool body (shell script) is empty: write the command to run after the closing "---"',
  );
  equal(d.line, 4);
});

Deno.test("loadNanocoder() reports every failure, in Nanocoder's order", () => {
  const text = "---\nshell: fish\nenv: 1\ncwd: 2\ntimeout_ms: -1\nread_only: 3\napproval: 4\n" +
    "parameters: 5\ndescription: 6\nname: 7\n---\n";
  assertEquals(codes(load(text)), [
    { code: "nanocoder/invalid-name", line: 10 },
    { code: "nanocoder/missing-description", line: 9 },
    { code: "nanocoder/invalid-parameters", line: 8 },
    { code: "nanocoder/invalid-approval", line: 7 },
    { code: "nanocoder/invalid-read-only", line: 6 },
    { code: "nanocoder/invalid-timeout", line: 5 },
    { code: "nanocoder/invalid-cwd", line: 4 },
    { code: "nanocoder/invalid-env", line: 3 },
    { code: "nanocoder/invalid-shell", line: 2 },
    { code: "nanocoder/empty-body", line: 11 },
  ]);
});

Deno.test("loadNanocoder() needs front matter at the very start", () => {
  const prefix =
    "Missing YAML frontmatter — custom tools must declare metadata between --- markers: ";
  const cases: [string, string][] = [
    ["echo hi\n", "start the file with"],
    ["\uFEFF---\nname: t\ndescription: D\n---\necho\n", "the file starts with a byte order mark"],
    ["\n---\nname: t\ndescription: D\n---\necho\n", "remove the blank lines"],
    ["---\nname: t\ndescription: D\necho\n", 'add a closing "---" line'],
  ];
  for (const [text, fix] of cases) {
    const result = load(text);
    const d = only(result, "nanocoder/missing-frontmatter");
    ok(d.message.startsWith(prefix + fix), d.message);
    equal(d.line, 1);
    equal(result.diagnostics.length, 1);
  }
});

Deno.test("loadNanocoder() treats empty front matter as {} and fails on the name", () => {
  assertEquals(codes(load("---\n---\necho hi\n")), [
    { code: "nanocoder/invalid-name", line: 1 },
    { code: "nanocoder/missing-description", line: 1 },
  ]);
});

Deno.test("loadNanocoder() ends the front matter at the first --- line and keeps later ones in the body", () => {
  const result = load("---\nname: t\ndescription: D\n---\necho 1\n---\necho 2\n");
  equal((result.tools[0]!.runner as { body: string }).body, "echo 1\n---\necho 2");
});

Deno.test("loadNanocoder() loads CRLF files like LF files, with the same lines", () => {
  const crlf = SEED.replaceAll("\n", "\r\n");
  const [tool] = load(crlf, "/p/.nanocoder/tools/k8s-pods.md").tools;
  assertEquals(tool!.parameters, load(SEED).tools[0]!.parameters);
  const bad = file("x: 1\napproval: ask").replaceAll("\n", "\r\n");
  equal(only(load(bad), "nanocoder/invalid-approval").line, 5);
});

Deno.test("loadNanocoder() rejects invalid YAML with the detail at the file's line", () => {
  const dup = only(
    load("---\n\nname: t\ndescription: D\nname: u\n---\necho\n"),
    "nanocoder/invalid-yaml",
  );
  equal(
    dup.message,
    "Frontmatter is not a valid YAML object: Map keys must be unique (line 5, column 1): keep only one of the duplicate keys",
  );
  assertEquals([dup.line, dup.column], [5, 1]);
  const syntax = load("---\nname: t\ndescription: [D\n---\necho\n");
  equal(syntax.tools.length, 0);
  ok(syntax.diagnostics.every((d) => d.code === "nanocoder/invalid-yaml" && d.line! >= 2));
  const list = only(load("---\n- name: t\n---\necho\n"), "nanocoder/invalid-yaml");
  ok(list.message.startsWith("Frontmatter is not a valid YAML object: the front matter is a list"));
  equal(list.line, 2);
  ok(
    only(load("---\n# nothing\n---\necho\n"), "nanocoder/invalid-yaml").message.includes("no keys"),
  );
});

Deno.test("loadNanocoder() passes YAML warnings on and still loads", () => {
  const result = load(file("cwd: !!foo ./x"));
  equal(only(result, "nanocoder/yaml-warning").line, 4);
  equal((result.tools[0]!.runner as { cwd?: string }).cwd, "./x");
});

Deno.test("loadNanocoder() warns about unknown keys and suggests the right one", () => {
  const text = file(
    "readonly: true\nreadOnly: true\ntimeout: 5\nargs: {}\nparams: {}\ndescripton: x\nfoo: 1",
  );
  const result = load(text);
  equal(result.tools.length, 1);
  const messages = result.diagnostics.map((d) => `${d.line} ${d.message}`);
  assertEquals(messages.slice(0, 6), [
    '4 Unknown front-matter key "readonly" is ignored: did you mean "read_only"?',
    '5 Unknown front-matter key "readOnly" is ignored: did you mean "read_only"?',
    '6 Unknown front-matter key "timeout" is ignored: did you mean "timeout_ms"?',
    '7 Unknown front-matter key "args" is ignored: did you mean "parameters"?',
    '8 Unknown front-matter key "params" is ignored: did you mean "parameters"?',
    '9 Unknown front-matter key "descripton" is ignored: did you mean "description"?',
  ]);
  ok(
    messages[6]!.startsWith(
      '10 Unknown front-matter key "foo" is ignored: remove it, or use one of: name,',
    ),
  );
  ok(result.diagnostics.every((d) => d.severity === "warning"));
  assertEquals(load(file("subscribe: []\npermissions: {}")).diagnostics, []);
});

Deno.test("loadNanocoder() reads permissions and keeps the valid part of a bad declaration", () => {
  const good = load(file("permissions:\n  read: [./data]\n  net: ['api.github.com:443']"));
  assertEquals(good.tools[0]!.permissions, { read: ["./data"], net: ["api.github.com:443"] });
  const bad = load(
    file("permissions:\n  net: [ok.example.com, 'http://x']\n  disk: [a]\n  env: HOME"),
  );
  assertEquals(bad.tools[0]!.permissions, { net: ["ok.example.com"] });
  assertEquals(codes(bad), [
    { code: "nanocoder/invalid-permission", line: 5 },
    { code: "nanocoder/invalid-permission", line: 6 },
    { code: "nanocoder/invalid-permission", line: 7 },
  ]);
  equal(bad.diagnostics[1]!.column, 3, "an unknown kind points at the key");
  ok(bad.diagnostics.every((d) => d.severity === "error"));
  const scalar = load(file("permissions: all"));
  assertEquals(scalar.tools[0]!.permissions, {}, "a non-mapping declaration grants nothing");
  equal(only(scalar, "nanocoder/invalid-permission").line, 4);
});

Deno.test("NANOCODER_CODES lists unique, prefixed codes", () => {
  const all = NANOCODER_CODES.map((c) => c.code);
  equal(new Set(all).size, all.length);
  ok(all.every((c) => /^nanocoder\/[a-z]+(-[a-z]+)*$/.test(c)), all.join());
  ok(NANOCODER_CODES.every((c) => c.summary.length > 0 && !c.summary.endsWith(".")));
});
