import assert from "node:assert/strict";
import { isInside, normalize, relativeTo, resolveInProject } from "./_paths.ts";
import { makeTempProject } from "../tests/_helpers/temp_project.ts";

Deno.test("normalize() collapses dot segments and slashes", () => {
  assert.equal(normalize("/a//b/./c/../d/"), "/a/b/d");
  assert.equal(normalize("/.."), "/");
  assert.equal(normalize("a/../../b"), "../b");
  assert.equal(normalize(""), ".");
});

Deno.test("isInside() and relativeTo() respect segment boundaries", () => {
  assert.equal(isInside("/p", "/p"), true);
  assert.equal(isInside("/p", "/p/x"), true);
  assert.equal(isInside("/p", "/px"), false);
  assert.equal(relativeTo("/p", "/p/a/b"), "a/b");
  assert.equal(relativeTo("/p", "/p"), ".");
});

Deno.test("resolveInProject() resolves relative and absolute paths inside the project", async () => {
  await using t = await makeTempProject();
  await t.write("src/a.txt", "a");
  const rel = await resolveInProject(t.project, "src/./a.txt", { mustExist: true });
  assert.deepEqual(rel, {
    ok: true,
    path: `${t.project}/src/a.txt`,
    relative: "src/a.txt",
    exists: true,
  });
  const abs = await resolveInProject(t.project, `${t.project}/src/new.txt`);
  assert.deepEqual(abs, {
    ok: true,
    path: `${t.project}/src/new.txt`,
    relative: "src/new.txt",
    exists: false,
  });
  const deep = await resolveInProject(t.project, "x/y/z.txt");
  assert.equal(deep.ok && deep.path, `${t.project}/x/y/z.txt`);
});

Deno.test("resolveInProject() refuses .. and absolute paths outside with a clear message", async () => {
  await using t = await makeTempProject();
  assert.deepEqual(await resolveInProject(t.project, "../x"), {
    ok: false,
    message: `Path "../x" is outside the project "${t.project}": use a path inside the project`,
  });
  const abs = await resolveInProject(t.project, `${t.outside}/secret.txt`);
  assert.equal(abs.ok, false);
  assert.match(!abs.ok ? abs.message : "", /is outside the project/);
  const sneaky = await resolveInProject(t.project, "src/../../outside/secret.txt");
  assert.equal(sneaky.ok, false);
});

Deno.test("resolveInProject() refuses symbolic links that lead outside, existing or not", async () => {
  await using t = await makeTempProject();
  await t.link("file_link", `${t.outside}/secret.txt`);
  await t.link("dir_link", t.outside);
  await t.link("dangling", `${t.outside}/not_yet.txt`);
  await t.link("relative_link", "../outside/secret.txt");
  for (const p of ["file_link", "dir_link", "dir_link/new.txt", "dangling", "relative_link"]) {
    const r = await resolveInProject(t.project, p);
    assert.equal(r.ok, false, p);
    assert.match(!r.ok ? r.message : "", /leads outside the project .* through a symbolic link/, p);
  }
});

Deno.test("resolveInProject() follows links that stay inside, dangling ones too", async () => {
  await using t = await makeTempProject();
  await t.write("real/a.txt", "a");
  await t.link("alias", "real");
  await t.link("later", "real/b.txt");
  const alias = await resolveInProject(t.project, "alias/a.txt");
  assert.equal(alias.ok && alias.path, `${t.project}/real/a.txt`);
  const later = await resolveInProject(t.project, "later");
  assert.deepEqual(later, {
    ok: true,
    path: `${t.project}/real/b.txt`,
    relative: "real/b.txt",
    exists: false,
  });
});

Deno.test("resolveInProject() refuses NUL bytes, empty paths, loops and missing files", async () => {
  await using t = await makeTempProject();
  await t.link("loop", "loop");
  await t.write("f.txt", "x");
  const cases: [string, RegExp, { mustExist?: boolean; forWrite?: boolean }][] = [
    ["a\0b", /contains a NUL byte/, {}],
    ["  ", /Path is empty/, {}],
    ["loop", /too many levels of symbolic links/, {}],
    ["missing.txt", /does not exist: check the name with list_dir/, { mustExist: true }],
    [".", /is the project directory itself/, { forWrite: true }],
    ["f.txt/x", /goes through a file/, {}],
  ];
  for (const [p, re, opts] of cases) {
    const r = await resolveInProject(t.project, p, opts);
    assert.equal(r.ok, false, p);
    assert.match(!r.ok ? r.message : "", re, p);
  }
});
