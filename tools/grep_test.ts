import assert from "node:assert/strict";
import { GREP_MAX_LINE_CHARS, GREP_MAX_MATCHES, grepTool } from "./grep.ts";
import { makeTempProject } from "../tests/_helpers/temp_project.ts";

const call = (projectDir: string, path: string, pattern: string) =>
  grepTool.execute({ path, pattern }, { projectDir, options: {} });

Deno.test("grepTool.execute() returns line_number: content for a file", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "alpha\nbeta\nalphabet\n");
  assert.deepEqual(await call(t.project, "f.txt", "alpha"), { content: "1: alpha\n3: alphabet" });
});

Deno.test("grepTool.execute() treats the pattern literally", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "a.b\naxb\n(x)*\n");
  assert.deepEqual(await call(t.project, "f.txt", "a.b"), { content: "1: a.b" });
  assert.deepEqual(await call(t.project, "f.txt", "(x)*"), { content: "3: (x)*" });
});

Deno.test("grepTool.execute() searches a directory recursively with path prefixes", async () => {
  await using t = await makeTempProject();
  await t.write("src/b.ts", "needle here\n");
  await t.write("src/a/deep.ts", "x\nneedle\n");
  await t.write("README.md", "no match\n");
  await t.write(".git/config", "needle\n");
  await t.write("node_modules/m/index.js", "needle\n");
  await t.write("img.bin", new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0]));
  await t.link("outlink", t.outside);
  await Deno.writeTextFile(`${t.outside}/leak.txt`, "needle\n");
  assert.deepEqual(await call(t.project, ".", "needle"), {
    content: "src/a/deep.ts:2: needle\nsrc/b.ts:1: needle here",
  });
  assert.deepEqual(await call(t.project, "src/a", "needle"), {
    content: "src/a/deep.ts:2: needle",
  });
});

Deno.test("grepTool.execute() says when nothing matched", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "abc\n");
  assert.deepEqual(await call(t.project, "f.txt", "zzz"), {
    content: `No matches for "zzz" in "f.txt"`,
  });
});

Deno.test("grepTool.execute() caps matches and cuts long lines", async () => {
  await using t = await makeTempProject();
  await t.write("many.txt", "hit\n".repeat(GREP_MAX_MATCHES + 1));
  const many = (await call(t.project, "many.txt", "hit")).content.split("\n");
  assert.equal(many.length, GREP_MAX_MATCHES + 1);
  assert.match(many.at(-1)!, /\[truncated: stopped after 200 matches/);
  await t.write("long.txt", `hit${"z".repeat(GREP_MAX_LINE_CHARS * 2)}\n`);
  const long = (await call(t.project, "long.txt", "hit")).content;
  assert.equal(long, `1: hit${"z".repeat(GREP_MAX_LINE_CHARS - 3)}… [line cut at 300 characters]`);
});

Deno.test("grepTool.execute() refuses empty patterns, binary files and outside paths", async () => {
  await using t = await makeTempProject();
  await t.write("bin", new Uint8Array([0x61, 0]));
  await t.link("link", `${t.outside}/secret.txt`);
  await t.link("dirlink", t.outside);
  assert.match((await call(t.project, "bin", "a")).content, /binary file/);
  assert.match((await call(t.project, ".", "")).content, /Pattern is empty/);
  for (const p of ["..", "../outside", "link", "dirlink", t.outside]) {
    const r = await call(t.project, p, "secret");
    assert.equal(r.isError, true, p);
    assert.match(r.content, /outside the project/, p);
  }
});
