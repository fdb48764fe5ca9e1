import assert from "node:assert/strict";
import { statFileTool } from "./stat_file.ts";
import { makeTempProject } from "../tests/_helpers/temp_project.ts";

const call = (projectDir: string, path: string) =>
  statFileTool.execute({ path }, { projectDir, options: {} });

Deno.test("statFileTool.execute() returns name, size, modified and isDir as JSON", async () => {
  await using t = await makeTempProject();
  await t.write("d/f.txt", "12345");
  const when = new Date("2024-05-06T07:08:09.000Z");
  await Deno.utime(`${t.project}/d/f.txt`, when, when);
  assert.deepEqual(JSON.parse((await call(t.project, "d/f.txt")).content), {
    name: "f.txt",
    size: 5,
    modified: "2024-05-06T07:08:09.000Z",
    isDir: false,
  });
  const dir = JSON.parse((await call(t.project, "d")).content);
  assert.equal(dir.name, "d");
  assert.equal(dir.isDir, true);
});

Deno.test("statFileTool.execute() reports missing files and refuses outside paths", async () => {
  await using t = await makeTempProject();
  await t.link("link", `${t.outside}/secret.txt`);
  assert.match((await call(t.project, "nope")).content, /does not exist/);
  for (const p of ["../outside/secret.txt", "link", t.outside]) {
    const r = await call(t.project, p);
    assert.equal(r.isError, true, p);
    assert.match(r.content, /outside the project/, p);
  }
});
