import assert from "node:assert/strict";
import type { PermissionScope } from "../types.ts";
import {
  addPermissionEntry,
  checkPermissionValue,
  isPermissionKind,
  parsePermissionObject,
} from "./permissions.ts";

Deno.test("isPermissionKind() knows Deno's five kinds", () => {
  for (const k of ["read", "write", "net", "env", "run"]) assert.ok(isPermissionKind(k), k);
  for (const k of ["ffi", "sys", "Read", "", "nett"]) assert.ok(!isPermissionKind(k), k);
});

Deno.test("checkPermissionValue() accepts hosts, ports and IP addresses", () => {
  for (
    const v of [
      "api.github.com",
      "api.github.com:443",
      "localhost:8080",
      "127.0.0.1",
      "127.0.0.1:65535",
      "[::1]",
      "[::1]:8080",
      "my_host-1.internal",
    ]
  ) {
    assert.equal(checkPermissionValue("net", v), undefined, v);
  }
});

Deno.test("checkPermissionValue() rejects URLs, paths, bad ports and bad addresses", () => {
  const cases: [string, RegExp][] = [
    ["https://api.github.com", /is not a host/],
    ["api.github.com/x", /is not a host/],
    ["a b", /is not a host/],
    [":443", /has no host/],
    ["host:0", /invalid port "0"/],
    ["host:65536", /invalid port "65536"/],
    ["host:http", /invalid port "http"/],
    ["256.1.1.1", /invalid IPv4 address/],
    ["[::1", /unclosed IPv6 bracket/],
    ["[::1]x", /text after the IPv6 address/],
    ["[zz]", /invalid IPv6 address/],
    ["-bad-.com", /invalid host name/],
    ["a..b", /invalid host name/],
  ];
  for (const [value, why] of cases) {
    const message = checkPermissionValue("net", value);
    assert.ok(message, value);
    assert.match(message, why, value);
    assert.match(message, /write host or host:port/, value);
  }
});

Deno.test("checkPermissionValue() checks env names as variable names", () => {
  assert.equal(checkPermissionValue("env", "GITHUB_TOKEN"), undefined);
  assert.equal(checkPermissionValue("env", "_x1"), undefined);
  assert.match(
    checkPermissionValue("env", "1ABC")!,
    /env name "1ABC" is not a valid variable name/,
  );
  assert.match(checkPermissionValue("env", "A-B")!, /not a valid variable name/);
});

Deno.test("checkPermissionValue() refuses ~ paths, empty values and NUL bytes", () => {
  assert.equal(checkPermissionValue("read", "./data"), undefined);
  assert.equal(checkPermissionValue("write", "/tmp/out"), undefined);
  assert.match(checkPermissionValue("read", "~/x")!, /starts with "~", which is not expanded/);
  assert.match(checkPermissionValue("write", "  ")!, /empty write value: name a path/);
  assert.match(checkPermissionValue("read", "a\0b")!, /NUL byte/);
});

Deno.test("checkPermissionValue() refuses run values with surrounding white space", () => {
  assert.equal(checkPermissionValue("run", "git"), undefined);
  assert.equal(checkPermissionValue("run", "/usr/bin/git"), undefined);
  assert.match(checkPermissionValue("run", "git ")!, /leading or trailing white space/);
});

Deno.test("parsePermissionObject() returns the scope of a valid declaration", () => {
  const { scope, problems } = parsePermissionObject({
    read: ["./data", "./data"],
    net: ["api.github.com:443"],
    env: [],
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(scope, { read: ["./data"], net: ["api.github.com:443"], env: [] });
});

Deno.test("parsePermissionObject() keeps the valid part and locates each problem", () => {
  const { scope, problems } = parsePermissionObject({
    read: ["./ok", 3, "~/home"],
    net: "api.github.com",
    ffi: ["x"],
    env: ["GOOD", "1BAD"],
  });
  assert.deepEqual(scope, { read: ["./ok"], env: ["GOOD"] } satisfies PermissionScope);
  assert.deepEqual(problems.map((p) => p.path), [["read", 1], ["read", 2], ["net"], ["ffi"], [
    "env",
    1,
  ]]);
  assert.match(problems[0].message, /^permissions\.read\[1\] must be a string$/);
  assert.match(problems[1].message, /^permissions\.read\[2\]: read path "~\/home" starts with "~"/);
  assert.match(problems[2].message, /permissions\.net must be a list of strings, e\.g\. net: \[/);
  assert.match(problems[3].message, /unknown permission kind "ffi": expected one of "read", /);
});

Deno.test("parsePermissionObject() rejects a value that is not a mapping", () => {
  for (const raw of [null, "read ./x", ["read"], 3]) {
    const { scope, problems } = parsePermissionObject(raw);
    assert.equal(scope, undefined);
    assert.equal(problems.length, 1);
    assert.deepEqual(problems[0].path, []);
    assert.match(problems[0].message, /permissions must be a mapping of kind → list/);
  }
});

Deno.test("addPermissionEntry() adds valid entries once", () => {
  const scope: PermissionScope = {};
  assert.equal(addPermissionEntry(scope, "read", "./data"), undefined);
  assert.equal(addPermissionEntry(scope, "read", "./data"), undefined);
  assert.equal(addPermissionEntry(scope, "net", "api.github.com:443"), undefined);
  assert.deepEqual(scope, { read: ["./data"], net: ["api.github.com:443"] });
});

Deno.test("addPermissionEntry() reports unknown kinds and bad values without changing the scope", () => {
  const scope: PermissionScope = {};
  assert.match(
    addPermissionEntry(scope, "network", "x")!,
    /unknown permission kind "network".*as in "@allow read \.\/data"/,
  );
  assert.match(addPermissionEntry(scope, "net", "http://x")!, /is not a host/);
  assert.deepEqual(scope, {});
});
