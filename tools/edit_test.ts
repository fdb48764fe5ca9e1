import assert from "node:assert/strict";
import { editTool } from "./edit.ts";
import { makeTempProject, SECRET } from "../tests/_helpers/temp_project.ts";

const call = (projectDir: string, path: string, search: string, replacement: string) =>
  editTool.execute({ path, search, replacement }, { projectDir, options: {} });

Deno.test("editTool.execute() replaces every occurrence and says how many", async () => {
  await using t = await makeTempProject();
  await t.write("f.ts", "let a = 1;\nlet b = a + a;\n");
  assert.deepEqual(await call(t.project, "f.ts", "a", "x"), {
    content: `Replaced 3 occurrences in "f.ts"`,
  });
  assert.equal(await Deno.readTextFile(`${t.project}/f.ts`), "let x = 1;\nlet b = x + x;\n");
  assert.deepEqual(await call(t.project, "f.ts", "let b", "const b"), {
    content: `Replaced 1 occurrence in "f.ts"`,
  });
});

Deno.test("editTool.execute() treats the search text literally, $ patterns included", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "price: $1 (a.b)");
  await call(t.project, "f.txt", "$1 (a.b)", "$& $$");
  assert.equal(await Deno.readTextFile(`${t.project}/f.txt`), "price: $& $$");
});

Deno.test("editTool.execute() with no match changes nothing and asks to re-read the file", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "hello");
  const r = await call(t.project, "f.txt", "Hello", "bye");
  assert.equal(r.isError, true);
  assert.match(r.content, /No match .* read the file again and copy the exact text/);
  assert.equal(await Deno.readTextFile(`${t.project}/f.txt`), "hello");
  assert.match((await call(t.project, "f.txt", "", "x")).content, /Search text is empty/);
});

Deno.test("editTool.execute() refuses binary and non-UTF-8 files", async () => {
  await using t = await makeTempProject();
  await t.write("bin", new Uint8Array([0x61, 0, 0x62]));
  await t.write("latin1", new Uint8Array([0x61, 0xe9, 0x62]));
  assert.match((await call(t.project, "bin", "a", "b")).content, /binary file/);
  assert.match((await call(t.project, "latin1", "a", "b")).content, /not valid UTF-8/);
  assert.deepEqual(await Deno.readFile(`${t.project}/latin1`), new Uint8Array([0x61, 0xe9, 0x62]));
});

Deno.test("editTool.execute() never edits outside the project", async () => {
  await using t = await makeTempProject();
  await t.link("link", `${t.outside}/secret.txt`);
  for (const p of ["../outside/secret.txt", `${t.outside}/secret.txt`, "link"]) {
    const r = await call(t.project, p, "secret", "public");
    assert.equal(r.isError, true, p);
    assert.match(r.content, /outside the project/, p);
  }
  assert.equal(await Deno.readTextFile(`${t.outside}/secret.txt`), SECRET);
});
