import assert from "node:assert/strict";
import { writeFileTool } from "./write_file.ts";
import { makeTempProject, SECRET } from "../tests/_helpers/temp_project.ts";
import { startBuiltinWorker } from "../tests/_helpers/builtin_worker_client.ts";

const call = (projectDir: string, path: string, content: string) =>
  writeFileTool.execute({ path, content }, { projectDir, options: {} });

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("writeFileTool.execute() creates parent directories and reports the size", async () => {
  await using t = await makeTempProject();
  const r = await call(t.project, "a/b/c.txt", "héllo");
  assert.deepEqual(r, { content: `Created "a/b/c.txt" (6 bytes)` });
  assert.equal(await Deno.readTextFile(`${t.project}/a/b/c.txt`), "héllo");
});

Deno.test("writeFileTool.execute() overwrites an existing file", async () => {
  await using t = await makeTempProject();
  await t.write("f.txt", "old content");
  assert.deepEqual(await call(t.project, "f.txt", "new"), {
    content: `Overwrote "f.txt" (3 bytes)`,
  });
  assert.equal(await Deno.readTextFile(`${t.project}/f.txt`), "new");
});

Deno.test("writeFileTool.execute() refuses a directory and the project itself", async () => {
  await using t = await makeTempProject();
  await t.write("d/x.txt", "x");
  const dir = await call(t.project, "d", "x");
  assert.equal(dir.isError, true);
  assert.match(dir.content, /is a directory/);
  assert.match((await call(t.project, ".", "x")).content, /project directory itself/);
});

Deno.test("writeFileTool.execute() never writes outside the project", async () => {
  await using t = await makeTempProject();
  await t.link("link", `${t.outside}/secret.txt`);
  await t.link("dirlink", t.outside);
  await t.link("dangling", `${t.outside}/created.txt`);
  const paths = [
    "../outside/secret.txt",
    `${t.outside}/secret.txt`,
    "../outside/new.txt",
    "link",
    "dirlink/new.txt",
    "dirlink/sub/new.txt",
    "dangling",
  ];
  for (const p of paths) {
    const r = await call(t.project, p, "pwned");
    assert.equal(r.isError, true, p);
    assert.match(r.content, /outside the project/, p);
  }
  assert.equal(await Deno.readTextFile(`${t.outside}/secret.txt`), SECRET);
  assert.deepEqual((await Array.fromAsync(Deno.readDir(t.outside))).map((e) => e.name), [
    "secret.txt",
  ]);
  assert.equal(await exists(`${t.root}/new.txt`), false);
});

Deno.test("writeFileTool.permissions() is enough inside a Worker and Deno denies the rest", async () => {
  await using t = await makeTempProject();
  await t.link("dirlink", t.outside);
  const worker = startBuiltinWorker(
    writeFileTool.permissions({ projectDir: t.project, options: {} }),
  );
  try {
    const run = (path: string) =>
      worker.call({
        tool: "write_file",
        args: { path, content: "pwned" },
        projectDir: t.project,
        options: {},
      });
    assert.deepEqual(await run("out/x.txt"), {
      result: { content: `Created "out/x.txt" (5 bytes)` },
    });
    assert.equal(await Deno.readTextFile(`${t.project}/out/x.txt`), "pwned");
    for (const p of ["../outside/secret.txt", `${t.outside}/new.txt`, "dirlink/new.txt"]) {
      const reply = await run(p);
      assert.ok("result" in reply && reply.result.isError, p);
    }
    const raw = await worker.call({ probe: "write", path: `${t.outside}/raw.txt` });
    assert.ok("error" in raw && raw.error.startsWith("NotCapable"), JSON.stringify(raw));
    assert.equal(await Deno.readTextFile(`${t.outside}/secret.txt`), SECRET);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(t.outside))).map((e) => e.name), [
      "secret.txt",
    ]);
  } finally {
    worker.close();
  }
});
