import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { BUSY } from "./_spawn.ts";
import { type FfiChild, ffiSpawnAvailable, type FfiStatus, spawnFfi } from "./_ffi_spawn.ts";
import type { ProcessSpec, SpawnError } from "./process.ts";

const PATH = "/usr/local/bin:/usr/bin:/bin";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function spec(program: string, args: string[], extra: Partial<ProcessSpec> = {}): ProcessSpec {
  return {
    program,
    args,
    cwd: "/",
    env: { PATH },
    stdin: "null",
    timeoutMs: 10_000,
    maxOutputBytes: 1 << 20,
    ...extra,
  };
}

function bash(script: string, extra: Partial<ProcessSpec> = {}): ProcessSpec {
  return spec("bash", ["-c", script], extra);
}

function started(r: FfiChild | SpawnError | typeof BUSY): FfiChild {
  if (r === BUSY || "kind" in r) throw new Error(`spawn failed: ${JSON.stringify(r)}`);
  return r;
}

function failed(r: FfiChild | SpawnError | typeof BUSY): SpawnError | typeof BUSY {
  if (r !== BUSY && !("kind" in r)) {
    r.kill("SIGKILL");
    throw new Error("spawn unexpectedly succeeded");
  }
  return r;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return decoder.decode(await new Response(stream).arrayBuffer());
}

interface Outcome extends FfiStatus {
  stdout: string;
  stderr: string;
}

/** Runs a spec to the end: writes its stdin bytes, reads both streams, waits. */
async function run(s: ProcessSpec): Promise<Outcome> {
  const child = started(spawnFfi(s));
  const writing = s.stdin === "null" ? Promise.resolve() : writeAll(child, s.stdin);
  const [stdout, stderr, status] = await Promise.all([
    readAll(child.stdout),
    readAll(child.stderr),
    child.status,
    writing,
  ]);
  return { stdout, stderr, ...status };
}

/** Writes and closes stdin; a child that does not read makes the write fail (EPIPE). */
async function writeAll(child: FfiChild, bytes: Uint8Array): Promise<"written" | "broken"> {
  const writer = child.stdin.getWriter();
  try {
    await writer.write(bytes);
    await writer.close();
    return "written";
  } catch {
    await writer.abort().catch(() => {});
    return "broken";
  }
}

/** This process's fds and what they are, for a failure message. */
function fdTargets(): string[] {
  return [...Deno.readDirSync("/proc/self/fd")].map((e) => {
    try {
      return `${e.name} -> ${Deno.readLinkSync(`/proc/self/fd/${e.name}`)}`;
    } catch {
      return `${e.name} -> ?`;
    }
  });
}

/** This process's fds without close-on-exec. */
function inheritableFds(): number[] {
  const O_CLOEXEC = 0o2000000;
  return [...Deno.readDirSync("/proc/self/fd")].map((e) => Number(e.name)).filter((fd) => {
    try {
      const info = Deno.readTextFileSync(`/proc/self/fdinfo/${fd}`);
      const flags = parseInt(/^flags:\s*([0-7]+)/m.exec(info)?.[1] ?? "0", 8);
      return (flags & O_CLOEXEC) === 0;
    } catch {
      return false; // The fd of the directory listing itself, closed by now.
    }
  });
}

/** Fields after the command name in /proc/<pid>/stat: state, ppid, pgrp, session, ... */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).trim().split(" ");
}

function isGone(pid: number): boolean {
  try {
    return statFields(Deno.readTextFileSync(`/proc/${pid}/stat`))[0] === "Z";
  } catch {
    return true;
  }
}

async function until(cond: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

/**
 * FFI spawning needs Linux 5.3+ (pidfd_open, not blocked by seccomp) and glibc 2.29+;
 * where it is missing, harness starts processes through setsid(1) and these tests are
 * ignored (process_test.ts covers that path).
 */
const AVAILABLE = ffiSpawnAvailable();

/** A test of spawnFfi(), ignored where FFI spawning is unavailable. */
function ffiTest(name: string, fn: () => void | Promise<void>): void {
  Deno.test({ name, ignore: !AVAILABLE, fn });
}

Deno.test("ffiSpawnAvailable() is true exactly on Linux 5.3+ with glibc", () => {
  if (Deno.build.os !== "linux") return assertEquals(AVAILABLE, false);
  const [major, minor] = Deno.osRelease().split(".").map(Number);
  const glibc = (() => {
    try {
      Deno.dlopen("libc.so.6", { gnu_get_libc_version: { parameters: [], result: "pointer" } })
        .close();
      return true;
    } catch {
      return false;
    }
  })();
  assertEquals(AVAILABLE, glibc && (major > 5 || (major === 5 && minor >= 3)));
});

ffiTest("spawnFfi() captures stdout, stderr and the exit code", async () => {
  const r = await run(bash("echo out; echo err >&2; exit 3"));
  assertEquals(r, { stdout: "out\n", stderr: "err\n", success: false, code: 3, signal: null });
  const ok0 = await run(spec("true", []));
  assertEquals([ok0.success, ok0.code, ok0.signal], [true, 0, null]);
});

ffiTest("spawnFfi() gives the child exactly the given environment", async () => {
  const r = await run(bash("env | sort", { env: { PATH, ONLY: "1", "UTF8": "é ü €" } }));
  const lines = r.stdout.trim().split("\n").filter((l) => !/^(PWD|SHLVL|_)=/.test(l));
  assertEquals(lines, ["ONLY=1", `PATH=${PATH}`, "UTF8=é ü €"]);
});

ffiTest("spawnFfi() passes argv as given, argv[0] being the program name", async () => {
  const r = await run(spec("cat", ["/proc/self/cmdline"]));
  assertEquals(r.stdout, "cat\0/proc/self/cmdline\0");
  const args = await run(spec("bash", ["-c", 'printf "%s|" "$0" "$@"', "x", "a b", "", "ü"]));
  assertEquals(args.stdout, "x|a b||ü|");
});

ffiTest("spawnFfi() runs in the given directory, relative programs too", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    assertEquals((await run(spec("pwd", [], { cwd: dir }))).stdout, `${dir}\n`);
    Deno.writeTextFileSync(`${dir}/hello.sh`, "#!/bin/sh\necho hello from $PWD\n", { mode: 0o755 });
    const r = await run(spec("./hello.sh", [], { cwd: dir }));
    assertEquals(r.stdout, `hello from ${dir}\n`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

ffiTest("spawnFfi() runs a script without #! under /bin/sh, as execvp does", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    Deno.writeTextFileSync(`${dir}/plain-script`, 'echo "$0|$1"\n', { mode: 0o755 });
    Deno.chmodSync(`${dir}/plain-script`, 0o755);
    const r = await run(spec("plain-script", ["one"], { env: { PATH: `${dir}:${PATH}` } }));
    assertEquals([r.stdout, r.code], [`${dir}/plain-script|one\n`, 0]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

ffiTest("spawnFfi() writes stdin and closes it", async () => {
  const r = await run(spec("wc", ["-c"], { stdin: encoder.encode("12345") }));
  assertEquals(r.stdout.trim(), "5");
  // More than a pipe holds: the write waits for the child to read (EAGAIN, then poll).
  const big = await run(spec("wc", ["-c"], { stdin: new Uint8Array(3 * 1024 * 1024 + 7) }));
  assertEquals(big.stdout.trim(), String(3 * 1024 * 1024 + 7));
});

ffiTest("spawnFfi() survives a child that exits without reading 256 KiB of stdin", async () => {
  const child = started(spawnFfi(bash("exit 0", { stdin: "null" })));
  await child.stdout.cancel();
  await child.stderr.cancel();
  await child.status;
  const s = bash("exit 0", { stdin: new Uint8Array(256 * 1024) });
  const c = started(spawnFfi(s));
  const [written, status] = await Promise.all([
    writeAll(c, s.stdin as Uint8Array),
    c.status,
    readAll(c.stdout),
    readAll(c.stderr),
  ]);
  assertEquals([written, status.code], ["broken", 0]);
});

ffiTest("spawnFfi() stdin abort() ends a write stuck on a child that does not read", async () => {
  const child = started(spawnFfi(spec("sleep", ["30"], { stdin: new Uint8Array() })));
  const drained = Promise.all([readAll(child.stdout), readAll(child.stderr)]);
  try {
    const writer = child.stdin.getWriter();
    const writing = writer.write(new Uint8Array(1 << 20)).then(() => "written", () => "failed");
    await new Promise((r) => setTimeout(r, 50));
    const t = performance.now();
    await writer.abort();
    assertEquals(await writing, "failed");
    ok(performance.now() - t < 1000);
  } finally {
    child.kill("SIGKILL");
    await Promise.all([drained, child.status]);
  }
});

ffiTest("spawnFfi() gives /dev/null as stdin for stdin: null", async () => {
  const r = await run(spec("readlink", ["/proc/self/fd/0"]));
  assertEquals(r.stdout, "/dev/null\n");
  const child = started(spawnFfi(spec("true", [])));
  let threw = false;
  try {
    child.stdin;
  } catch (err) {
    threw = err instanceof TypeError;
  }
  ok(threw, "stdin of a child without a stdin pipe throws a TypeError");
  await Promise.all([readAll(child.stdout), readAll(child.stderr), child.status]);
});

ffiTest("spawnFfi() passes no other file descriptor to the child", async () => {
  // Another child's pipes are open in the harness meanwhile, and an fd without
  // close-on-exec (as harness may inherit from whatever started it): none may leak.
  const libc = Deno.dlopen("libc.so.6", {
    open: { parameters: ["buffer", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
    gnu_get_libc_version: { parameters: [], result: "pointer" },
  });
  const inherited = libc.symbols.open(new TextEncoder().encode("/dev/null\0"), 0);
  const version = Deno.UnsafePointerView.getCString(libc.symbols.gnu_get_libc_version()!);
  const [major, minor] = version.split(".").map(Number);
  const closesInherited = major > 2 || (major === 2 && minor >= 34);
  const other = started(spawnFfi(spec("sleep", ["30"], { stdin: new Uint8Array() })));
  try {
    ok(inheritableFds().includes(inherited));
    const r = await run(spec("ls", ["/proc/self/fd"]));
    // 3 is the directory ls is listing. Before glibc 2.34 (no closefrom) inherited fds
    // pass on, as they do with Deno.Command.
    const expected = closesInherited
      ? [0, 1, 2, 3]
      : [0, 1, 2, 3, ...inheritableFds().filter((fd) => fd > 3)];
    const got = r.stdout.trim().split("\n").map(Number);
    assertEquals(got.sort((a, b) => a - b), expected.sort((a, b) => a - b));
  } finally {
    libc.symbols.close(inherited);
    libc.close();
    other.kill("SIGKILL");
    await other.stdin.close();
    await Promise.all([readAll(other.stdout), readAll(other.stderr), other.status]);
  }
});

ffiTest("spawnFfi() makes the child a session and process group leader", async () => {
  const child = started(spawnFfi(bash("cat /proc/$$/stat")));
  const [out, , status] = await Promise.all([
    readAll(child.stdout),
    readAll(child.stderr),
    child.status,
  ]);
  assertEquals(status.code, 0);
  const [, , pgrp, session] = statFields(out);
  assertEquals([Number(pgrp), Number(session)], [child.pid, child.pid]);
});

ffiTest("spawnFfi() restores SIGPIPE and every other signal to default, unblocked", async () => {
  const r = await run(spec("grep", ["-E", "^Sig(Ign|Blk):", "/proc/self/status"]));
  const masks = Object.fromEntries(
    r.stdout.trim().split("\n").map((l) => l.split(":").map((s) => s.trim())),
  );
  const SIGPIPE_BIT = 1n << 12n;
  assertEquals(BigInt(`0x${masks.SigIgn}`) & SIGPIPE_BIT, 0n);
  assertEquals(BigInt(`0x${masks.SigBlk}`), 0n);
  const t = performance.now();
  const yes = await run(bash("yes | head -1"));
  assertEquals([yes.stdout, yes.stderr, yes.code], ["y\n", "", 0]);
  ok(performance.now() - t < 5000);
});

ffiTest("spawnFfi() child.kill() reports the signal like Deno does", async () => {
  const child = started(spawnFfi(spec("sleep", ["30"])));
  const drained = Promise.all([readAll(child.stdout), readAll(child.stderr)]);
  child.kill();
  assertEquals(await child.status, { success: false, code: 143, signal: "SIGTERM" });
  await drained;
  child.kill("SIGKILL"); // Reaped: nothing happens, nothing is thrown.
  let threw = false;
  try {
    child.kill("SIGBREAK");
  } catch (err) {
    threw = err instanceof TypeError;
  }
  ok(threw, "a signal Linux does not have is a TypeError");
  const aborted = await run(bash("kill -ABRT $$"));
  assertEquals([aborted.code, aborted.signal], [134, "SIGABRT"]);
});

ffiTest("spawnFfi() child's whole process group dies with Deno.kill(-pid)", async () => {
  const child = started(spawnFfi(bash("sleep 30 & echo $!; wait")));
  const reader = child.stdout.getReader();
  const first = await reader.read();
  const grandchild = Number(decoder.decode(first.value).trim());
  ok(grandchild > 0 && !isGone(grandchild), "the grandchild runs");
  Deno.kill(-child.pid, "SIGKILL");
  assertEquals(await child.status, { success: false, code: 137, signal: "SIGKILL" });
  ok(await until(() => isGone(grandchild)), "the grandchild is gone");
  assertEquals((await reader.read()).done, true);
  await readAll(child.stderr);
});

ffiTest("spawnFfi() reports a program that is not found", () => {
  const bare = failed(spawnFfi(spec("no-such-program-ffi", [])));
  assertEquals(bare !== BUSY && bare.kind, "not-found");
  ok(bare !== BUSY && bare.message.includes(`PATH "${PATH}"`));
  const abs = failed(spawnFfi(spec("/no/such/program", [])));
  assertEquals(abs !== BUSY && abs.kind, "not-found");
  const noPath = failed(spawnFfi(spec("bash", [], { env: {} })));
  assertEquals(noPath !== BUSY && noPath.kind, "not-found");
});

ffiTest("spawnFfi() reports a missing #! interpreter", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/script`;
    Deno.writeTextFileSync(script, "#!/no/such/interpreter\n", { mode: 0o755 });
    const r = failed(spawnFfi(spec(script, [])));
    ok(r !== BUSY && r.kind === "not-found" && r.message.includes("/no/such/interpreter"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

ffiTest("spawnFfi() reports a program that is not executable", async () => {
  const dir = await Deno.makeTempDir();
  try {
    Deno.writeTextFileSync(`${dir}/plain`, "echo hi\n", { mode: 0o644 });
    Deno.chmodSync(`${dir}/plain`, 0o644);
    const abs = failed(spawnFfi(spec(`${dir}/plain`, [])));
    assertEquals(abs !== BUSY && abs.kind, "permission-denied");
    // A PATH lookup skips files that are not executable, as Deno's does.
    const bare = failed(spawnFfi(spec("plain", [], { env: { PATH: dir } })));
    assertEquals(bare !== BUSY && bare.kind, "not-found");
    const directory = failed(spawnFfi(spec(dir, [])));
    assertEquals(directory !== BUSY && directory.kind, "permission-denied");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

ffiTest("spawnFfi() returns BUSY for a program still open for writing", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/busy.sh`;
  const f = Deno.openSync(file, { write: true, create: true, mode: 0o755 });
  try {
    f.writeSync(encoder.encode("#!/bin/sh\necho ok\n"));
    Deno.chmodSync(file, 0o755);
    assertEquals(spawnFfi(spec(file, [])), BUSY);
    f.close();
    assertEquals((await run(spec(file, []))).stdout, "ok\n");
  } finally {
    try {
      f.close();
    } catch {
      // Closed above.
    }
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "spawnFfi() refuses a program outside the run permission",
  ignore: !AVAILABLE,
  permissions: { ffi: true, run: ["/usr/bin/true"], read: true, env: true },
  async fn() {
    const r = failed(spawnFfi(spec("bash", ["-c", "echo escaped"])));
    assertEquals(r !== BUSY && r.kind, "not-capable");
    const allowed = await run(spec("/usr/bin/true", []));
    assertEquals(allowed.code, 0);
  },
});

ffiTest(
  "spawnFfi() cancelling a reader held open by an escaped grandchild returns promptly",
  async () => {
    // The grandchild leaves the session (so the group kill misses it) and keeps both pipes.
    const child = started(spawnFfi(bash("setsid sleep 30 & echo $!")));
    const reader = child.stdout.getReader({ mode: "byob" });
    const first = await reader.read(new Uint8Array(64));
    const escaped = Number(decoder.decode(first.value).trim());
    try {
      assertEquals((await child.status).code, 0);
      const pending = reader.read(new Uint8Array(64));
      const t = performance.now();
      await Promise.all([reader.cancel(), child.stderr.cancel()]);
      const took = performance.now() - t;
      assertEquals((await pending).done, true);
      ok(took < 1000, `cancel took ${took} ms`);
    } finally {
      Deno.kill(escaped, "SIGKILL");
    }
  },
);

ffiTest("spawnFfi() streams 50 MB through a BYOB reader in bounded memory", async () => {
  const total = 50_000_000;
  const child = started(spawnFfi(spec("head", ["-c", String(total), "/dev/zero"])));
  const reader = child.stdout.getReader({ mode: "byob" });
  const rssBefore = Deno.memoryUsage().rss;
  let rssMax = rssBefore;
  let buf = new ArrayBuffer(65536);
  let seen = 0;
  let reads = 0;
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(buf));
    if (done || value === undefined) break;
    seen += value.byteLength;
    buf = value.buffer as ArrayBuffer;
    if (++reads % 64 === 0) rssMax = Math.max(rssMax, Deno.memoryUsage().rss);
  }
  const [status] = await Promise.all([child.status, readAll(child.stderr)]);
  assertEquals([seen, status.code], [total, 0]);
  ok(rssMax - rssBefore < 32 * 1024 * 1024, `RSS grew by ${rssMax - rssBefore} bytes`);
});

ffiTest("spawnFfi() runs many children at once", async () => {
  const results = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) =>
        run(spec("bash", ["-c", `read x; echo "$x:${i}"; echo e${i} >&2`], {
          stdin: encoder.encode(`in${i}\n`),
        })),
    ),
  );
  results.forEach((r, i) =>
    assertEquals([r.stdout, r.stderr, r.code], [`in${i}:${i}\n`, `e${i}\n`, 0])
  );
});

ffiTest("spawnFfi() leaks no file descriptor over 150 spawns", async () => {
  const dir = await Deno.makeTempDir();
  try {
    Deno.writeTextFileSync(`${dir}/plain`, "", { mode: 0o644 });
    Deno.chmodSync(`${dir}/plain`, 0o644);
    const one = async (i: number) => {
      switch (i % 6) {
        case 0:
          return await run(bash("cat; echo err >&2", { stdin: encoder.encode("data") }));
        case 1:
          return await run(bash("exit 1"));
        case 2:
          return failed(spawnFfi(spec("no-such-program-ffi", [])));
        case 3:
          return failed(spawnFfi(spec(`${dir}/plain`, [], { stdin: encoder.encode("x") })));
        case 4:
          return await run(bash("exit 0", { stdin: new Uint8Array(200_000) }));
        default: {
          // Nothing read until the child is gone: the pipes and the exit are all ready.
          const child = started(spawnFfi(bash("echo out; echo err >&2")));
          await new Promise((r) => setTimeout(r, 30));
          return await Promise.all([readAll(child.stdout), readAll(child.stderr), child.status]);
        }
      }
    };
    // Warm up: the thread pool and libc open what they keep open once.
    await run(bash("echo warm", { stdin: encoder.encode("x") }));
    const before = fdTargets();
    // One at a time, then several at once, so that events arrive in many orders.
    for (let i = 0; i < 48; i++) await one(i);
    for (let i = 0; i < 52; i += 4) await Promise.all([one(i), one(i + 1), one(i + 2), one(i + 3)]);
    // With every CPU busy, a child may even exit before spawnFfi() returns.
    const cpus = navigator.hardwareConcurrency;
    const busy = Array.from({ length: cpus }, () => started(spawnFfi(bash("while :; do :; done"))));
    try {
      for (let i = 0; i < 48; i++) await one(i);
    } finally {
      for (const b of busy) b.kill("SIGKILL");
      await Promise.all(busy.map((b) => Promise.all([readAll(b.stdout), readAll(b.stderr)])));
      await Promise.all(busy.map((b) => b.status));
    }
    assertEquals(fdTargets(), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

ffiTest(
  "spawnFfi() on a Landlocked Worker thread gives the child that thread's domain",
  async () => {
    const { landlockAbi } = await import("./landlock.ts");
    if (landlockAbi() === 0) return; // No Landlock here: nothing to inherit.
    const dir = await Deno.realPath(await Deno.makeTempDir());
    const worker = `${dir}/worker.js`;
    Deno.writeTextFileSync(`${dir}/secret`, "secret\n");
    Deno.writeTextFileSync(
      worker,
      `import { restrictSelf } from ${JSON.stringify(import.meta.resolve("./landlock.ts"))};
import { spawnFfi } from ${JSON.stringify(import.meta.resolve("./_ffi_spawn.ts"))};
self.onmessage = async (e) => {
  const system = ["/usr", "/bin", "/lib", "/lib64"];
  restrictSelf({ read: ["/dev/null"], write: [], exec: system, connectTcp: "any" });
  const child = spawnFfi({ program: "cat", args: [e.data], cwd: "/", env: { PATH: "/usr/bin:/bin" },
    stdin: "null", timeoutMs: 0, maxOutputBytes: 0 });
  if (typeof child === "symbol" || "kind" in child) return self.postMessage(String(child));
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(), new Response(child.stderr).text(), child.status]);
  self.postMessage({ stdout, stderr, code: status.code });
};
`,
    );
    const w = new Worker(`file://${worker}`, { type: "module" });
    try {
      const reply = new Promise<{ stdout: string; stderr: string; code: number }>((resolve) =>
        w.onmessage = (e) => resolve(e.data)
      );
      w.postMessage(`${dir}/secret`);
      const r = await reply;
      assertEquals([r.stdout, r.code], ["", 1]);
      ok(r.stderr.includes("Permission denied"), r.stderr);
      // The main thread is not confined: the same read works here.
      assertEquals((await run(spec("cat", [`${dir}/secret`]))).stdout, "secret\n");
    } finally {
      w.terminate();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
