import assert from "node:assert/strict";
import { dirname, resolvePath } from "./_path.ts";

Deno.test("resolvePath() resolves relative paths and normalizes . and ..", () => {
  assert.equal(resolvePath("/a/b", "c"), "/a/b/c");
  assert.equal(resolvePath("/a/b", "./c/../d"), "/a/b/d");
  assert.equal(resolvePath("/a/b", "../../../x"), "/x");
  assert.equal(resolvePath("/a/b", "/abs//y/"), "/abs/y");
});

Deno.test("dirname() returns the parent directory", () => {
  assert.equal(dirname("/a/b/c.jsonc"), "/a/b");
  assert.equal(dirname("/c.jsonc"), "/");
  assert.equal(dirname("c.jsonc"), ".");
});
