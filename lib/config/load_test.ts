import assert from "node:assert/strict";
import { dirname } from "../_path.ts";
import { ConfigError, ExitCode } from "../errors.ts";
import {
  DEFAULT_BASE_URL,
  DEFAULT_MANIFEST_TIMEOUT_MS,
  DEFAULT_OCTOMIND_TIMEOUT_MS,
  findConfigFile,
  loadConfig,
  parseConfigText,
} from "./load.ts";

const FILE = "/p/harness.jsonc";

/** A temporary directory tree; `files` maps relative paths to contents ("" + trailing / = dir). */
async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_config_" }));
  for (const [rel, text] of Object.entries(files)) {
    const path = `${root}/${rel}`;
    if (rel.endsWith("/")) {
      await Deno.mkdir(path, { recursive: true });
      continue;
    }
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  return root;
}

const noEnv = (_: string) => undefined;

/** Parses and returns the ConfigError, failing when none is thrown. */
function configError(text: string): ConfigError {
  try {
    parseConfigText(FILE, text);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
    return error;
  }
  assert.fail(`expected a ConfigError for ${JSON.stringify(text)}`);
}

Deno.test("parseConfigText() accepts comments and trailing commas", () => {
  const text =
    '// project settings\n{\n  /* mode */ "sandbox": "strict",\n  "tools": {"personal": false,},\n}\n';
  assert.deepEqual(parseConfigText(FILE, text), {
    sandbox: "strict",
    tools: { personal: false },
  });
});

Deno.test("parseConfigText() names file:line:column of a syntax error and says to fix it", () => {
  const error = configError('{\n  "sandbox": "auto"\n  "tools": {}\n}');
  assert.equal(error.exitCode, ExitCode.Usage);
  assert.equal(error.file, FILE);
  assert.equal(error.line, 3);
  assert.equal(error.column, 3);
  assert.match(
    error.message,
    /^\/p\/harness\.jsonc:3:3: invalid JSONC: comma expected: fix the syntax$/,
  );
});

Deno.test("parseConfigText() rejects an empty file and a non-object at 1:1", () => {
  assert.match(configError("").message, /^\/p\/harness\.jsonc:1:1: invalid JSONC: value expected/);
  const error = configError("[1]");
  assert.equal(error.line, 1);
  assert.match(error.message, /must be a JSON object/);
});

Deno.test("parseConfigText() suggests the closest key for an unknown top-level key", () => {
  const error = configError('{\n  "sandbx": "auto"\n}');
  assert.equal(
    error.message,
    '/p/harness.jsonc:2:3: unknown key "sandbx" in the config: did you mean "sandbox"?',
  );
});

Deno.test("parseConfigText() points at a nested unknown key and suggests the fix", () => {
  const error = configError('{\n  "tools": {\n    "overides": {}\n  }\n}');
  assert.equal(error.line, 3);
  assert.equal(error.column, 5);
  assert.match(error.message, /unknown key "overides" in "tools": did you mean "overrides"\?$/);
});

Deno.test("parseConfigText() lists the known keys when no key is close", () => {
  const error = configError('{"provider": {"zzzzzzzzzz": 1}}');
  assert.match(
    error.message,
    /unknown key "zzzzzzzzzz" in "provider": expected one of "baseUrl", /,
  );
});

Deno.test("parseConfigText() names the allowed values of an enum and what it got", () => {
  const error = configError('{\n  "sandbox": "lenient"\n}');
  assert.equal(
    error.message,
    '/p/harness.jsonc:2:14: "sandbox" must be one of "auto", "strict" (got "lenient")',
  );
  const nested = configError('{"tools": {"overrides": {"x": {"approval": "sometimes"}}}}');
  assert.match(nested.message, /"tools\.overrides\.x\.approval" must be one of "never", "always"/);
});

Deno.test("parseConfigText() names the expected type at the value", () => {
  const error = configError('{\n  "tools": { "personal": "yes" }\n}');
  assert.equal(
    error.message,
    '/p/harness.jsonc:2:26: "tools.personal" must be a boolean (got string)',
  );
  assert.match(
    configError('{"permissions": {"read": "./x"}}').message,
    /"permissions\.read" must be an array \(got string\)/,
  );
});

Deno.test("parseConfigText() rejects a bad permission value in the ceiling at the value", () => {
  const error = configError('{\n  "permissions": { "net": ["http://x"] }\n}');
  assert.equal(error.line, 2);
  assert.equal(error.column, 28);
  assert.match(
    error.message,
    /permissions\.net\[0\]: net value "http:\/\/x" is not a host: write host/,
  );
  assert.equal(error.exitCode, ExitCode.Usage);
});

Deno.test("parseConfigText() rejects a bad permission value in a tool override", () => {
  const text =
    '{\n  "tools": {\n    "overrides": {\n      "gh": { "permissions": { "env": ["OK", "1BAD"] } }\n    }\n  }\n}';
  const error = configError(text);
  assert.equal(error.line, 4);
  assert.equal(error.column, text.split("\n")[3].indexOf('"1BAD"') + 1);
  assert.match(
    error.message,
    /tools\.overrides\.gh\.permissions\.env\[1\]: env name "1BAD" is not a valid variable name/,
  );
});

Deno.test("parseConfigText() rejects an unknown permission kind in an override with a hint", () => {
  const error = configError('{"tools": {"overrides": {"x": {"permissions": {"nett": ["a"]}}}}}');
  assert.match(
    error.message,
    /unknown key "nett" in "tools\.overrides\.x\.permissions": did you mean "net"\?/,
  );
});

Deno.test("parseConfigText() accepts valid permission values", () => {
  const value = parseConfigText(
    FILE,
    '{"permissions": {"net": ["api.github.com:443", "[::1]:8080"], "env": ["GITHUB_TOKEN"], "read": ["./data"]}}',
  );
  assert.deepEqual(value.permissions, {
    net: ["api.github.com:443", "[::1]:8080"],
    env: ["GITHUB_TOKEN"],
    read: ["./data"],
  });
});

Deno.test("findConfigFile() finds the file in a parent directory", async () => {
  const root = await tree({ ".git/": "", "harness.jsonc": "{}", "a/b/": "" });
  try {
    assert.equal(await findConfigFile(`${root}/a/b`), `${root}/harness.jsonc`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("findConfigFile() stops at the git root", async () => {
  const root = await tree({ "harness.jsonc": "{}", "repo/.git/": "", "repo/src/": "" });
  try {
    assert.equal(await findConfigFile(`${root}/repo/src`), undefined);
    await Deno.writeTextFile(`${root}/repo/harness.jsonc`, "{}");
    assert.equal(await findConfigFile(`${root}/repo/src`), `${root}/repo/harness.jsonc`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadConfig() applies the defaults when there is no file", async () => {
  const root = await tree({ ".git/": "" });
  try {
    const config = await loadConfig({ projectDir: root, getEnv: noEnv });
    assert.equal(config.file, undefined);
    assert.equal(config.projectDir, root);
    assert.equal(config.sandbox, "auto");
    assert.deepEqual(config.ceiling, {});
    assert.equal(config.tools.personal, true);
    assert.equal(config.tools.defaults.approval, "always");
    assert.equal(config.tools.defaults.octomindTimeoutMs, DEFAULT_OCTOMIND_TIMEOUT_MS);
    assert.equal(config.tools.defaults.manifestTimeoutMs, DEFAULT_MANIFEST_TIMEOUT_MS);
    assert.equal(config.provider.baseUrl, DEFAULT_BASE_URL);
    assert.equal(config.provider.apiKeyEnv, "OPENAI_API_KEY");
    assert.equal(config.provider.model, undefined);
    assert.equal(config.tools.builtins, undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadConfig() resolves relative paths against the config file's directory", async () => {
  const root = await tree({
    ".git/": "",
    "harness.jsonc":
      '{"tools": {"octomindDirs": ["./scripts"], "nanocoderDirs": ["../shared/md"], ' +
      '"manifests": ["cfg/tools.json", "/abs/tools.json"]}}',
    "sub/dir/": "",
  });
  try {
    const config = await loadConfig({ projectDir: `${root}/sub/dir`, getEnv: noEnv });
    assert.equal(config.file, `${root}/harness.jsonc`);
    assert.deepEqual(config.tools.octomindDirs, [`${root}/scripts`]);
    assert.deepEqual(config.tools.nanocoderDirs, [`${dirname(root)}/shared/md`]);
    assert.deepEqual(config.tools.manifests, [`${root}/cfg/tools.json`, "/abs/tools.json"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadConfig() resolves ceiling and override paths against the config file's directory", async () => {
  const root = await tree({
    ".git/": "",
    "harness.jsonc":
      '{"permissions": {"read": ["./data", "/etc"], "write": ["out"], "net": ["a.com"]}, ' +
      '"tools": {"overrides": {"t": {"permissions": {"read": ["./data/sub"], "env": ["X"]}}}}}',
    "pkg/app/": "",
  });
  try {
    const config = await loadConfig({ projectDir: `${root}/pkg/app`, getEnv: noEnv });
    assert.deepEqual(config.ceiling, {
      read: [`${root}/data`, "/etc"],
      write: [`${root}/out`],
      net: ["a.com"],
    });
    assert.deepEqual(config.tools.overrides.t.permissions, {
      read: [`${root}/data/sub`],
      env: ["X"],
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadConfig() resolves an explicit --config against the project and its paths against itself", async () => {
  const root = await tree({
    "conf/ci.jsonc": '{"sandbox": "strict", "tools": {"octomindDirs": ["bin"]}}',
  });
  try {
    const config = await loadConfig({
      projectDir: root,
      configFile: "conf/ci.jsonc",
      getEnv: noEnv,
    });
    assert.equal(config.file, `${root}/conf/ci.jsonc`);
    assert.equal(config.sandbox, "strict");
    assert.deepEqual(config.tools.octomindDirs, [`${root}/conf/bin`]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadConfig() throws ConfigError (exit 2) for a missing --config file", async () => {
  const root = await tree({});
  try {
    await assert.rejects(
      loadConfig({ projectDir: root, configFile: "nope.jsonc", getEnv: noEnv }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.exitCode, 2);
        assert.equal(error.file, `${root}/nope.jsonc`);
        assert.match(error.message, /file not found: check the --config path/);
        return true;
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadConfig() reports a bad file found by search with its location", async () => {
  const root = await tree({ ".git/": "", "harness.jsonc": '{\n  "sandbox": 1\n}' });
  try {
    await assert.rejects(loadConfig({ projectDir: root, getEnv: noEnv }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.ok(error.message.startsWith(`${root}/harness.jsonc:2:14: "sandbox" must be one of`));
      return true;
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadConfig() lets OPENAI_BASE_URL and HARNESS_MODEL override the file", async () => {
  const root = await tree({
    ".git/": "",
    "harness.jsonc":
      '{"provider": {"baseUrl": "https://file.example/v1", "model": "file-model", "temperature": 0.5}}',
  });
  try {
    const fromFile = await loadConfig({ projectDir: root, getEnv: noEnv });
    assert.equal(fromFile.provider.baseUrl, "https://file.example/v1");
    assert.equal(fromFile.provider.model, "file-model");
    assert.equal(fromFile.provider.temperature, 0.5);
    const env: Record<string, string> = {
      OPENAI_BASE_URL: "http://localhost:11434/v1/",
      HARNESS_MODEL: "qwen3",
    };
    const config = await loadConfig({ projectDir: root, getEnv: (n) => env[n] });
    assert.equal(config.provider.baseUrl, "http://localhost:11434/v1");
    assert.equal(config.provider.model, "qwen3");
    const empty = await loadConfig({
      projectDir: root,
      getEnv: (n) => (n === "HARNESS_MODEL" || n === "OPENAI_BASE_URL" ? "" : undefined),
    });
    assert.equal(empty.provider.model, "file-model");
    assert.equal(empty.provider.baseUrl, "https://file.example/v1");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadConfig() never reads the API key variable", async () => {
  const root = await tree({
    ".git/": "",
    "harness.jsonc": '{"provider": {"apiKeyEnv": "MY_KEY"}}',
  });
  try {
    const asked: string[] = [];
    const config = await loadConfig({
      projectDir: root,
      getEnv: (n) => {
        asked.push(n);
        return undefined;
      },
    });
    assert.equal(config.provider.apiKeyEnv, "MY_KEY");
    assert.ok(!asked.includes("MY_KEY") && !asked.includes("OPENAI_API_KEY"), asked.join(","));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("loadConfig() keeps the ceiling and overrides as written", async () => {
  const root = await tree({
    ".git/": "",
    "harness.jsonc": '{"permissions": {"net": []}, "tools": {"overrides": {"gh": ' +
      '{"approval": "never", "timeoutMs": 5000, "permissions": {"env": ["GH_TOKEN"]}}}, "disabled": ["x"]}}',
  });
  try {
    const config = await loadConfig({ projectDir: root, getEnv: noEnv });
    assert.deepEqual(config.ceiling, { net: [] });
    assert.deepEqual(config.tools.overrides.gh, {
      approval: "never",
      timeoutMs: 5000,
      permissions: { env: ["GH_TOKEN"] },
    });
    assert.deepEqual(config.tools.disabled, ["x"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("parseConfigText() checks built-in options against the tool's options schema", () => {
  const text = '{\n  "tools": { "builtins": { "shell": { "allowedCommand": ["git"] } } }\n}\n';
  assert.throws(
    () => parseConfigText("/p/harness.jsonc", text),
    (e: unknown) =>
      e instanceof ConfigError && e.line === 2 &&
      e.message.includes(
        'unknown option "allowedCommand" of the built-in "shell": did you mean "allowedCommands"?',
      ),
  );
  const bad = '{ "tools": { "builtins": { "web_fetch": { "hosts": "example.com" } } } }';
  assert.throws(
    () => parseConfigText("/p/harness.jsonc", bad),
    /"tools\.builtins\.web_fetch\.hosts" must be array/,
  );
  const good =
    '{ "tools": { "builtins": { "shell": { "allowedCommands": ["git"] }, "read_file": true } } }';
  assert.doesNotThrow(() => parseConfigText("/p/harness.jsonc", good));
});

Deno.test("parseConfigText() describes a value that fits no branch of a oneOf", () => {
  assert.throws(
    () => parseConfigText("/p/harness.jsonc", '{ "tools": { "builtins": { "shell": 3 } } }'),
    /"tools\.builtins\.shell" must be a boolean or an object \(got number\)/,
  );
});
