import assert from "node:assert/strict";
import * as upstream from "jsonc-parser";
import {
  type Node,
  type ParseError,
  type ParseOptions,
  parseTree,
  printParseErrorCode,
} from "./_jsonc.ts";

/** A node as plain data, checking on the way that every child points back at its parent. */
function plain(node: Node | upstream.Node | undefined): unknown {
  if (!node) return node;
  for (const child of node.children ?? []) assert.equal(child.parent, node);
  return {
    type: node.type,
    offset: node.offset,
    length: node.length,
    ...("value" in node ? { value: node.value } : {}),
    ...(node.colonOffset !== undefined ? { colonOffset: node.colonOffset } : {}),
    ...(node.children ? { children: node.children.map(plain) } : {}),
  };
}

const OPTION_SETS: ParseOptions[] = [
  {},
  { allowTrailingComma: true, disallowComments: false },
  { disallowComments: true, allowTrailingComma: false },
  { disallowComments: true, allowTrailingComma: false, allowEmptyContent: true },
];

function assertSame(text: string) {
  for (const options of OPTION_SETS) {
    const ours: ParseError[] = [];
    const theirs: upstream.ParseError[] = [];
    const tree = parseTree(text, ours, options);
    const expected = upstream.parseTree(text, theirs, options);
    assert.deepEqual(plain(tree), plain(expected), `tree of ${JSON.stringify(text)}`);
    assert.deepEqual(ours, theirs, `errors of ${JSON.stringify(text)}`);
    assert.equal(tree?.parent, undefined);
  }
}

Deno.test("parseTree() matches jsonc-parser on hand-picked documents", () => {
  for (
    const text of [
      "",
      " ",
      "{}",
      '{"a": 1, "b": [true, false, null], "c": {"d": "e\\n\\u00e9"}}',
      '{"a": 1,}',
      "[1, 2,]",
      '{"a"}',
      '{"a":}',
      '{"a": 1 "b": 2}',
      "[1 2]",
      "[,]",
      "{,}",
      '{"a": [}',
      '{"a": {]',
      "// c\n{/* d */}",
      "/* open",
      '"\\x"',
      '"\\u12"',
      '"a\tb"',
      '"line\nbreak"',
      '"open',
      "-",
      "-x",
      "1.",
      "1e",
      "1e+",
      "1e-5",
      "1.5E+3",
      "01",
      "tru",
      "true false",
      "/",
      "{}\r\n// end",
      "[1e400, -0, 0.5]",
      '{"__proto__": {"x": 1}}',
    ]
  ) assertSame(text);
});

Deno.test("parseTree() matches jsonc-parser on 5,000 mutated documents", () => {
  const seeds = [
    '{\n  // comment\n  "tools": {"a": [1, -2.5e3, true, null], "b": "x\\"y"},\n  /* block */ "n": {},\n}\n',
    '[{"name": "t", "argv": ["echo", "\\u0041"], "permissions": {"net": ["h:1"]}}]',
  ];
  const alphabet = '{}[]:,"\\/*-+.0123456789eEtrufalsn \n\r\tx\u00e9\u0000';
  let seed = 0x2545f491;
  const random = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  for (let i = 0; i < 5000; i++) {
    let text = seeds[random(seeds.length)];
    for (let edits = 1 + random(4); edits > 0; edits--) {
      const at = random(text.length + 1);
      const ch = alphabet[random(alphabet.length)];
      switch (random(3)) {
        case 0:
          text = text.slice(0, at) + ch + text.slice(at);
          break;
        case 1:
          text = text.slice(0, at) + text.slice(at + 1);
          break;
        default:
          text = text.slice(0, at) + ch + text.slice(at + 1);
      }
    }
    if (random(5) === 0) text = text.slice(0, random(text.length + 1));
    assertSame(text);
  }
});

Deno.test("printParseErrorCode() names every code as jsonc-parser does", () => {
  for (let code = 0; code <= 17; code++) {
    assert.equal(
      printParseErrorCode(code),
      upstream.printParseErrorCode(code as upstream.ParseErrorCode),
    );
  }
});
