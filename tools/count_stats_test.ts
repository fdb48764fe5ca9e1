import assert from "node:assert/strict";
import { countBytes, countStatsTool } from "./count_stats.ts";
import { makeTempProject } from "../tests/_helpers/temp_project.ts";

const call = (projectDir: string, path: string) =>
  countStatsTool.execute({ path }, { projectDir, options: {} });

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield new TextEncoder().encode(p);
}

Deno.test("countBytes() counts lines, words and bytes across chunk boundaries", async () => {
  assert.deepEqual(await countBytes(chunks("hel", "lo wo", "rld\n", "two\tlines")), {
    lines: 2,
    words: 4,
    bytes: 21,
  });
  assert.deepEqual(await countBytes(chunks("")), { lines: 0, words: 0, bytes: 0 });
  assert.deepEqual(await countBytes(chunks("a\n\n")), { lines: 2, words: 1, bytes: 3 });
});

Deno.test("countStatsTool.execute() answers in the original's format", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "one two\nthree\n");
  assert.deepEqual(await call(t.project, "f.txt"), { content: "Lines: 2, Words: 3, Bytes: 14" });
  await t.write("g.txt", "no newline");
  assert.deepEqual(await call(t.project, "g.txt"), { content: "Lines: 1, Words: 2, Bytes: 10" });
});

Deno.test("countStatsTool.execute() refuses directories and outside paths", async () => {
  await using t = await makeTempProject();
  await t.write("d/x", "");
  await t.link("link", `${t.outside}/secret.txt`);
  assert.match((await call(t.project, "d")).content, /is a directory/);
  for (const p of ["../outside/secret.txt", "link"]) {
    const r = await call(t.project, p);
    assert.equal(r.isError, true, p);
    assert.match(r.content, /outside the project/, p);
  }
});
