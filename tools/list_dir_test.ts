import assert from "node:assert/strict";
import { LIST_DIR_MAX_ENTRIES, listDirTool } from "./list_dir.ts";
import { makeTempProject } from "../tests/_helpers/temp_project.ts";

const call = (projectDir: string, args: Record<string, unknown>) =>
  listDirTool.execute(args, { projectDir, options: {} });

Deno.test("listDirTool.execute() lists sorted entries, marking directories and links", async () => {
  await using t = await makeTempProject();
  await t.write("b.txt", "");
  await t.write("a/x.txt", "");
  await t.write("C.md", "");
  await t.link("z_link", "b.txt");
  assert.deepEqual(await call(t.project, {}), { content: "C.md\na/\nb.txt\nz_link@" });
  assert.deepEqual(await call(t.project, { path: "a" }), { content: "x.txt" });
});

Deno.test("listDirTool.execute() says when a directory is empty or a path is a file", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "");
  await Deno.mkdir(`${t.project}/empty`);
  assert.deepEqual(await call(t.project, { path: "empty" }), {
    content: `(empty directory "empty")`,
  });
  const file = await call(t.project, { path: "f.txt" });
  assert.equal(file.isError, true);
  assert.match(file.content, /it is a file: use read_file/);
});

Deno.test("listDirTool.execute() caps the number of entries", async () => {
  await using t = await makeTempProject();
  for (let i = 0; i <= LIST_DIR_MAX_ENTRIES; i++) {
    await Deno.writeTextFile(`${t.project}/f${String(i).padStart(4, "0")}`, "");
  }
  const r = await call(t.project, {});
  const lines = r.content.split("\n");
  assert.equal(lines.length, LIST_DIR_MAX_ENTRIES + 1);
  assert.equal(lines.at(-1), `[truncated: showed 1000 of 1001 entries]`);
});

Deno.test("listDirTool.execute() never lists outside the project", async () => {
  await using t = await makeTempProject();
  await t.link("dirlink", t.outside);
  for (const p of ["..", "../outside", t.outside, "dirlink", "dirlink/."]) {
    const r = await call(t.project, { path: p });
    assert.equal(r.isError, true, p);
    assert.doesNotMatch(r.content, /secret\.txt/, p);
    assert.match(r.content, /outside the project/, p);
  }
});
