import { deepStrictEqual as assertEquals, equal, ok } from "node:assert/strict";
import { parseDocument } from "yaml";
import { LineIndex, nodeAt, parseFrontmatterYaml, splitFrontmatter } from "./_frontmatter.ts";

Deno.test("splitFrontmatter() splits front matter, body and offsets", () => {
  const text = "---\nname: a\n---\n\n  echo hi  \n\n";
  assertEquals(splitFrontmatter(text), {
    yaml: "name: a",
    yamlOffset: 4,
    closeOffset: 12,
    body: "echo hi",
  });
});

Deno.test("splitFrontmatter() accepts an empty block", () => {
  assertEquals(splitFrontmatter("---\n---\necho hi"), {
    yaml: "",
    yamlOffset: 4,
    closeOffset: 4,
    body: "echo hi",
  });
});

Deno.test("splitFrontmatter() handles CRLF line endings", () => {
  const split = splitFrontmatter("---\r\nname: a\r\nx: 1\r\n---\r\necho a\r\necho b\r\n");
  equal(split?.yaml, "name: a\r\nx: 1");
  equal(split?.body, "echo a\r\necho b");
});

Deno.test("splitFrontmatter() closes at the first later line starting with ---", () => {
  const split = splitFrontmatter("---\nname: a\n----- not yaml\nb: 2\n---\necho\n");
  equal(split?.yaml, "name: a");
  equal(split?.body, "-- not yaml\nb: 2\n---\necho");
});

Deno.test("splitFrontmatter() keeps a --- line of the body in the body", () => {
  equal(splitFrontmatter("---\nname: a\n---\necho 1\n---\necho 2\n")?.body, "echo 1\n---\necho 2");
});

Deno.test("splitFrontmatter() finds no front matter after a BOM, a blank line or without a close", () => {
  equal(splitFrontmatter("\uFEFF---\nname: a\n---\necho"), undefined);
  equal(splitFrontmatter("\n---\nname: a\n---\necho"), undefined);
  equal(splitFrontmatter("---\nname: a\necho"), undefined);
  equal(splitFrontmatter("---yaml\nname: a\n---\necho"), undefined);
  equal(splitFrontmatter("echo hi"), undefined);
});

Deno.test("splitFrontmatter() skips blank lines after the opening marker", () => {
  const text = "---\n\n\nname: a\n---\necho";
  const split = splitFrontmatter(text)!;
  equal(split.yaml, "name: a");
  equal(text.slice(split.yamlOffset, split.yamlOffset + 4), "name");
});

Deno.test("parseFrontmatterYaml() reads YAML 1.2 core schema values", () => {
  const { value, errors } = parseFrontmatterYaml("a: yes\nb: no\nc: on\nd: true\ne: 0x10\nf: ~\n");
  assertEquals(errors, []);
  assertEquals(value, { a: "yes", b: "no", c: "on", d: true, e: 16, f: null });
});

Deno.test("parseFrontmatterYaml() treats blank front matter as an empty mapping", () => {
  assertEquals(parseFrontmatterYaml("  \n"), { value: {}, errors: [], warnings: [] });
});

Deno.test("parseFrontmatterYaml() rejects duplicate keys with their offset", () => {
  const { value, errors } = parseFrontmatterYaml("a: 1\nb: 2\na: 3\n");
  equal(value, undefined);
  assertEquals(errors, [{ detail: "Map keys must be unique", code: "DUPLICATE_KEY", offset: 10 }]);
});

Deno.test("parseFrontmatterYaml() rejects a top level that is not a mapping", () => {
  equal(
    parseFrontmatterYaml("- a\n- b\n").errors[0]?.detail,
    "the front matter is a list, not a mapping",
  );
  equal(
    parseFrontmatterYaml("just text\n").errors[0]?.detail,
    "the front matter is a string, not a mapping",
  );
  equal(parseFrontmatterYaml("# only a comment\n").errors[0]?.code, "NOT_A_MAPPING");
});

Deno.test("parseFrontmatterYaml() reports syntax errors and never throws", () => {
  const { errors } = parseFrontmatterYaml("a: [1\n");
  equal(errors.length, 1);
  ok(!errors[0]!.detail.includes("at line"), errors[0]!.detail);
  const bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n" +
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n";
  equal(parseFrontmatterYaml(bomb).errors[0]?.code, "CONVERSION");
  equal(
    parseFrontmatterYaml("a: &x [*x]\n").errors[0]?.detail,
    "Converting circular structure to JSON",
  );
});

Deno.test("parseFrontmatterYaml() passes library warnings on", () => {
  const { value, warnings } = parseFrontmatterYaml("a: !!foo bar\n");
  assertEquals(value, { a: "bar" });
  equal(warnings[0]?.code, "TAG_RESOLVE_FAILED");
  equal(warnings[0]?.offset, 3);
});

Deno.test("nodeAt() finds keys, values, list items and aliases", () => {
  const src = "a:\n  b: [x, y]\nc: &r {d: 1}\ne: *r\n";
  const doc = parseDocument(src);
  equal(nodeAt(doc, ["a", "b"], "key")?.range?.[0], src.indexOf("b:"));
  equal(nodeAt(doc, ["a", "b", 1])?.range?.[0], src.indexOf("y"));
  equal(nodeAt(doc, ["e", "d"])?.range?.[0], src.indexOf("1}"));
  equal(
    nodeAt(doc, ["a", "missing"])?.range?.[0],
    src.indexOf("b:"),
    "a missing step gives its parent",
  );
});

Deno.test("LineIndex.at() gives 1-based lines and columns", () => {
  const index = new LineIndex("ab\ncd\r\n\nx");
  assertEquals(index.at(0), { line: 1, column: 1 });
  assertEquals(index.at(4), { line: 2, column: 2 });
  assertEquals(index.at(7), { line: 3, column: 1 });
  assertEquals(index.at(8), { line: 4, column: 1 });
});
