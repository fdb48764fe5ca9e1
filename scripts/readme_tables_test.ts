import assert from "node:assert/strict";
import { renderReadme } from "./readme_tables.ts";

Deno.test("renderReadme() leaves the committed README unchanged (run `deno task readme`)", async () => {
  const text = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  assert.equal(renderReadme(text), text);
});

Deno.test("renderReadme() rewrites only the marked sections", () => {
  const text = "a\n<!-- generated:codes -->\nSTALE-TABLE-CONTENT\n<!-- /generated:codes -->\nb\n" +
    "<!-- generated:builtins -->\n<!-- /generated:builtins -->\nc\n";
  const out = renderReadme(text);
  assert.ok(out.startsWith("a\n<!-- generated:codes -->\n| code |"));
  assert.ok(out.includes("\n<!-- /generated:codes -->\nb\n"));
  assert.ok(out.endsWith("<!-- /generated:builtins -->\nc\n"));
  assert.ok(!out.includes("STALE-TABLE-CONTENT"));
});
