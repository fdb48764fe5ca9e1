import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { type Diagnostic, type LoadContext, type LoadResult, toFunctionSpec } from "../../types.ts";
import { loadOctomind, OCTOMIND_CODES } from "./octomind.ts";
import { assertWellFormed, mutate, prng } from "./_fuzz.ts";

const CTX: LoadContext = { mode: 0o755, projectDir: "/p" };
const DIR = "/p/.agents/tools";

function load(text: string, name = "t", ctx: LoadContext = CTX): LoadResult {
  return loadOctomind(`${DIR}/${name}`, text, ctx);
}

/** The one diagnostic with `code`; fails if there is not exactly one. */
function one(result: LoadResult, code: string): Diagnostic {
  const found = result.diagnostics.filter((d) => d.code === code);
  equal(found.length, 1, `expected one ${code}, got ${JSON.stringify(result.diagnostics)}`);
  return found[0]!;
}

function codes(result: LoadResult): string[] {
  return result.diagnostics.map((d) => d.code);
}

function params(result: LoadResult): unknown {
  equal(result.tools.length, 1, JSON.stringify(result.diagnostics));
  return result.tools[0]!.parameters;
}

const SB = "#!/usr/bin/env bash\n";

// --- The seed's examples (seeds/000) ---------------------------------------------------------

Deno.test("loadOctomind() turns the seed's quickstart into exactly the seed's schema", () => {
  const text = `#!/usr/bin/env bash
# @description Echo a message back, optionally uppercased.
# @param *message string The text to echo
# @param uppercase boolean Uppercase the output
if [[ "\${OCTOMIND_PARAM_UPPERCASE:-false}" == "true" ]]; then
printf '%s\\n' "$OCTOMIND_PARAM_MESSAGE" | tr '[:lower:]' '[:upper:]'
else
printf '%s\\n' "$OCTOMIND_PARAM_MESSAGE"
fi
`;
  const seed = `{
"name": "echo",
"description": "Echo a message back, optionally uppercased.",
"parameters": {
"type": "object",
"properties": {
"message": {"type": "string", "description": "The text to echo"},
"uppercase": {"type": "boolean", "description": "Uppercase the output"}
},
"required": ["message"]
}
}`;
  const result = load(text, "echo");
  deepStrictEqual(result.diagnostics, []);
  equal(JSON.stringify(toFunctionSpec(result.tools[0]!)), JSON.stringify(JSON.parse(seed)));
});

Deno.test("loadOctomind() joins the seed's multi-line description with newlines and sorts properties", () => {
  const text = `#!/usr/bin/env bash
# @description Short summary the model sees in the tool list. Continuation
# lines without an @ tag append to the previous tag — keep multi-line
# descriptions readable.
# @param *target string Path to operate on
# @param force boolean Overwrite if the destination exists
# @param count integer Number of iterations`;
  const spec = toFunctionSpec(load(text, "sample").tools[0]!);
  equal(
    JSON.stringify(spec),
    JSON.stringify({
      name: "sample",
      description:
        "Short summary the model sees in the tool list. Continuation\nlines without an @ tag append to the previous tag — keep multi-line\ndescriptions readable.",
      parameters: {
        type: "object",
        properties: {
          count: { type: "integer", description: "Number of iterations" },
          force: { type: "boolean", description: "Overwrite if the destination exists" },
          target: { type: "string", description: "Path to operate on" },
        },
        required: ["target"],
      },
    }),
  );
});

Deno.test("loadOctomind() loads the seed's bash, Python, Node and all-flavors examples", () => {
  const greet = load(
    `${SB}# @description Greet someone politely.\n# @param *who string Person to greet\n# @param shout boolean Yell the greeting\nset -euo pipefail\n`,
    "greet",
  );
  deepStrictEqual(toFunctionSpec(greet.tools[0]!), {
    name: "greet",
    description: "Greet someone politely.",
    parameters: {
      type: "object",
      properties: {
        shout: { type: "boolean", description: "Yell the greeting" },
        who: { type: "string", description: "Person to greet" },
      },
      required: ["who"],
    },
  });
  const sum = load(
    `#!/usr/bin/env python3\n# @description Sum a list of integers.\n# @param *values array JSON list of integers, e.g. [1,2,3]\nimport json, sys\n`,
    "sum",
  );
  deepStrictEqual(params(sum), {
    type: "object",
    properties: { values: { type: "array", description: "JSON list of integers, e.g. [1,2,3]" } },
    required: ["values"],
  });
  const node = load(
    `#!/usr/bin/env node\n// @description Capitalize a string.\n// @param *text string Input text\nlet buf = '';\n`,
    "capitalize",
  );
  equal(node.tools[0]!.description, "Capitalize a string.");
  deepStrictEqual(params(node), {
    type: "object",
    properties: { text: { type: "string", description: "Input text" } },
    required: ["text"],
  });
  const flavors = load(
    `${SB}# @description All flavors.\n# @param *target string Required path argument\n# @param force boolean Optional flag (no * prefix)\n# @param count integer Optional, default behavior left to the script\n# @param tags array Optional list, JSON-encoded on stdin\n`,
  );
  equal(
    JSON.stringify(params(flavors)),
    JSON.stringify({
      type: "object",
      properties: {
        count: { type: "integer", description: "Optional, default behavior left to the script" },
        force: { type: "boolean", description: "Optional flag (no * prefix)" },
        tags: { type: "array", description: "Optional list, JSON-encoded on stdin" },
        target: { type: "string", description: "Required path argument" },
      },
      required: ["target"],
    }),
  );
});

// --- Header extraction (FACTS §1.2) ----------------------------------------------------------

function header80(tagLine: number): string {
  const lines = [SB.trimEnd(), "# @description Long header"];
  while (lines.length < tagLine - 1) lines.push(`# note ${lines.length + 1}`);
  lines.push("# @param *late string Late parameter", "echo");
  return lines.join("\n");
}

Deno.test("loadOctomind() reads line 80 but not line 81, counting the shebang", () => {
  deepStrictEqual(Object.keys((params(load(header80(80))) as { properties: object }).properties), [
    "late",
  ]);
  const result = load(header80(81));
  deepStrictEqual((params(result) as { properties: object }).properties, {});
  const d = one(result, "octomind/header-line-limit");
  equal(d.line, 81);
  equal(d.severity, "warning");
  equal(
    d.message,
    `Tag "@param" is ignored: Octomind reads the header only from the first 80 lines: shorten the header or move the tags up`,
  );
});

Deno.test("loadOctomind() parses CRLF files", () => {
  const text = `${SB}# @description Hello\r\n# more\r\n# @param *a int The a\r\necho\r\n`.replace(
    SB,
    SB.replace("\n", "\r\n"),
  );
  const tool = load(text).tools[0]!;
  equal(tool.description, "Hello\nmore");
  deepStrictEqual(tool.parameters, {
    type: "object",
    properties: { a: { type: "integer", description: "The a" } },
    required: ["a"],
  });
});

Deno.test("loadOctomind() skips a shebang only on line 1", () => {
  const tool = load(`${SB}# @description Hi\n#!not a shebang\necho`).tools[0]!;
  equal(tool.description, "Hi\n!not a shebang");
});

Deno.test("loadOctomind() accepts indented comments and blank lines before the header", () => {
  const tool = load(`${SB}\n\n   \t# @description Indented\n  #   @param x bool Flag\necho`)
    .tools[0]!;
  equal(tool.description, "Indented");
  deepStrictEqual(Object.keys((tool.parameters as { properties: object }).properties), ["x"]);
});

Deno.test("loadOctomind() strips exactly one marker in the order #, //, --", () => {
  equal(load(`${SB}#@description No space`).tools[0]!.description, "No space");
  equal(load(`${SB}//@description Slashes\n-- more`).tools[0]!.description, "Slashes\nmore");
  equal(load(`${SB}# @description A\n/// x\n--- y`).tools[0]!.description, "A\n/ x\n- y");
});

Deno.test("loadOctomind() ends the header at a blank line once it has started, and at code", () => {
  const blank = load(`${SB}# @description A\n\n# @param x string X\n`);
  deepStrictEqual((params(blank) as { properties: object }).properties, {});
  const d = one(blank, "octomind/header-ended-early");
  equal(d.line, 4);
  equal(d.column, 3);
  equal(
    d.message,
    `Tag "@param" is ignored: the blank line at line 3 ended the header: remove the blank line, or start it with a comment marker`,
  );
  const code = load(`${SB}# @description A\necho hi\n# @param x string X\n`);
  deepStrictEqual((params(code) as { properties: object }).properties, {});
  deepStrictEqual(codes(code), [], "a described tool's later comments are left alone");
});

Deno.test("loadOctomind() keeps a marker-only line as an empty header line", () => {
  const tool = load(`${SB}# @description A\n#\n# B\n# @param x\n`).tools[0]!;
  equal(tool.description, "A\nB");
  deepStrictEqual(Object.keys((tool.parameters as { properties: object }).properties), ["x"]);
});

// --- Tags (FACTS §1.3) -----------------------------------------------------------------------

Deno.test("loadOctomind() lower-cases tags and joins repeated descriptions with newlines", () => {
  const tool = load(`${SB}# @DESCRIPTION One\n# @Desc Two\n# @Param *X STR The x\n`).tools[0]!;
  equal(tool.description, "One\nTwo");
  deepStrictEqual(tool.parameters, {
    type: "object",
    properties: { X: { type: "string", description: "The x" } },
    required: ["X"],
  });
});

Deno.test("loadOctomind() continues only a description, and an empty @description takes the continuation", () => {
  equal(load(`${SB}# @description\n# Only this\n`).tools[0]!.description, "Only this");
  const result = load(
    `${SB}# @description D\n# @param a string A\n# more about a\n# @author me\n# x\n`,
  );
  equal(result.tools[0]!.description, "D");
  equal(
    (result.tools[0]!.parameters as { properties: { a: { description: string } } }).properties.a
      .description,
    "A",
  );
  const d = one(result, "octomind/dropped-continuation");
  equal(d.line, 4);
  ok(d.message.startsWith("Line 4 is dropped: Octomind continues only @description"));
  equal(one(result, "octomind/unknown-tag").line, 5);
});

Deno.test("loadOctomind() reads @param and @arg, with * for required", () => {
  deepStrictEqual(params(load(`${SB}# @description D\n# @arg *a\n# @param b number\n`)), {
    type: "object",
    properties: { a: { type: "string", description: "" }, b: { type: "number", description: "" } },
    required: ["a"],
  });
});

Deno.test("loadOctomind() drops a lone * and an empty @param with a warning", () => {
  const result = load(
    `${SB}# @description D\n# @param * string oops\n# @param\n# @param *real string ok\n`,
  );
  deepStrictEqual(Object.keys((params(result) as { properties: object }).properties), ["real"]);
  const found = result.diagnostics.filter((d) => d.code === "octomind/malformed-param");
  deepStrictEqual(found.map((d) => d.line), [3, 4]);
  equal(
    found[0]!.message,
    `"@param * string oops" is dropped (malformed @param): write "@param [*]NAME TYPE DESCRIPTION", with "*" directly before the name for a required parameter`,
  );
});

Deno.test("loadOctomind() normalizes type aliases and consumes unknown type words", () => {
  const words = ["str", "string", "int", "integer", "num", "number", "float", "bool", "boolean"];
  const more = ["array", "list", "object", "obj", "map", "MAP"];
  const lines = [...words, ...more].map((w, i) => `# @param p${i} ${w} d`).join("\n");
  const props = (params(load(`${SB}# @description D\n${lines}\n`)) as {
    properties: Record<string, { type: string }>;
  }).properties;
  deepStrictEqual(
    [...words, ...more].map((_, i) => props[`p${i}`]!.type),
    [
      ...["string", "string", "integer", "integer", "number", "number", "number", "boolean"],
      ...["boolean", "array", "array", "object", "object", "object", "object"],
    ],
  );
  const result = load(`${SB}# @description D\n# @param name The name of the person\n`);
  deepStrictEqual(params(result), {
    type: "object",
    properties: { name: { type: "string", description: "name of the person" } },
    required: [],
  });
  const d = one(result, "octomind/unknown-type");
  equal(d.line, 3);
  equal(
    d.message,
    `Parameter "name" has unknown type "The": Octomind makes it a string and drops the word from the description: write one of string, number, integer, boolean, array, object before the description, e.g. "@param name string The…"`,
  );
});

Deno.test("loadOctomind() keeps the last duplicate parameter and repeats it in required", () => {
  const result = load(`${SB}# @description D\n# @param *a string First\n# @param *a int Second\n`);
  deepStrictEqual(params(result), {
    type: "object",
    properties: { a: { type: "integer", description: "Second" } },
    required: ["a", "a"],
  });
  const d = one(result, "octomind/duplicate-parameter");
  equal(d.line, 4);
  ok(d.message.includes(`"required" lists "a" more than once`));
});

Deno.test("loadOctomind() trims the description and skips a file without one", () => {
  equal(load(`${SB}# @description   padded   \n`).tools[0]!.description, "padded");
  const result = load(`${SB}# @param a string A\necho\n`, "x");
  deepStrictEqual(result.tools, []);
  const d = one(result, "octomind/missing-description");
  equal(d.severity, "error");
  equal(d.line, 2);
  equal(d.tool, "x");
  equal(
    d.message,
    `Tool "x" is skipped: missing @description in ${DIR}/x: add "# @description What the tool does" to the comment header at the top of the file`,
  );
  ok(
    one(load(""), "octomind/missing-description").message.endsWith(
      'the file is empty: start it with a shebang and a "# @description …" line',
    ),
  );
});

Deno.test("loadOctomind() points a missing description at the tag past the header", () => {
  const result = load(`${SB}set -e\n# @description Late\n`);
  deepStrictEqual(result.tools, []);
  equal(one(result, "octomind/tag-after-header").line, 3);
  const d = one(result, "octomind/missing-description");
  equal(d.line, 3);
  ok(
    d.message.includes(
      `the "@description" at line 3 is outside the header (the header ended at line 2, which is not a comment ("set -e"))`,
    ),
  );
});

// --- Names and the executable bit (FACTS §1.1) ------------------------------------------------

Deno.test("loadOctomind() names the tool after the file and rejects invalid names", () => {
  const ok1 = load(`${SB}# @description D\n`, "A-b_9");
  equal(ok1.tools[0]!.name, "A-b_9");
  const cases: [string, string][] = [
    ["mytool.sh", `"mytool.sh" contains ".": drop the extension — rename it to "mytool"`],
    ["-x", `"-x" starts with "-": rename it to "x"`],
    ["a b", `"a b" contains " ": rename it, e.g. to "a_b"`],
    ["café", `"café" contains "é": rename it, e.g. to "caf_"`],
  ];
  for (const [name, why] of cases) {
    const result = load(`${SB}# @description D\n`, name);
    deepStrictEqual(result.tools, []);
    const d = one(result, "octomind/invalid-name");
    equal(d.line, undefined);
    ok(d.message.startsWith(`File "${name}" is skipped: a tool name is the file name`), d.message);
    ok(d.message.endsWith(why), d.message);
  }
});

Deno.test("loadOctomind() reports a hidden file with one info finding and nothing else", () => {
  const result = load("not even a script", ".DS_Store");
  deepStrictEqual(result.tools, []);
  deepStrictEqual(result.diagnostics.map((d) => [d.severity, d.code]), [[
    "info",
    "octomind/hidden-file",
  ]]);
});

Deno.test("loadOctomind() needs any executable bit unless the mode is unknown", () => {
  const text = `${SB}# @description D\n`;
  for (const mode of [0o100, 0o010, 0o001, null]) {
    equal(load(text, "t", { ...CTX, mode }).tools.length, 1);
  }
  const result = load(text, "t", { ...CTX, mode: 0o644 });
  deepStrictEqual(result.tools, []);
  equal(
    one(result, "octomind/not-executable").message,
    `Tool "t" is skipped: '${DIR}/t' not executable (chmod +x to enable): run "chmod +x ${DIR}/t"`,
  );
});

// --- The tool definition (FACTS §1.4) ---------------------------------------------------------

Deno.test("loadOctomind() always sends description and required, and keeps odd names as own keys", () => {
  const tool = load(
    `${SB}# @description D\n# @param __proto__ string P\n# @param b\n# @param B\n# @param é\n`,
  ).tools[0]!;
  equal(
    JSON.stringify(tool.parameters),
    `{"type":"object","properties":{"B":{"type":"string","description":""},"__proto__":{"type":"string","description":"P"},"b":{"type":"string","description":""},"é":{"type":"string","description":""}},"required":[]}`,
  );
  equal(
    JSON.stringify(params(load(`${SB}# @description D\n`))),
    `{"type":"object","properties":{},"required":[]}`,
  );
});

Deno.test("loadOctomind() builds a script tool with Octomind's defaults or the configured ones", () => {
  const text = `${SB}# @description D\n`;
  const tool = load(text).tools[0]!;
  deepStrictEqual(tool.runner, { kind: "script", program: `${DIR}/t` });
  deepStrictEqual(tool.source, { format: "octomind", path: `${DIR}/t` });
  equal(tool.approval, "always");
  equal(tool.readOnly, false);
  equal(tool.timeoutMs, 300_000);
  equal(tool.permissions, undefined);
  const configured = load(text, "t", { ...CTX, defaults: { timeoutMs: 5_000, approval: "never" } })
    .tools[0]!;
  equal(configured.timeoutMs, 5_000);
  equal(configured.approval, "never");
});

// --- Permissions (@allow) ---------------------------------------------------------------------

Deno.test("loadOctomind() reads @allow lines into a declared scope", () => {
  const tool = load(
    `${SB}# @description D\n# @allow read ./data dir\n# @allow NET api.github.com:443\n# @allow env GITHUB_TOKEN\n# @allow read ./data dir\n`,
  ).tools[0]!;
  deepStrictEqual(tool.permissions, {
    read: ["./data dir"],
    net: ["api.github.com:443"],
    env: ["GITHUB_TOKEN"],
  });
  deepStrictEqual(load(`${SB}# @description D\n# @allow none\n`).tools[0]!.permissions, {});
});

Deno.test("loadOctomind() reports a malformed @allow and loads the tool with the valid entries", () => {
  const result = load(
    `${SB}# @description D\n# @allow net https://x.org\n# @allow read ./ok\n# @allow\n# @allow disk /\n# @allow write\n# @allow none please\n`,
  );
  deepStrictEqual(result.tools[0]!.permissions, { read: ["./ok"] });
  const found = result.diagnostics.filter((d) => d.code === "octomind/invalid-permission");
  deepStrictEqual(found.map((d) => d.line), [3, 5, 6, 7, 8]);
  equal(found[0]!.column, 10);
  ok(
    found[0]!.message.startsWith(
      `Tool "t": "@allow net https://x.org" is ignored: net value "https://x.org" is not a host`,
    ),
  );
  ok(found[2]!.message.includes(`unknown permission kind "disk"`));
  const mixed = load(`${SB}# @description D\n# @allow none\n# @allow env HOME\n`);
  equal(one(mixed, "octomind/invalid-permission").line, 3);
  deepStrictEqual(mixed.tools[0]!.permissions, { env: ["HOME"] });
});

// --- Warnings about things Octomind accepts silently -------------------------------------------

Deno.test("loadOctomind() warns that ## @param is not a tag", () => {
  const result = load(`${SB}# @description D\n## @param a string A\n`);
  equal(result.tools[0]!.description, "D\n# @param a string A");
  const d = one(result, "octomind/not-a-tag");
  equal(d.line, 3);
  ok(d.message.includes("which becomes part of the description"));
});

Deno.test("loadOctomind() warns about misspelled tags and notes unknown ones", () => {
  const result = load(`${SB}# @description D\n# @params a\n# @descripton x\n# @author me\n# @\n`);
  const misspelled = result.diagnostics.filter((d) => d.code === "octomind/misspelled-tag");
  deepStrictEqual(misspelled.map((d) => [d.line, d.message]), [
    [3, `Tag "@params" is ignored: Octomind does not know it; did you mean "@param"?`],
    [4, `Tag "@descripton" is ignored: Octomind does not know it; did you mean "@description"?`],
  ]);
  deepStrictEqual(
    result.diagnostics.filter((d) => d.code === "octomind/unknown-tag").map((d) => d.line),
    [5, 6],
  );
});

Deno.test("loadOctomind() warns when line 1 is not a shebang", () => {
  const cases: [string, string][] = [
    [
      "# @description D\n",
      `line 1 is not a "#!" shebang: add one naming the interpreter, e.g. "#!/usr/bin/env bash"`,
    ],
    [` ${SB}# @description D\n`, `line 1 has white space before "#!": remove it`],
    [`\n${SB}# @description D\n`, "the shebang is on line 2: move it to line 1"],
    [
      `\uFEFF${SB}# @description D\n`,
      `the file starts with a byte order mark, so line 1 is not a "#!" shebang: save it as UTF-8 without a BOM`,
    ],
  ];
  for (const [text, why] of cases) {
    const d = one(load(text), "octomind/missing-shebang");
    equal(d.line, 1);
    equal(d.message, `Tool "t" cannot be run by the OS: ${why}`);
  }
});

Deno.test("loadOctomind() flags parameter names servers or shells cannot use", () => {
  const result = load(`${SB}# @description D\n# @param a:b string X\n# @param my-name string Y\n`);
  const bad = one(result, "octomind/invalid-parameter-name");
  equal(bad.line, 3);
  ok(bad.message.startsWith(`Parameter name "a:b" may be rejected by OpenAI-compatible servers`));
  equal(
    one(result, "octomind/parameter-env-name").message,
    `Parameter "my-name" arrives as OCTOMIND_PARAM_MY-NAME, which a shell cannot read as a variable: read it from the stdin JSON, or rename it to "my_name"`,
  );
  equal(result.tools.length, 1);
});

Deno.test("loadOctomind() catalogues every code once with a summary", () => {
  const seen = new Set(OCTOMIND_CODES.map((c) => c.code));
  equal(seen.size, OCTOMIND_CODES.length);
  for (const c of OCTOMIND_CODES) ok(c.code.startsWith("octomind/") && c.summary.length > 0);
});

// --- Fuzz and fixtures ------------------------------------------------------------------------

const SNIPPETS = [
  "@param",
  "# @param * x",
  "*",
  "{",
  '"',
  "é",
  "😀",
  "\r\n",
  "\n",
  "\n\n",
  "# @description",
  "@desc",
  "\u2028",
  "#!",
  "@allow net x",
  "@allow",
  "\uFEFF",
  " ",
  "\t",
  "## @param a b c",
  "//",
  "--",
  "@ ",
  "# @param __proto__ obj",
  "\u0085",
  "\r",
];

Deno.test("loadOctomind() never throws and returns well-formed results on 1,000 mutated files", () => {
  const random = prng(20_240_601);
  const seeds = [
    `${SB}# @description Echo a message back.\n# @param *message string The text\n# @param up boolean Up\necho\n`,
    `#!/usr/bin/env node\n// @description Capitalize.\n// continued\n// @param *text string Input\nlet x;\n`,
    `${SB}\n# @desc A\n#\n# @arg n int N\n# @allow read ./data\n\nset -e\n`,
  ];
  for (let i = 0; i < 1_000; i++) {
    const text = mutate(seeds[i % seeds.length]!, random, SNIPPETS);
    const name = ["t", "a.b", "-x", ".h", "ok_1"][i % 5]!;
    const mode = [0o755, 0o644, null][i % 3]!;
    const path = `${DIR}/${name}`;
    const result = loadOctomind(path, text, { ...CTX, mode });
    assertWellFormed(result, path, OCTOMIND_CODES);
    const blocked = name.startsWith(".") ||
      result.diagnostics.some((d) =>
        d.severity === "error" && d.code !== "octomind/invalid-permission"
      );
    equal(result.tools.length, blocked ? 0 : 1, JSON.stringify({ text, name, mode }));
  }
});

Deno.test("loadOctomind() reports exactly the expected findings for every broken fixture", async () => {
  const dir = new URL("../../../tests/fixtures/broken/octomind/", import.meta.url);
  const expected: Record<string, { code: string; line: number | null }[]> = JSON.parse(
    await Deno.readTextFile(new URL("EXPECTED.json", dir)),
  );
  const names = [];
  for await (const e of Deno.readDir(dir)) if (e.name !== "EXPECTED.json") names.push(e.name);
  deepStrictEqual(names.sort(), Object.keys(expected).sort());
  ok(names.length >= 12);
  for (const name of names) {
    const path = new URL(name, dir).pathname;
    const mode = name === "not-executable" ? 0o644 : 0o755;
    const result = loadOctomind(path, await Deno.readTextFile(path), { ...CTX, mode });
    deepStrictEqual(
      result.diagnostics.map((d) => ({ code: d.code, line: d.line ?? null })),
      expected[name],
      name,
    );
    ok(result.diagnostics.length > 0, `${name} is not broken`);
  }
});
