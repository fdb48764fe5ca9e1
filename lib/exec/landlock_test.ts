import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import {
  buildRuleset,
  closeInheritedFdsOnExec,
  FS,
  fsRightsForAbi,
  hasCapSysAdmin,
  landlockAbi,
  type LandlockPolicy,
  NET,
  ruleAccess,
  SCOPE,
} from "./landlock.ts";

const policy = (p: Partial<LandlockPolicy> = {}): LandlockPolicy => ({
  read: [],
  write: [],
  exec: [],
  connectTcp: [],
  ...p,
});

Deno.test("fsRightsForAbi() adds REFER, TRUNCATE and IOCTL_DEV with the ABI", () => {
  assertEquals(fsRightsForAbi(1), (1n << 13n) - 1n);
  assertEquals(fsRightsForAbi(2) & FS.REFER, FS.REFER);
  assertEquals(fsRightsForAbi(2) & FS.TRUNCATE, 0n);
  assertEquals(fsRightsForAbi(3) & FS.TRUNCATE, FS.TRUNCATE);
  assertEquals(fsRightsForAbi(4) & FS.IOCTL_DEV, 0n);
  assertEquals(fsRightsForAbi(7), (1n << 16n) - 1n);
});

Deno.test("buildRuleset() gives read, write and exec rights and merges paths", () => {
  const r = buildRuleset(policy({ read: ["/a", "/b"], write: ["/b"], exec: ["/usr"] }), 7);
  const byPath = Object.fromEntries(r.paths.map((p) => [p.path, p.access]));
  assertEquals(byPath["/a"], FS.READ_FILE | FS.READ_DIR);
  ok((byPath["/b"] & FS.WRITE_FILE) !== 0n && (byPath["/b"] & FS.MAKE_REG) !== 0n);
  ok((byPath["/b"] & FS.EXECUTE) === 0n, "write does not imply execute");
  ok((byPath["/b"] & FS.MAKE_CHAR) === 0n && (byPath["/b"] & FS.MAKE_BLOCK) === 0n);
  assertEquals(byPath["/usr"], FS.READ_FILE | FS.READ_DIR | FS.EXECUTE);
  assertEquals(r.paths.length, 3);
});

Deno.test("buildRuleset() drops rights an old ABI does not know", () => {
  const r = buildRuleset(policy({ write: ["/w"] }), 1);
  assertEquals(r.paths[0].access & (FS.REFER | FS.TRUNCATE | FS.IOCTL_DEV), 0n);
  assertEquals(r.handledFs, (1n << 13n) - 1n);
});

Deno.test("buildRuleset() blocks TCP connects and binds for an empty port list", () => {
  const r = buildRuleset(policy({ connectTcp: [] }), 4);
  assertEquals([r.handledNet, r.ports, r.unenforced], [NET.BIND_TCP | NET.CONNECT_TCP, [], []]);
});

Deno.test("buildRuleset() allows listed ports, deduplicated and sorted", () => {
  const r = buildRuleset(policy({ connectTcp: [443, 80, 443] }), 6);
  assertEquals(r.ports, [80, 443]);
});

Deno.test("buildRuleset() leaves connects alone for any port but still denies binds", () => {
  const r = buildRuleset(policy({ connectTcp: "any" }), 4);
  assertEquals([r.handledNet, r.ports], [NET.BIND_TCP, []]);
});

Deno.test("buildRuleset() says TCP is unenforced before ABI 4", () => {
  const r = buildRuleset(policy({ connectTcp: [443] }), 3);
  assertEquals([r.handledNet, r.ports], [0n, []]);
  ok(r.unenforced[0].includes("ABI 3"), r.unenforced[0]);
  assertEquals(buildRuleset(policy({ connectTcp: "any" }), 3).unenforced, []);
});

Deno.test("buildRuleset() scopes signals and abstract sockets from ABI 6", () => {
  assertEquals(buildRuleset(policy(), 5).scoped, 0n);
  assertEquals(buildRuleset(policy(), 6).scoped, SCOPE.ABSTRACT_UNIX_SOCKET | SCOPE.SIGNAL);
});

Deno.test("ruleAccess() keeps only file rights on a file", () => {
  const rule = { path: "/f", access: FS.READ_FILE | FS.READ_DIR | FS.EXECUTE | FS.MAKE_REG };
  assertEquals(ruleAccess(rule, false), FS.READ_FILE | FS.EXECUTE);
  assertEquals(ruleAccess(rule, true), rule.access);
});

Deno.test("landlockAbi() never throws and is stable", () => {
  const abi = landlockAbi();
  ok(Number.isInteger(abi) && abi >= 0);
  assertEquals(landlockAbi(), abi);
  if (Deno.build.os !== "linux") assertEquals(abi, 0);
});

Deno.test("hasCapSysAdmin() agrees with CapEff in /proc/self/status", () => {
  if (Deno.build.os !== "linux") return;
  // The tests run with --allow-all, under which Deno lets /proc/self/status be read.
  const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(Deno.readTextFileSync("/proc/self/status"))![1];
  assertEquals(hasCapSysAdmin(), (BigInt(`0x${hex}`) & (1n << 21n)) !== 0n);
});

Deno.test("closeInheritedFdsOnExec() keeps an inherited fd from every child", async () => {
  if (Deno.build.os !== "linux") return;
  const libc = Deno.dlopen("libc.so.6", {
    open: { parameters: ["buffer", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
  });
  // An fd without close-on-exec, as harness may inherit one from whatever started it.
  const fd = libc.symbols.open(new TextEncoder().encode("/dev/null\0"), 0);
  const childFds = async () => {
    const out = await new Deno.Command("ls", { args: ["/proc/self/fd"] }).output();
    return new TextDecoder().decode(out.stdout).trim().split("\n").map(Number);
  };
  try {
    ok((await childFds()).includes(fd), "the fd is inherited before");
    assertEquals(closeInheritedFdsOnExec(), true);
    ok(!(await childFds()).includes(fd), "and not after");
    // The fd itself stays open in harness.
    ok(Deno.readLinkSync(`/proc/self/fd/${fd}`) === "/dev/null");
  } finally {
    libc.symbols.close(fd);
    libc.close();
  }
});
