import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { type Diagnostic, type LoadContext, type LoadResult, toFunctionSpec } from "../../types.ts";
import { loadManifest, MANIFEST_CODES } from "./manifest.ts";
import { assertWellFormed, mutate, prng } from "./_fuzz.ts";

const CTX: LoadContext = { mode: 0o644, projectDir: "/p" };
const PATH = "/p/sub/tools.json";

function load(text: string, ctx: LoadContext = CTX): LoadResult {
  return loadManifest(PATH, text, ctx);
}

/** A manifest with one entry per line, entry `i` on line `i + 2`. */
function manifest(...entries: object[]): string {
  return `{"tools": [\n${entries.map((e) => JSON.stringify(e)).join(",\n")}\n]}`;
}

function one(result: LoadResult, code: string): Diagnostic {
  const found = result.diagnostics.filter((d) => d.code === code);
  equal(found.length, 1, `expected one ${code}, got ${JSON.stringify(result.diagnostics)}`);
  return found[0]!;
}

const GREET = { name: "greet", command: ["./tools/bin/greet"] };

// --- The seed's examples (seeds/003) ----------------------------------------------------------

Deno.test("loadManifest() turns the seed's minimal example into exactly the seed's tool", () => {
  const text = `{
  "tools": [
    {
      "name": "get_time",
      "description": "Get current time for an IANA timezone",
      "schema": {
        "type": "object",
        "properties": {
          "timezone": {"type": "string", "description": "IANA timezone, e.g. Europe/Helsinki"},
          "tz": {"type": "string", "description": "Alias for timezone (deprecated)"}
        },
        "required": ["timezone"],
        "additionalProperties": false
      },
      "command": ["./tools/bin/get_time"],
      "timeoutSec": 5,
      "envPassthrough": ["TZ", "OAI_HTTP_TIMEOUT"]
    }
  ]
}`;
  const result = load(text);
  deepStrictEqual(result.diagnostics, []);
  const tool = result.tools[0]!;
  const seed = JSON.parse(text).tools[0];
  equal(
    JSON.stringify(toFunctionSpec(tool)),
    JSON.stringify({ name: seed.name, description: seed.description, parameters: seed.schema }),
  );
  deepStrictEqual(tool.runner, {
    kind: "argv",
    argv: ["/p/sub/tools/bin/get_time"],
    envPassthrough: ["TZ", "OAI_HTTP_TIMEOUT"],
  });
  equal(tool.timeoutMs, 5_000);
  deepStrictEqual(tool.source, { format: "manifest", path: PATH, line: 3 });
  equal(tool.approval, "always");
  equal(tool.readOnly, false);
  equal(tool.permissions, undefined);
});

Deno.test("loadManifest() omits the description of the seed's Windows example", () => {
  const text =
    `{"tools":[{"name":"get_time","schema":{"type":"object","properties":{"timezone":{"type":"string"}},"required":["timezone"],"additionalProperties":false},"command":["./tools/bin/get_time.exe"],"timeoutSec":5}]}`;
  const tool = load(text).tools[0]!;
  equal(
    JSON.stringify(toFunctionSpec(tool)),
    `{"name":"get_time","parameters":{"type":"object","properties":{"timezone":{"type":"string"}},"required":["timezone"],"additionalProperties":false}}`,
  );
  deepStrictEqual(tool.runner, {
    kind: "argv",
    argv: ["/p/sub/tools/bin/get_time.exe"],
    envPassthrough: [],
  });
});

Deno.test("loadManifest() gives the seed's common-mistake errors word for word", () => {
  const cases: [object, string, string][] = [
    [{ command: ["./tools/bin/x"] }, "manifest/missing-name", "tool[1]: name is required"],
    [GREET, "manifest/duplicate-name", 'tool[1] "greet": duplicate name'],
    [
      { name: "x", command: [] },
      "manifest/missing-command",
      'tool[1] "x": command must have at least program name',
    ],
    [
      { name: "x", command: ["tools.sh"] },
      "manifest/invalid-command",
      'tool[1] "x": relative command[0] must start with ./tools/bin/',
    ],
    [
      { name: "x", command: ["./tools/bin/../hack"] },
      "manifest/invalid-command",
      'tool[1] "x": command[0] escapes ./tools/bin after normalization (got "./tools/bin/../hack" -> "./tools/hack")',
    ],
    [
      { name: "x", command: ["./tools/bin/x"], envPassthrough: ["OAI-API-KEY"] },
      "manifest/invalid-env",
      'tool[1] "x": envPassthrough[0]: invalid name "OAI-API-KEY" (must match [A-Z_][A-Z0-9_]*)',
    ],
    [
      { name: "x", command: ["./tools/bin/x"], envPassthrough: ["TZ", "1BAD"] },
      "manifest/invalid-env",
      'tool[1] "x": envPassthrough[1]: invalid name "1BAD" (must match [A-Z_][A-Z0-9_]*)',
    ],
  ];
  for (const [entry, code, text] of cases) {
    const result = load(manifest(GREET, entry));
    const d = one(result, code);
    equal(d.severity, "error");
    ok(d.message.startsWith(`${text}: `), d.message);
    equal(d.line, 3, d.message);
    deepStrictEqual(result.tools.map((t) => t.name), ["greet"], "the good entry still loads");
  }
});

// --- Decoding (FACTS §3.1) --------------------------------------------------------------------

Deno.test("loadManifest() matches keys case-insensitively and lets the last duplicate win", () => {
  const result = load(
    `{"TOOLS":[{"Name":"a","name":"b","COMMAND":["./tools/bin/b"],"timeoutsec":2,"\u017Fchema":{}}]}`,
  );
  const tool = result.tools[0]!;
  equal(tool.name, "b");
  equal(tool.timeoutMs, 2_000);
  deepStrictEqual(tool.parameters, {});
  const d = one(result, "manifest/duplicate-key");
  equal(d.severity, "warning");
  equal(d.column, 23);
});

Deno.test("loadManifest() leaves a string as it was on null and empties a list on null", () => {
  const tool = load(
    `{"tools":[{"name":"a","name":null,"command":["./tools/bin/a"],"envPassthrough":["TZ"],"envPassthrough":null}]}`,
  )
    .tools[0]!;
  equal(tool.name, "a");
  deepStrictEqual(tool.runner, { kind: "argv", argv: ["/p/sub/tools/bin/a"], envPassthrough: [] });
});

Deno.test("loadManifest() merges a repeated tools list by position, as Go reuses the slice", () => {
  const result = load(
    `{"tools":[{"name":"a","command":["./tools/bin/a"]}],"tools":[{"description":"merged"}]}`,
  );
  equal(result.tools[0]!.name, "a");
  equal(result.tools[0]!.description, "merged");
  ok(
    one(result, "manifest/duplicate-key").message.includes("merging the two lists entry by entry"),
  );
});

Deno.test("loadManifest() warns about unknown keys with a did-you-mean, but not permissions or $schema", () => {
  const result = load(
    `{"$schema":"x","tool":[],"tools":[{"name":"a","command":["./tools/bin/a"],"parameters":{},"args":[],"timeout":5,"env":[],"permissions":{},"function":{},"xyzzy":1}]}`,
  );
  const found = result.diagnostics.filter((d) => d.code === "manifest/unknown-key");
  deepStrictEqual(found.map((d) => d.message), [
    `Key "tool" at the top level is ignored by agentcli: did you mean "tools"?`,
    `Key "parameters" in tool[0] "a" is ignored by agentcli: did you mean "schema"?`,
    `Key "args" in tool[0] "a" is ignored by agentcli: did you mean "command"?`,
    `Key "timeout" in tool[0] "a" is ignored by agentcli: did you mean "timeoutSec"?`,
    `Key "env" in tool[0] "a" is ignored by agentcli: did you mean "envPassthrough"?`,
    `Key "function" in tool[0] "a" is ignored by agentcli: entries are not OpenAI tool objects: put "name", "description", "schema" (the parameters) and "command" directly in the entry`,
    `Key "xyzzy" in tool[0] "a" is ignored by agentcli: remove it, or use one of: name, description, schema, command, timeoutSec, envPassthrough, permissions`,
  ]);
  equal(found[1]!.line, 1);
  equal(result.tools.length, 1);
});

Deno.test("loadManifest() treats a missing or null tools list as no tools, with an info", () => {
  for (const [text, how] of [["{}", "missing"], ['{"tools":null}', "null"], ["null", "missing"]]) {
    const result = load(text!);
    deepStrictEqual(result.tools, []);
    const d = one(result, "manifest/no-tools");
    equal(d.severity, "info");
    ok(d.message.startsWith(`Manifest defines no tools: "tools" is ${how}: `));
  }
  deepStrictEqual(load('{"tools":[]}').diagnostics, []);
});

Deno.test("loadManifest() reproduces Go's type errors and skips only the entries concerned", () => {
  const cases: [string, string][] = [
    [
      `{"name":"a","command":"./tools/bin/a"}`,
      "json: cannot unmarshal string into Go struct field ToolSpec.tools.command of type []string",
    ],
    [
      `{"name":"a","command":["./tools/bin/a"],"timeoutSec":1.5}`,
      "json: cannot unmarshal number 1.5 into Go struct field ToolSpec.tools.timeoutSec of type int",
    ],
    [
      `{"name":"a","command":["./tools/bin/a",2]}`,
      "json: cannot unmarshal number into Go struct field ToolSpec.tools.command of type string",
    ],
    [
      `{"name":"a","command":["./tools/bin/a"],"timeoutSec":99999999999999999999}`,
      "json: cannot unmarshal number 99999999999999999999 into Go struct field ToolSpec.tools.timeoutSec of type int",
    ],
    [
      `{"name":true,"command":["./tools/bin/a"]}`,
      "json: cannot unmarshal bool into Go struct field ToolSpec.tools.name of type string",
    ],
    [
      `"x"`,
      "json: cannot unmarshal string into Go struct field Manifest.tools of type tools.ToolSpec",
    ],
  ];
  for (const [entry, message] of cases) {
    const result = load(`{"tools":[{"name":"ok","command":["./tools/bin/ok"]},\n${entry}]}`);
    const d = one(result, "manifest/type-error");
    ok(d.message.startsWith(`parse manifest: ${message}: `), d.message);
    equal(d.line, 2);
    deepStrictEqual(result.diagnostics.filter((x) => x.severity === "error").length, 1, entry);
    deepStrictEqual(result.tools.map((t) => t.name), ["ok"]);
  }
  const top = load("[]");
  ok(
    one(top, "manifest/type-error").message.startsWith(
      "parse manifest: json: cannot unmarshal array into Go value of type tools.Manifest: ",
    ),
  );
  ok(
    one(load(`{"tools":{}}`), "manifest/type-error").message.startsWith(
      "parse manifest: json: cannot unmarshal object into Go struct field Manifest.tools of type []tools.ToolSpec",
    ),
  );
});

Deno.test("loadManifest() rejects comments and trailing commas with Go's message and position", () => {
  const comma = load(`{\n  "tools": [\n    {"name": "a", "command": ["./tools/bin/a"]},\n  ]\n}`);
  deepStrictEqual(comma.tools, []);
  const d = one(comma, "manifest/syntax");
  deepStrictEqual([d.line, d.column], [4, 3]);
  equal(
    d.message,
    "parse manifest: invalid character ']' looking for beginning of value: remove the trailing comma",
  );
  equal(
    one(load(`{"tools": [] /* none */}`), "manifest/syntax").message,
    "parse manifest: invalid character '/' after object key:value pair: JSON does not allow comments: remove them",
  );
  equal(
    one(load(""), "manifest/syntax").message,
    `parse manifest: unexpected end of JSON input: the file is empty: write {"tools": []}`,
  );
});

// --- Validation (FACTS §3.2) ------------------------------------------------------------------

Deno.test("loadManifest() reports every bad entry and returns the good ones", () => {
  const result = load(
    manifest(GREET, {}, { name: "greet", command: ["x"] }, {
      name: "wave",
      command: ["./tools/bin/wave"],
    }),
  );
  deepStrictEqual(result.tools.map((t) => t.name), ["greet", "wave"]);
  deepStrictEqual(
    result.diagnostics.map((d) => [d.code, d.line, d.tool]),
    [
      ["manifest/missing-name", 3, undefined],
      ["manifest/missing-command", 3, undefined],
      ["manifest/duplicate-name", 4, "greet"],
      ["manifest/invalid-command", 4, "greet"],
    ],
  );
  equal(
    result.diagnostics[1]!.message.slice(0, 62),
    'tool[1] "": command must have at least program name: write "co',
  );
});

Deno.test("loadManifest() normalizes envPassthrough and reports empty names", () => {
  const tool = load(
    manifest({ ...GREET, envPassthrough: ["oai_api_key", "OAI_API_KEY", " Path ", "TZ"] }),
  ).tools[0]!;
  deepStrictEqual((tool.runner as { envPassthrough: string[] }).envPassthrough, [
    "OAI_API_KEY",
    "PATH",
    "TZ",
  ]);
  const result = load(manifest({ ...GREET, envPassthrough: ["TZ", " \t", "a b"] }));
  deepStrictEqual(result.tools, []);
  deepStrictEqual(result.diagnostics.map((d) => d.message), [
    'tool[0] "greet": envPassthrough[1]: empty name: remove the empty entry',
    'tool[0] "greet": envPassthrough[2]: invalid name "a b" (must match [A-Z_][A-Z0-9_]*): write a variable name such as "A_B"',
  ]);
});

Deno.test("loadManifest() applies agentcli's command[0] rules with path.Clean and %q", () => {
  const accepted: [string, string][] = [
    ["./tools/bin/x", "/p/sub/tools/bin/x"],
    ["tools/bin/x", "/p/sub/tools/bin/x"],
    [".\\tools\\bin\\x", "/p/sub/tools/bin/x"],
    ["./tools/bin/./a/../x", "/p/sub/tools/bin/x"],
    ["/usr/bin/env", "/usr/bin/env"],
    ["/a/../b", "/a/../b"],
  ];
  for (const [cmd0, program] of accepted) {
    const result = load(manifest({ name: "x", command: [cmd0, "--flag"] }));
    deepStrictEqual(result.diagnostics, [], cmd0);
    deepStrictEqual((result.tools[0]!.runner as { argv: string[] }).argv, [program, "--flag"]);
  }
  const rejected: [string, string][] = [
    [
      "./tools/bin/../hack",
      `command[0] escapes ./tools/bin after normalization (got "./tools/bin/../hack" -> "./tools/hack")`,
    ],
    [
      "./tools/bin/",
      `command[0] escapes ./tools/bin after normalization (got "./tools/bin/" -> "./tools/bin")`,
    ],
    [
      "./tools/bin",
      `command[0] escapes ./tools/bin after normalization (got "./tools/bin" -> "./tools/bin")`,
    ],
    [
      "./tools/bin/../../x",
      `command[0] escapes ./tools/bin after normalization (got "./tools/bin/../../x" -> "x")`,
    ],
    [
      ".\\tools\\bin\\..\\hack",
      `command[0] escapes ./tools/bin after normalization (got ".\\\\tools\\\\bin\\\\..\\\\hack" -> "./tools/hack")`,
    ],
    ["../bin/x", `command[0] must not start with '..' or escape tools/bin (got "../bin/x")`],
    ["./tools/binary", "relative command[0] must start with ./tools/bin/"],
    ["echo", "relative command[0] must start with ./tools/bin/"],
    ["", "relative command[0] must start with ./tools/bin/"],
  ];
  for (const [cmd0, message] of rejected) {
    const result = load(manifest({ name: "x", command: [cmd0] }));
    deepStrictEqual(result.tools, [], cmd0);
    const d = one(result, "manifest/invalid-command");
    ok(d.message.startsWith(`tool[0] "x": ${message}: `), d.message);
    deepStrictEqual([d.line, d.column], [2, 24]);
  }
});

// --- Mapping (FACTS §3.3) ---------------------------------------------------------------------

Deno.test("loadManifest() passes the schema through as it is and warns when it is not an object", () => {
  equal(load(manifest(GREET)).tools[0]!.parameters, undefined);
  equal(load(manifest({ ...GREET, description: "" })).tools[0]!.description, undefined);
  const nul = load(manifest({ ...GREET, schema: null }));
  equal(nul.tools[0]!.parameters, null);
  equal(JSON.stringify(toFunctionSpec(nul.tools[0]!)), `{"name":"greet","parameters":null}`);
  const d = one(nul, "manifest/schema-not-object");
  equal(d.severity, "warning");
  ok(d.message.startsWith(`"schema" of tool[0] "greet" is null, not a JSON object: `));
  const odd = load(
    `{"tools":[{"name":"a","command":["./tools/bin/a"],"schema":{"__proto__":{"x":1},"b":[1,"\\ud800"]}}]}`,
  );
  equal(JSON.stringify(odd.tools[0]!.parameters), `{"__proto__":{"x":1},"b":[1,"\uFFFD"]}`);
});

Deno.test("loadManifest() takes timeoutSec when positive, else the configured or default timeout", () => {
  const times = (entry: object, ctx = CTX) =>
    load(manifest({ ...GREET, ...entry }), ctx).tools[0]!.timeoutMs;
  equal(times({ timeoutSec: 7 }), 7_000);
  equal(times({}), 30_000);
  equal(times({ timeoutSec: 0 }), 30_000);
  equal(times({ timeoutSec: -3 }), 30_000);
  const ctx = { ...CTX, defaults: { timeoutMs: 12_000, approval: "destructive" as const } };
  equal(times({ timeoutSec: -3 }, ctx), 12_000);
  equal(load(manifest(GREET), ctx).tools[0]!.approval, "destructive");
});

Deno.test("loadManifest() reads the permissions extension and reports bad entries at the value", () => {
  const tool = load(
    manifest({ ...GREET, permissions: { read: ["./data"], net: ["api.github.com:443"] } }),
  )
    .tools[0]!;
  deepStrictEqual(tool.permissions, { read: ["./data"], net: ["api.github.com:443"] });
  const result = load(
    `{"tools":[{"name":"a","command":["./tools/bin/a"],\n"permissions":{"net":["https://x.org"],"disk":[],"read":["./ok"]}}]}`,
  );
  deepStrictEqual(result.tools[0]!.permissions, { net: [], read: ["./ok"] });
  const found = result.diagnostics.filter((d) => d.code === "manifest/invalid-permission");
  deepStrictEqual(found.map((d) => [d.line, d.column]), [[2, 23], [2, 40]]);
  ok(
    found[0]!.message.startsWith(
      `tool[0] "a": permissions.net[0]: net value "https://x.org" is not a host`,
    ),
  );
  const notObject = load(manifest({ ...GREET, permissions: ["read"] }));
  deepStrictEqual(notObject.tools[0]!.permissions, {});
  equal(one(notObject, "manifest/invalid-permission").severity, "error");
});

Deno.test("loadManifest() catalogues every code once with a summary", () => {
  equal(new Set(MANIFEST_CODES.map((c) => c.code)).size, MANIFEST_CODES.length);
  for (const c of MANIFEST_CODES) ok(c.code.startsWith("manifest/") && c.summary.length > 0);
});

// --- Fuzz and fixtures ------------------------------------------------------------------------

const SNIPPETS = [
  "@param",
  "*",
  "{",
  "}",
  "[",
  "]",
  '"',
  ",",
  ":",
  "é",
  "😀",
  "\r\n",
  "\n",
  "\\",
  "\\u",
  "null",
  '"tools"',
  '"name":',
  "1.5",
  "-",
  "//",
  "/*",
  "\u2028",
  "\uFEFF",
  '"command":["../x"]',
  "true",
  '"Name":"x",',
  '"schema":',
  '"envPassthrough":[" "]',
  '"permissions":{"net":[1]}',
  "\t",
];

Deno.test("loadManifest() never throws and returns well-formed results on 1,000 mutated files", () => {
  const random = prng(20_250_824);
  const seeds = [
    manifest(
      {
        name: "get_time",
        description: "Time",
        schema: { type: "object", properties: {} },
        command: ["./tools/bin/get_time"],
        timeoutSec: 5,
        envPassthrough: ["TZ"],
      },
      { name: "b", command: ["/bin/echo", "x"], permissions: { read: ["./d"] } },
    ),
    `{"tools":[{"name":"a","command":["./tools/bin/a"],"schema":null}]}`,
  ];
  for (let i = 0; i < 1_000; i++) {
    const text = mutate(seeds[i % seeds.length]!, random, SNIPPETS);
    const result = loadManifest(PATH, text, CTX);
    assertWellFormed(result, PATH, MANIFEST_CODES);
    const names = result.tools.map((t) => t.name);
    equal(new Set(names).size, names.length, "loaded names are unique");
    for (const t of result.tools) {
      const argv = (t.runner as { argv: string[] }).argv;
      ok(argv[0]!.startsWith("/"), `program ${argv[0]} is absolute`);
    }
  }
});

Deno.test("loadManifest() reports exactly the expected findings for every broken fixture", async () => {
  const dir = new URL("../../../tests/fixtures/broken/manifest/", import.meta.url);
  const expected: Record<string, { code: string; line: number | null }[]> = JSON.parse(
    await Deno.readTextFile(new URL("EXPECTED.json", dir)),
  );
  const names = [];
  for await (const e of Deno.readDir(dir)) if (e.name !== "EXPECTED.json") names.push(e.name);
  deepStrictEqual(names.sort(), Object.keys(expected).sort());
  ok(names.length >= 12);
  for (const name of names) {
    const path = new URL(name, dir).pathname;
    const result = loadManifest(path, await Deno.readTextFile(path), CTX);
    deepStrictEqual(
      result.diagnostics.map((d) => ({ code: d.code, line: d.line ?? null })),
      expected[name],
      name,
    );
    ok(result.diagnostics.length > 0, `${name} is not broken`);
  }
});
