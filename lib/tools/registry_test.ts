import assert from "node:assert/strict";
import type { Config } from "../config/load.ts";
import { personalNanocoderDir } from "./personal.ts";
import { projectSources, type RegistryFs, ToolRegistry, type ToolSourceSpec } from "./registry.ts";

const P = "/proj";
const PERSONAL = "/home/u/.config/nanocoder/tools";

function config(patch: Partial<Config["tools"]> = {}, file?: string): Config {
  const c: Config = {
    projectDir: P,
    sandbox: "auto",
    ceiling: {},
    tools: {
      octomindDirs: [],
      nanocoderDirs: [],
      manifests: [],
      personal: true,
      defaults: {
        approval: "always",
        octomindTimeoutMs: 300_000,
        manifestTimeoutMs: 30_000,
        maxOutputBytes: 1_048_576,
      },
      overrides: {},
      disabled: [],
      ...patch,
    },
    provider: {
      baseUrl: "https://api.openai.com/v1",
      apiKeyEnv: "OPENAI_API_KEY",
      stream: true,
      headers: {},
      extraBody: {},
      toolCallIdFormat: "auto",
    },
    nativeTools: [],
    run: {},
  };
  if (file) c.file = file;
  return c;
}

interface FakeFile {
  data: Uint8Array;
  mtime: number;
  mode: number;
}

/** An in-memory file system that counts reads and lists directories in reverse order. */
class FakeFs implements RegistryFs {
  files = new Map<string, FakeFile>();
  reads: string[] = [];

  write(path: string, text: string | Uint8Array, mode = 0o644): void {
    const data = typeof text === "string" ? new TextEncoder().encode(text) : text;
    const old = this.files.get(path);
    this.files.set(path, { data, mtime: (old?.mtime ?? 1000) + 1, mode });
  }

  touch(path: string, change: Partial<Omit<FakeFile, "data">>): void {
    const f = this.files.get(path)!;
    this.files.set(path, { ...f, ...change });
  }

  readDir(path: string): Promise<string[]> {
    const prefix = `${path}/`;
    const names = new Set<string>();
    for (const p of this.files.keys()) {
      if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split("/")[0]);
    }
    if (names.size === 0) return Promise.reject(new Deno.errors.NotFound(`No such directory`));
    return Promise.resolve([...names].sort().reverse());
  }

  stat(path: string): Promise<Deno.FileInfo> {
    const f = this.files.get(path);
    if (!f) {
      const isDir = [...this.files.keys()].some((p) => p.startsWith(`${path}/`));
      if (isDir) return Promise.resolve({ isFile: false, isDirectory: true } as Deno.FileInfo);
      return Promise.reject(new Deno.errors.NotFound(`No such file "${path}"`));
    }
    return Promise.resolve(
      {
        isFile: true,
        isDirectory: false,
        isSymlink: false,
        size: f.data.length,
        mtime: new Date(f.mtime),
        mode: f.mode,
      } as Deno.FileInfo,
    );
  }

  readFile(path: string): Promise<Uint8Array> {
    this.reads.push(path);
    const f = this.files.get(path);
    return f ? Promise.resolve(f.data) : Promise.reject(new Deno.errors.NotFound(path));
  }
}

function md(name: string, description = `Tool ${name}`, extra = ""): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\necho ${name}\n`;
}

const projectDir = (fs: FakeFs, file: string, text: string | Uint8Array) =>
  fs.write(`${P}/.nanocoder/tools/${file}`, text);

function nanocoderSources(): ToolSourceSpec[] {
  return [
    {
      format: "nanocoder",
      path: `${P}/.nanocoder/tools`,
      file: false,
      implicit: true,
      scope: "project",
    },
    { format: "nanocoder", path: PERSONAL, file: false, implicit: true, scope: "personal" },
  ];
}

function registry(fs: FakeFs, c = config(), sources = nanocoderSources()): ToolRegistry {
  return new ToolRegistry(c, sources, { fs, builtins: false });
}

Deno.test("personalNanocoderDir() follows Nanocoder's getConfigPath()", () => {
  const env = (vars: Record<string, string>) => (n: string) => vars[n];
  assert.equal(
    personalNanocoderDir(
      env({ NANOCODER_CONFIG_DIR: "/cfg", XDG_CONFIG_HOME: "/x", HOME: "/h" }),
      "linux",
    ),
    "/cfg/tools",
  );
  assert.equal(
    personalNanocoderDir(env({ XDG_CONFIG_HOME: "/x", HOME: "/h" }), "linux"),
    "/x/nanocoder/tools",
  );
  assert.equal(personalNanocoderDir(env({ HOME: "/h" }), "linux"), "/h/.config/nanocoder/tools");
  assert.equal(
    personalNanocoderDir(env({ HOME: "/h", XDG_CONFIG_HOME: "/x" }), "darwin"),
    "/h/Library/Preferences/nanocoder/tools",
  );
  assert.equal(
    personalNanocoderDir(env({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }), "windows"),
    "C:\\Users\\u\\AppData\\Roaming\\nanocoder\\tools",
  );
  assert.equal(personalNanocoderDir(env({}), "linux"), undefined);
});

Deno.test("projectSources() lists sources in precedence order", () => {
  const c = config({
    manifests: ["/m/extra.json"],
    nanocoderDirs: ["/n/extra"],
    octomindDirs: ["/o/extra"],
  });
  const env = (n: string) => ({ HOME: "/home/u" } as Record<string, string>)[n];
  const list = projectSources(c, env);
  const expected = [
    ["manifest", `${P}/tools.json`, true, "project"],
    ["manifest", "/m/extra.json", false, "project"],
    ["nanocoder", `${P}/.nanocoder/tools`, true, "project"],
    ["nanocoder", "/n/extra", false, "project"],
    ...(Deno.build.os === "linux" ? [["nanocoder", PERSONAL, true, "personal"]] : []),
    ["octomind", `${P}/.agents/tools`, true, "project"],
    ["octomind", "/o/extra", false, "project"],
  ];
  assert.deepEqual(list.map((s) => [s.format, s.path, s.implicit, s.scope]), expected);
  assert.ok(!projectSources(config({ personal: false }), env).some((s) => s.scope === "personal"));
});

Deno.test("ToolRegistry.refresh() loads Nanocoder files in sorted order, first duplicate wins", async () => {
  const fs = new FakeFs();
  projectDir(fs, "b.md", md("dup", "from b"));
  projectDir(fs, "a.md", md("dup", "from a"));
  projectDir(fs, "c.md", md("other"));
  projectDir(fs, "notes.txt", "ignored");
  projectDir(fs, "UPPER.MD", md("upper"));
  const snap = await registry(fs).refresh();
  assert.deepEqual(snap.tools.map((t) => t.name), ["dup", "other"]);
  assert.equal(snap.byName.get("dup")?.description, "from a");
  const dup = snap.diagnostics.filter((d) => d.code === "nanocoder/duplicate-name");
  assert.equal(dup.length, 1);
  assert.equal(
    dup[0].message,
    'Duplicate tool name "dup" in project tools directory — keeping the first.',
  );
  assert.equal(dup[0].file, `${P}/.nanocoder/tools/b.md`);
  assert.equal(dup[0].severity, "warning");
  assert.ok(!fs.reads.some((p) => p.endsWith("notes.txt") || p.endsWith(".MD")));
});

Deno.test("ToolRegistry.refresh() names the personal directory in a personal duplicate", async () => {
  const fs = new FakeFs();
  fs.write(`${PERSONAL}/x.md`, md("p"));
  fs.write(`${PERSONAL}/y.md`, md("p"));
  const snap = await registry(fs).refresh();
  const dup = snap.diagnostics.find((d) => d.code === "nanocoder/duplicate-name");
  assert.equal(
    dup?.message,
    'Duplicate tool name "p" in personal tools directory — keeping the first.',
  );
});

Deno.test("ToolRegistry.refresh() lets a project tool override a personal one and records the shadow", async () => {
  const fs = new FakeFs();
  projectDir(fs, "k.md", md("k8s", "project"));
  fs.write(`${PERSONAL}/k.md`, md("k8s", "personal"));
  fs.write(`${PERSONAL}/mine.md`, md("mine"));
  const snap = await registry(fs).refresh();
  assert.equal(snap.byName.get("k8s")?.description, "project");
  assert.equal(snap.byName.get("mine")?.description, "Tool mine");
  assert.deepEqual(snap.shadows.get("k8s"), [{ format: "nanocoder", path: `${PERSONAL}/k.md` }]);
  const shadowed = snap.diagnostics.filter((d) => d.code === "registry/shadowed");
  assert.equal(shadowed.length, 1);
  assert.equal(shadowed[0].file, `${PERSONAL}/k.md`);
  assert.match(
    shadowed[0].message,
    /is shadowed by the nanocoder tool ".*\/\.nanocoder\/tools\/k\.md"/,
  );
});

Deno.test("ToolRegistry.refresh() reads nothing again when no file changed", async () => {
  const fs = new FakeFs();
  projectDir(fs, "a.md", md("a"));
  projectDir(fs, "b.md", md("b"));
  const reg = registry(fs);
  const first = await reg.refresh();
  assert.equal(fs.reads.length, 2);
  const second = await reg.refresh();
  assert.equal(fs.reads.length, 2, `re-read: ${fs.reads.slice(2).join(", ")}`);
  assert.deepEqual(second.tools.map((t) => t.name), first.tools.map((t) => t.name));
});

Deno.test("ToolRegistry.refresh() re-reads only the file whose mtime, size or mode changed", async () => {
  const fs = new FakeFs();
  const a = `${P}/.nanocoder/tools/a.md`;
  projectDir(fs, "a.md", md("a"));
  projectDir(fs, "b.md", md("b"));
  const reg = registry(fs);
  await reg.refresh();
  fs.reads = [];
  fs.touch(a, { mtime: 5000 });
  await reg.refresh();
  assert.deepEqual(fs.reads, [a]);
  fs.reads = [];
  fs.touch(a, { mode: 0o755 });
  await reg.refresh();
  assert.deepEqual(fs.reads, [a]);
  fs.reads = [];
  fs.files.set(a, { ...fs.files.get(a)!, data: new TextEncoder().encode(md("a", "changed!")) });
  const snap = await reg.refresh();
  assert.deepEqual(fs.reads, [a], "size change");
  assert.equal(snap.byName.get("a")?.description, "changed!");
});

Deno.test("ToolRegistry.refresh() picks up new files and drops removed ones", async () => {
  const fs = new FakeFs();
  projectDir(fs, "a.md", md("a"));
  const reg = registry(fs);
  assert.deepEqual((await reg.refresh()).tools.map((t) => t.name), ["a"]);
  projectDir(fs, "b.md", md("b"));
  fs.reads = [];
  assert.deepEqual((await reg.refresh()).tools.map((t) => t.name), ["a", "b"]);
  assert.deepEqual(fs.reads, [`${P}/.nanocoder/tools/b.md`]);
  fs.files.delete(`${P}/.nanocoder/tools/a.md`);
  assert.deepEqual((await reg.refresh()).tools.map((t) => t.name), ["b"]);
});

Deno.test("ToolRegistry.refresh() keeps cached diagnostics of an unchanged bad file", async () => {
  const fs = new FakeFs();
  projectDir(fs, "bad.md", "---\nname: bad\n---\necho\n");
  const reg = registry(fs);
  const first = await reg.refresh();
  const second = await reg.refresh();
  assert.equal(fs.reads.length, 1);
  const codes = (s: typeof first) => s.diagnostics.map((d) => d.code);
  assert.deepEqual(codes(second), codes(first));
  assert.ok(codes(second).includes("nanocoder/missing-description"));
  assert.equal(second.skipped.length, 1);
  assert.equal(second.skipped[0].path, `${P}/.nanocoder/tools/bad.md`);
});

Deno.test("ToolRegistry.refresh() reports a file that is not UTF-8", async () => {
  const fs = new FakeFs();
  projectDir(fs, "bin.md", new Uint8Array([0x2d, 0x2d, 0x2d, 0xff, 0xfe]));
  const snap = await registry(fs).refresh();
  assert.equal(snap.tools.length, 0);
  assert.equal(snap.diagnostics[0].code, "nanocoder/not-utf8");
  assert.match(snap.diagnostics[0].message, /is not valid UTF-8: save it as UTF-8 text/);
});

Deno.test("ToolRegistry.refresh() warns about a configured directory that is missing", async () => {
  const fs = new FakeFs();
  const sources: ToolSourceSpec[] = [
    ...nanocoderSources(),
    { format: "nanocoder", path: "/nope", file: false, implicit: false, scope: "project" },
  ];
  const snap = await registry(fs, config({}, `${P}/harness.jsonc`), sources).refresh();
  assert.deepEqual(snap.diagnostics.map((d) => d.code), ["registry/missing-directory"]);
  assert.equal(snap.diagnostics[0].file, `${P}/harness.jsonc`);
  assert.match(snap.diagnostics[0].message, /Tool directory "\/nope" from harness\.jsonc/);
});

Deno.test("ToolRegistry.refresh() reports a configured manifest that does not exist", async () => {
  const fs = new FakeFs();
  const sources: ToolSourceSpec[] = [
    { format: "manifest", path: `${P}/tools.json`, file: true, implicit: true, scope: "project" },
    { format: "manifest", path: "/m/ci.json", file: true, implicit: false, scope: "project" },
  ];
  const snap = await registry(fs, config(), sources).refresh();
  assert.deepEqual(snap.diagnostics.map((d) => [d.code, d.file]), [[
    "manifest/not-found",
    "/m/ci.json",
  ]]);
  assert.match(snap.diagnostics[0].message, /^read manifest: open \/m\/ci\.json: no such file/);
});

Deno.test("ToolRegistry.refresh() applies overrides and drops disabled tools", async () => {
  const fs = new FakeFs();
  projectDir(fs, "a.md", md("a", "A", "approval: always\n"));
  projectDir(fs, "b.md", md("b"));
  const c = config({
    overrides: { a: { approval: "never", readOnly: true, timeoutMs: 1234 } },
    disabled: ["b"],
  });
  const snap = await registry(fs, c).refresh();
  assert.deepEqual(snap.tools.map((t) => t.name), ["a"]);
  const a = snap.byName.get("a")!;
  assert.equal(a.approval, "never");
  assert.equal(a.readOnly, true);
  assert.equal(a.timeoutMs, 1234);
  assert.equal(snap.overrides, c.tools.overrides);
});

Deno.test("ToolRegistry.refresh() puts built-ins first and refuses a Nanocoder tool of the same name", async () => {
  const fs = new FakeFs();
  projectDir(fs, "rf.md", md("read_file"));
  const c = config({ builtins: { read_file: true } });
  const snap = await new ToolRegistry(c, nanocoderSources(), { fs }).refresh();
  assert.deepEqual(snap.tools.map((t) => t.name), ["read_file"]);
  assert.equal(snap.byName.get("read_file")?.source.format, "builtin");
  const d = snap.diagnostics.find((x) => x.code === "registry/shadowed");
  assert.ok(
    d?.message.startsWith('Tool name "read_file" collides with a built-in or MCP tool — skipping.'),
    d?.message,
  );
});

Deno.test("ToolRegistry.refresh() applies the documented precedence across formats", async () => {
  const fs = new FakeFs();
  const entry = (name: string) => ({
    name,
    description: `manifest ${name}`,
    command: ["/bin/true"],
  });
  fs.write(`${P}/tools.json`, JSON.stringify({ tools: [entry("read_file"), entry("m")] }));
  for (const name of ["m", "n"]) projectDir(fs, `${name}.md`, md(name, `project ${name}`));
  for (const name of ["m", "n", "p"]) {
    fs.write(`${PERSONAL}/${name}.md`, md(name, `personal ${name}`));
  }
  for (const name of ["m", "n", "p", "o"]) {
    fs.write(
      `${P}/.agents/tools/${name}`,
      `#!/bin/sh\n# @description octomind ${name}\necho\n`,
      0o755,
    );
  }
  const sources: ToolSourceSpec[] = [
    { format: "manifest", path: `${P}/tools.json`, file: true, implicit: true, scope: "project" },
    ...nanocoderSources(),
    {
      format: "octomind",
      path: `${P}/.agents/tools`,
      file: false,
      implicit: true,
      scope: "project",
    },
  ];
  const c = config({ builtins: { read_file: true } });
  const snap = await new ToolRegistry(c, sources, { fs }).refresh();
  const from = (name: string) => snap.byName.get(name)?.source.format;
  assert.equal(from("read_file"), "builtin");
  assert.equal(snap.byName.get("m")?.description, "manifest m");
  assert.equal(snap.byName.get("n")?.description, "project n");
  assert.equal(snap.byName.get("p")?.description, "personal p");
  assert.equal(snap.byName.get("o")?.description, "octomind o");
  assert.deepEqual(snap.tools.map((t) => t.name), ["read_file", "m", "n", "p", "o"]);
  assert.deepEqual(snap.shadows.get("read_file"), [{
    format: "manifest",
    path: `${P}/tools.json`,
    line: 1,
  }]);
  assert.deepEqual(snap.shadows.get("m")?.map((s) => s.path), [
    `${P}/.nanocoder/tools/m.md`,
    `${PERSONAL}/m.md`,
    `${P}/.agents/tools/m`,
  ]);
  assert.deepEqual(snap.shadows.get("p")?.map((s) => s.format), ["octomind"]);
  assert.equal(snap.shadows.get("o"), undefined);
  assert.equal(snap.diagnostics.filter((d) => d.code === "registry/shadowed").length, 7);
});

Deno.test("ToolRegistry.refresh() caches a manifest file like any other", async () => {
  const fs = new FakeFs();
  fs.write(`${P}/tools.json`, '{"tools": [{"name": "a", "command": ["/bin/true"]}]}');
  const sources: ToolSourceSpec[] = [
    { format: "manifest", path: `${P}/tools.json`, file: true, implicit: true, scope: "project" },
  ];
  const reg = registry(fs, config(), sources);
  await reg.refresh();
  await reg.refresh();
  assert.deepEqual(fs.reads, [`${P}/tools.json`]);
  fs.write(`${P}/tools.json`, '{"tools": [{"name": "b", "command": ["/bin/true"]}]}');
  assert.deepEqual((await reg.refresh()).tools.map((t) => t.name), ["b"]);
  assert.equal(fs.reads.length, 2);
});
