// Expected values were produced by Go 1.19 (path.Clean, %q, json.Unmarshal) on this machine.
import { deepStrictEqual, equal } from "node:assert/strict";
import {
  goClean,
  goDir,
  goFoldName,
  goJsonSyntaxError,
  goQuote,
  goToUpper,
  goTrimSpace,
} from "./_go.ts";

Deno.test("goClean() matches Go's path.Clean", () => {
  const cases: [string, string][] = [
    ["./tools/bin/../hack", "tools/hack"],
    ["./tools/bin/", "tools/bin"],
    ["./tools/bin", "tools/bin"],
    ["./tools/bin/../../x", "x"],
    ["tools/bin/x", "tools/bin/x"],
    ["./tools/bin/./a/../x", "tools/bin/x"],
    ["", "."],
    ["a//b/./c/..", "a/b"],
    ["/../x", "/x"],
    ["../../a", "../../a"],
    ["./..", ".."],
    ["a/../..", ".."],
    ["/", "/"],
    ["/a/..", "/"],
  ];
  for (const [input, output] of cases) equal(goClean(input), output, input);
});

Deno.test("goDir() matches Go's filepath.Dir", () => {
  equal(goDir("/p/sub/tools.json"), "/p/sub");
  equal(goDir("/tools.json"), "/");
  equal(goDir("tools.json"), ".");
});

Deno.test("goQuote() matches Go's %q", () => {
  const cases: [string, string][] = [
    [".\\tools\\x", '".\\\\tools\\\\x"'],
    ['a"b', '"a\\"b"'],
    ["tab\there", '"tab\\there"'],
    ["é", '"é"'],
    ["\u00a0", '"\\u00a0"'],
    ["\x7f", '"\\x7f"'],
    ["\u{1F600}", '"\u{1F600}"'],
    ["\u200b", '"\\u200b"'],
    ["\u0085", '"\\u0085"'],
  ];
  for (const [input, output] of cases) equal(goQuote(input), output, input);
});

Deno.test("goTrimSpace() and goToUpper() use Go's white space and simple case mapping", () => {
  equal(goTrimSpace("\u0085\u00a0 Path\t\n"), "Path");
  equal(goTrimSpace("\uFEFFx"), "\uFEFFx");
  equal(goToUpper("oai_api_key"), "OAI_API_KEY");
  equal(goToUpper("straße"), "STRAßE");
  equal(goToUpper("ıd"), "ID");
});

Deno.test("goFoldName() folds like encoding/json, including the Kelvin sign and long s", () => {
  equal(goFoldName("timeoutsec"), goFoldName("timeoutSec"));
  equal(goFoldName("\u017Fchema"), "SCHEMA");
  equal(goFoldName("\u212Aey"), "KEY");
});

Deno.test("goJsonSyntaxError() reports Go's first syntax error and where", () => {
  const cases: [string, string | undefined][] = [
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ['{"a":1 // x\n}', "invalid character '/' after object key:value pair"],
    ["", "unexpected end of JSON input"],
    ["   ", "unexpected end of JSON input"],
    ["[", "unexpected end of JSON input"],
    ["nul", "invalid character ' ' in literal null (expecting 'l')"],
    ["-", "invalid character ' ' in numeric literal"],
    ["1.", "invalid character ' ' after decimal point in numeric literal"],
    ["1e", "invalid character ' ' in exponent of numeric literal"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12', "invalid character ' ' in \\u hexadecimal character escape"],
    ['"\\u12x"', "invalid character 'x' in \\u hexadecimal character escape"],
    ['"abc', "unexpected end of JSON input"],
    ["01", "invalid character '1' after top-level value"],
    ["[01]", "invalid character '1' after array element"],
    ["\f{}", "invalid character '\\f' looking for beginning of value"],
    ["{}\u2028", "invalid character 'â' after top-level value"],
    ["é", "invalid character 'Ã' looking for beginning of value"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ["[1 2]", "invalid character '2' after array element"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ['{"a":[1,{"b":null}],"c":-0.5e+3}', undefined],
    [" null ", undefined],
  ];
  for (const [text, message] of cases) equal(goJsonSyntaxError(text)?.message, message, text);
  deepStrictEqual(goJsonSyntaxError('{\n  "a": 1,\n}'), {
    message: "invalid character '}' looking for beginning of object key string",
    offset: 12,
  });
  equal(goJsonSyntaxError("[".repeat(10_001))?.message, "invalid character '[' exceeded max depth");
  equal(goJsonSyntaxError("[".repeat(10_000))?.message, "unexpected end of JSON input");
});
