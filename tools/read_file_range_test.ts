import assert from "node:assert/strict";
import { READ_FILE_RANGE_MAX_BYTES, readFileRangeTool } from "./read_file_range.ts";
import { makeTempProject } from "../tests/_helpers/temp_project.ts";

const call = (projectDir: string, path: string, start_line: number, end_line: number) =>
  readFileRangeTool.execute({ path, start_line, end_line }, { projectDir, options: {} });

Deno.test("readFileRangeTool.execute() returns the inclusive 1-based range", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "one\ntwo\nthree\nfour\n");
  assert.deepEqual(await call(t.project, "f.txt", 2, 3), { content: "two\nthree" });
  assert.deepEqual(await call(t.project, "f.txt", 1, 1), { content: "one" });
  assert.deepEqual(await call(t.project, "f.txt", 3, 99), { content: "three\nfour" });
  await t.write("g.txt", "a\nb");
  assert.deepEqual(await call(t.project, "g.txt", 2, 2), { content: "b" });
});

Deno.test("readFileRangeTool.execute() explains out-of-range lines", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "one\ntwo\n");
  await t.write("empty.txt", "");
  const past = await call(t.project, "f.txt", 3, 4);
  assert.deepEqual(past, {
    content: `start_line 3 is out of range: "f.txt" has 2 lines: pass a start_line from 1 to 2`,
    isError: true,
  });
  assert.match((await call(t.project, "f.txt", 0, 1)).content, /lines are numbered from 1/);
  assert.match((await call(t.project, "f.txt", 2, 1)).content, /end_line 1 is before start_line 2/);
  assert.match((await call(t.project, "empty.txt", 1, 1)).content, /is empty/);
});

Deno.test("readFileRangeTool.execute() caps the output and says where to go on", async () => {
  await using t = await makeTempProject();
  const line = "y".repeat(1023);
  const count = READ_FILE_RANGE_MAX_BYTES / 1024 + 5;
  await t.write("big.txt", `${line}\n`.repeat(count));
  const r = await call(t.project, "big.txt", 1, count);
  assert.equal(r.isError, undefined);
  assert.match(
    r.content,
    /\[truncated: output is limited to 102400 bytes: showed lines 1-100: read again from line 101\]$/,
  );
});

Deno.test("readFileRangeTool.execute() refuses binary files and outside paths", async () => {
  await using t = await makeTempProject();
  await t.write("bin", new Uint8Array([0x41, 0, 0x0a]));
  await t.link("link", `${t.outside}/secret.txt`);
  assert.match((await call(t.project, "bin", 1, 1)).content, /is a binary file/);
  for (const p of ["../outside/secret.txt", "link"]) {
    const r = await call(t.project, p, 1, 1);
    assert.equal(r.isError, true, p);
    assert.match(r.content, /outside the project/, p);
  }
});
