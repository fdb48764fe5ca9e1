import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import type { ResolvedScope } from "../types.ts";
import {
  type MachineCaps,
  NET_READ_PATHS,
  planConfinement,
  portOf,
  probeMachine,
  resolveProgram,
  SYSTEM_READ_PATHS,
  workerKeyFor,
  wrapSpec,
} from "./confine.ts";

const FULL: MachineCaps = {
  os: "linux",
  landlockAbi: 7,
  ffi: true,
  bwrap: "/usr/bin/bwrap",
  unshare: "/usr/bin/unshare",
  userns: true,
  netnsPrivileged: true,
};
const USER: MachineCaps = { ...FULL, netnsPrivileged: false };
const BARE: MachineCaps = {
  ...FULL,
  bwrap: null,
  unshare: null,
  userns: false,
  netnsPrivileged: false,
};
const NO_LL: MachineCaps = { ...FULL, landlockAbi: 0 };

const scope = (s: Partial<ResolvedScope> = {}): ResolvedScope => ({
  read: ["/proj/data"],
  write: ["/proj/out"],
  net: [],
  env: ["HOME"],
  run: [],
  ...s,
});

Deno.test("planConfinement() leaves a built-in module to Deno alone", () => {
  const p = planConfinement(scope(), FULL, "strict", null, "/proj");
  assertEquals([p.landlock, p.netns, p.refused, p.wrapper], [
    undefined,
    "none",
    undefined,
    undefined,
  ]);
  ok(p.layers.every((l) => l.enforcedBy.join() === "deno"));
  assertEquals(p.layers.find((l) => l.kind === "net")?.entry, "(none)");
});

Deno.test("planConfinement() confines files with Landlock and cuts the network in the Worker", () => {
  const p = planConfinement(scope(), FULL, "strict", "/usr/bin/bash", "/proj");
  assertEquals([p.netns, p.refused, p.wrapper], ["worker", undefined, undefined]);
  assertEquals(p.landlock?.read, [...SYSTEM_READ_PATHS, "/proj/data"]);
  assertEquals(p.landlock?.write, ["/dev/null", "/proj/out"]);
  assertEquals(p.landlock?.connectTcp, []);
  ok(p.landlock?.exec.includes("/usr/bin/bash"));
  const net = p.layers.find((l) => l.kind === "net");
  assertEquals(net?.enforcedBy, ["landlock", "netns"]);
  const read = p.layers.find((l) => l.entry === "/proj/data");
  assertEquals([read?.enforcedBy, read?.note], [["landlock"], "does not exist"]);
  assertEquals(p.layers.find((l) => l.kind === "env")?.enforcedBy, ["harness"]);
});

Deno.test("planConfinement() allows the port of a host:port and says the host is not checked", () => {
  const p = planConfinement(scope({ net: ["api.github.com:443"] }), FULL, "strict", "bash", "/p");
  assertEquals([p.landlock?.connectTcp, p.netns], [[443], "none"]);
  const net = p.layers.find((l) => l.kind === "net");
  ok(net?.note?.includes("not the host"), net?.note);
  ok(NET_READ_PATHS.every((path) => p.landlock?.read.includes(path)));
});

Deno.test("planConfinement() allows any port for a host without one", () => {
  const p = planConfinement(
    scope({ net: ["a.example:443", "b.example"] }),
    FULL,
    "strict",
    "bash",
    "/p",
  );
  assertEquals(p.landlock?.connectTcp, "any");
});

Deno.test("planConfinement() leaves the network alone for net: true", () => {
  const p = planConfinement(scope({ net: true }), FULL, "strict", "bash", "/p");
  assertEquals([p.landlock?.connectTcp, p.netns], ["any", "none"]);
});

Deno.test("planConfinement() needs no Landlock when the scope is unrestricted", () => {
  const s = scope({ read: true, write: true, net: true });
  const p = planConfinement(s, FULL, "strict", "bash", "/p");
  assertEquals([p.landlock, p.refused], [undefined, undefined]);
});

Deno.test("planConfinement() reads everything for read: true but still limits writes", () => {
  const p = planConfinement(scope({ read: true }), FULL, "strict", "bash", "/p");
  assertEquals([p.landlock?.read, p.landlock?.write], [["/"], ["/dev/null", "/proj/out"]]);
});

Deno.test("planConfinement() wraps the spawn in unshare without privileges", () => {
  const p = planConfinement(scope(), USER, "strict", "bash", "/p");
  assertEquals(p.netns, "unshare");
  assertEquals(p.wrapper, { program: "/usr/bin/unshare", args: ["--user", "--net", "--"] });
  ok(p.landlock?.exec.includes("/usr/bin/unshare"));
});

Deno.test("planConfinement() uses bwrap only when Landlock is not in use", () => {
  const caps = { ...NO_LL, unshare: null, netnsPrivileged: false };
  const p = planConfinement(scope(), caps, "auto", "bash", "/p");
  assertEquals([p.netns, p.wrapper?.program], ["bwrap", "/usr/bin/bwrap"]);
  const withLl = planConfinement(scope(), { ...caps, landlockAbi: 7 }, "auto", "bash", "/p");
  assertEquals(withLl.netns, "none");
});

Deno.test("planConfinement() warns in auto mode and refuses in strict mode without a namespace", () => {
  const auto = planConfinement(scope(), BARE, "auto", "bash", "/p");
  assertEquals([auto.netns, auto.refused, auto.landlock?.connectTcp], ["none", undefined, []]);
  ok(auto.layers.find((l) => l.kind === "net")?.note?.includes("UDP and DNS are not"));
  const strict = planConfinement(scope(), BARE, "strict", "bash", "/p");
  ok(strict.refused?.includes("net scope"), strict.refused);
  ok(strict.refused?.includes("unshare"), strict.refused);
});

Deno.test("planConfinement() names the fix when Landlock is missing", () => {
  const noFfi = { ...BARE, ffi: false, landlockAbi: 0 };
  const auto = planConfinement(scope({ net: true }), noFfi, "auto", "bash", "/p");
  assertEquals([auto.landlock, auto.refused], [undefined, undefined]);
  const read = auto.layers.find((l) => l.entry === "/proj/data");
  assertEquals(read?.enforcedBy, []);
  const strict = planConfinement(scope({ net: true }), noFfi, "strict", "bash", "/p");
  ok(strict.refused?.includes("--allow-ffi"), strict.refused);
  const old = planConfinement(scope({ net: true }), NO_LL, "strict", "bash", "/p");
  ok(old.refused?.includes("Linux 5.13"), old.refused);
  const mac = planConfinement(
    scope({ net: true }),
    { ...NO_LL, os: "darwin" },
    "strict",
    "x",
    "/p",
  );
  ok(mac.refused?.includes("needs Linux"), mac.refused);
});

Deno.test("planConfinement() refuses TCP ports in strict mode before Landlock ABI 4", () => {
  const caps = { ...FULL, landlockAbi: 3 };
  const strict = planConfinement(scope({ net: ["h:443"] }), caps, "strict", "bash", "/p");
  ok(strict.refused?.includes("Linux 6.7"), strict.refused);
  const auto = planConfinement(scope({ net: ["h:443"] }), caps, "auto", "bash", "/p");
  assertEquals(auto.refused, undefined);
  assertEquals(auto.layers.find((l) => l.kind === "net")?.enforcedBy, []);
});

Deno.test("planConfinement() grants the private temp dir", () => {
  const p = planConfinement(scope(), FULL, "strict", "bash", "/p", { tmpDir: "/t/harness-1" });
  ok(p.landlock?.write.includes("/t/harness-1"));
  ok(p.layers.some((l) => l.entry === "/t/harness-1" && l.note?.includes("TMPDIR")));
});

Deno.test("planConfinement() lets a script's interpreter and run entries execute", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/tool`, "#!/usr/bin/env bash\necho\n", { mode: 0o755 });
  const p = planConfinement(
    scope({ run: ["git-nope-xyz", "bash"] }),
    FULL,
    "auto",
    `${dir}/tool`,
    dir,
  );
  const bash = resolveProgram("bash", "/usr/bin:/bin");
  ok(p.landlock?.exec.includes(`${dir}/tool`));
  ok(bash !== undefined && p.landlock?.exec.includes(bash));
  assertEquals(p.layers.find((l) => l.entry === "git-nope-xyz")?.note, "not found in PATH");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("workerKeyFor() gives a subprocess Worker only run and ffi", () => {
  const s = scope();
  const plan = planConfinement(s, USER, "auto", "bash", "/p");
  const key = workerKeyFor(s, plan, "bash");
  assertEquals(key.permissions, {
    read: false,
    write: false,
    net: false,
    env: false,
    sys: false,
    run: ["bash", "/usr/bin/unshare"],
    ffi: true,
  });
  assertEquals([key.landlock, key.netns, key.modules], [plan.landlock, undefined, false]);
  assertEquals(workerKeyFor(s, planConfinement(s, FULL, "auto", "bash", "/p"), "bash").netns, true);
});

Deno.test("workerKeyFor() gives a module Worker the scope and no FFI", () => {
  const s = scope({ net: ["h:1"] });
  const key = workerKeyFor(s, planConfinement(s, FULL, "auto", null, "/p"), null);
  assertEquals(key.permissions, {
    read: ["/proj/data"],
    write: ["/proj/out"],
    net: ["h:1"],
    env: ["HOME"],
    run: [],
    ffi: false,
    sys: false,
  });
});

Deno.test("wrapSpec() puts the wrapper in front of the program", () => {
  const spec = {
    program: "bash",
    args: ["-c", "x"],
    cwd: "/",
    env: {},
    stdin: "null" as const,
    timeoutMs: 1,
    maxOutputBytes: 1,
  };
  const plan = planConfinement(scope(), USER, "auto", "bash", "/p");
  const w = wrapSpec(spec, plan);
  assertEquals([w.program, w.args], ["/usr/bin/unshare", [
    "--user",
    "--net",
    "--",
    "bash",
    "-c",
    "x",
  ]]);
  assertEquals(wrapSpec(spec, planConfinement(scope(), FULL, "auto", "bash", "/p")), spec);
});

Deno.test("portOf() reads the port of host:port and [v6]:port", () => {
  assertEquals(portOf("api.github.com:443"), 443);
  assertEquals(portOf("[::1]:8080"), 8080);
  assertEquals(portOf("api.github.com"), undefined);
  assertEquals(portOf("[::1]"), undefined);
});

Deno.test("resolveProgram() finds names through PATH and checks absolute paths", () => {
  const bash = resolveProgram("bash", "relative:/nonexistent:/usr/bin:/bin");
  ok(bash?.endsWith("/bash"));
  assertEquals(resolveProgram("no-such-program-xyz", "/usr/bin"), undefined);
  assertEquals(resolveProgram("/nonexistent/x", "/usr/bin"), undefined);
});

Deno.test("probeMachine() is cached", async () => {
  const a = await probeMachine();
  assertEquals(await probeMachine(), a);
  assertEquals(a.os, Deno.build.os);
  ok(a.landlockAbi >= 0);
});
