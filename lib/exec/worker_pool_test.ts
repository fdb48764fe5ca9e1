import { deepStrictEqual as assertEquals, ok, rejects } from "node:assert/strict";
import { keyString, WorkerError, type WorkerKey, WorkerPool } from "./worker_pool.ts";
import {
  bashSpec,
  HAS_LANDLOCK,
  makeProject,
  skipBecause,
  testPool,
} from "../../tests/_helpers/exec.ts";
import { findProcesses, uniqueMarker } from "../../tests/_helpers/procs.ts";

const BASH: WorkerKey = { permissions: { run: ["bash"] } };

Deno.test("WorkerPool.runProcess() runs a process in a scoped Worker and reuses it", async () => {
  const pool = testPool();
  try {
    const a = await pool.runProcess(BASH, bashSpec("echo a"));
    const b = await pool.runProcess({ permissions: { run: ["bash"] } }, bashSpec("echo b"));
    assertEquals([a.stdout, b.stdout, pool.size], ["a\n", "b\n", 1]);
    await pool.runProcess({ permissions: { run: ["bash"], ffi: false } }, bashSpec("true"));
    assertEquals(pool.size, 2);
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool: a process-only key starts from the entry without built-in modules", async () => {
  const pool = new WorkerPool();
  try {
    const key: WorkerKey = { permissions: { run: ["bash"] }, modules: false };
    const r = await pool.runProcess(key, bashSpec("echo ran"));
    assertEquals(r.stdout, "ran\n");
    const m = await pool.runModule(key, "read_file", { path: "x" }, {});
    assertEquals(m.isError, true);
    ok(m.content.includes('Unknown built-in tool module "read_file"'), m.content);
    const full = await pool.runModule(
      { permissions: { read: ["/nonexistent-dir"] } },
      "read_file",
      {
        path: "x",
      },
      { projectDir: "/nonexistent-dir" },
    );
    ok(!full.content.includes("Unknown built-in tool module"), full.content);
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool.runProcess() reports a program outside the run permission", async () => {
  const pool = testPool();
  try {
    const r = await pool.runProcess({ permissions: { run: ["sh"] } }, bashSpec("true"));
    assertEquals(r.spawnError?.kind, "not-capable");
    ok(r.spawnError?.message.includes(`"run" permission`), r.spawnError?.message);
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool.runProcess() kills the whole process group from the parent", async () => {
  const pool = testPool();
  const marker = uniqueMarker("pool-timeout");
  try {
    const r = await pool.runProcess(
      BASH,
      bashSpec(`sleep 30 & bash -c 'sleep 31; : ${marker}' & wait`, { timeoutMs: 200 }),
    );
    assertEquals([r.timedOut, r.notes], [true, []]);
    assertEquals(findProcesses(marker), []);
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool.runProcess() stops a process when the call is aborted", async () => {
  const pool = testPool();
  try {
    const ac = new AbortController();
    const started = performance.now();
    const call = pool.runProcess(BASH, bashSpec("sleep 30"), { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    const r = await call;
    assertEquals([r.aborted, r.timedOut], [true, false]);
    ok(performance.now() - started < 5000);
    const early = await pool.runProcess(BASH, bashSpec("echo no"), { signal: ac.signal });
    assertEquals([early.aborted, early.stdout], [true, ""]);
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool.runProcess() gives each call a private TMPDIR and removes it", async () => {
  const pool = testPool();
  const tmp = await Deno.makeTempDir();
  try {
    const r = await pool.runProcess(BASH, bashSpec('echo "$TMPDIR"; touch "$TMPDIR/f"'), {
      tmpDir: tmp,
    });
    const dir = r.stdout.trim();
    ok(dir.startsWith(`${tmp}/call-`), dir);
    assertEquals([...Deno.readDirSync(tmp)], []);
  } finally {
    pool.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("WorkerPool.runProcess() names a missing interpreter from the parent", async () => {
  const pool = testPool();
  const dir = await Deno.makeTempDir();
  try {
    const tool = `${dir}/tool`;
    await Deno.writeTextFile(tool, "#!/nonexistent/python\n", { mode: 0o755 });
    const r = await pool.runProcess(
      { permissions: { run: [tool] } },
      bashSpec("", {
        program: tool,
        args: [],
      }),
    );
    ok(r.spawnError?.message.includes('"/nonexistent/python"'), r.spawnError?.message);
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("WorkerPool.runProcess() confines the child with Landlock, not the main thread", async () => {
  if (skipBecause(HAS_LANDLOCK ? undefined : "Landlock is not available")) return;
  const p = await makeProject();
  const pool = testPool();
  try {
    const key: WorkerKey = {
      permissions: { run: ["bash"], ffi: true },
      landlock: {
        read: ["/usr", "/lib", "/lib64", "/bin", p.data],
        write: ["/dev/null"],
        exec: ["/usr", "/lib", "/lib64", "/bin"],
        connectTcp: "any",
      },
    };
    const r = await pool.runProcess(key, bashSpec(`cat ${p.data}/in.txt; cat ${p.secret}`));
    assertEquals(r.stdout, "public data\n");
    ok(r.stderr.includes("Permission denied"), r.stderr);
    assertEquals(
      Deno.readTextFileSync(p.secret),
      "TOP-SECRET-OUTSIDE\n",
      "the main thread is free",
    );
  } finally {
    pool.close();
    await Deno.remove(p.root, { recursive: true });
  }
});

Deno.test("WorkerPool.runProcess() fails with a WorkerError when the Worker cannot confine itself", async () => {
  if (skipBecause(HAS_LANDLOCK ? undefined : "Landlock is not available")) return;
  const pool = testPool();
  try {
    const key: WorkerKey = {
      permissions: { run: ["bash"], ffi: false },
      landlock: { read: [], write: [], exec: [], connectTcp: [] },
    };
    await rejects(pool.runProcess(key, bashSpec("true")), (e: Error) => {
      ok(e instanceof WorkerError);
      ok(e.message.includes("--allow-ffi"), e.message);
      return true;
    });
    assertEquals(pool.size, 0);
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool.runModule() runs a module and reports its errors as results", async () => {
  const pool = testPool();
  const key: WorkerKey = { permissions: {} };
  try {
    assertEquals(await pool.runModule(key, "test:echo", { a: 1 }, {}), {
      content: '{"a":1}',
      isError: false,
    });
    const thrown = await pool.runModule(key, "test:throw", {}, {});
    assertEquals(thrown, { content: "RangeError: boom", isError: true });
    const unknown = await pool.runModule(key, "nope", {}, {});
    ok(unknown.isError && unknown.content.includes('"nope"'));
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool.runModule() confines a module with Deno permissions", async () => {
  const p = await makeProject();
  const pool = testPool();
  try {
    const key: WorkerKey = { permissions: { read: [p.data] } };
    const ok1 = await pool.runModule(key, "test:read", { path: `${p.data}/in.txt` }, {});
    assertEquals(ok1, { content: "public data\n", isError: false });
    const denied = await pool.runModule(key, "test:read", { path: p.secret }, {});
    assertEquals(denied.isError, true);
    ok(denied.content.includes(`add it to the tool's "read" permission`), denied.content);
    ok(!denied.content.includes("SECRET"));
    const env = await pool.runModule(key, "test:env", { name: "PATH" }, {});
    ok(env.isError && env.content.includes(`"env"`), env.content);
  } finally {
    pool.close();
    await Deno.remove(p.root, { recursive: true });
  }
});

Deno.test("WorkerPool.runModule() terminates a module that runs past its timeout", async () => {
  const pool = testPool();
  const key: WorkerKey = { permissions: { read: false } };
  try {
    const r = await pool.runModule(key, "test:spin", {}, {}, { timeoutMs: 100 });
    assertEquals(r, { content: "The tool timed out after 100 ms", isError: true });
    assertEquals(pool.size, 0, "a module that does not stop loses its Worker");
    assertEquals((await pool.runModule(key, "test:echo", 1, {})).content, "1");
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool.runModule() asks a module to stop and keeps its Worker when it does", async () => {
  const pool = testPool();
  try {
    const r = await pool.runModule({ permissions: {} }, "test:wait", {}, {}, { timeoutMs: 50 });
    assertEquals([r, pool.size], [{ content: "The tool timed out after 50 ms", isError: true }, 1]);
    const ac = new AbortController();
    const call = pool.runModule({ permissions: {} }, "test:wait", {}, { signal: "dropped" }, {
      signal: ac.signal,
    });
    ac.abort();
    assertEquals(await call, { content: "The tool call was cancelled", isError: true });
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool lets modules that spawn kill their process groups through the parent", async () => {
  const pool = testPool();
  const marker = uniqueMarker("module-spawn");
  try {
    const key: WorkerKey = { permissions: { run: ["bash"] } };
    const script = `sleep 30 & bash -c 'sleep 31; : ${marker}' & wait`;
    const r = await pool.runModule(key, "test:spawn", { script, timeoutMs: 150 }, {});
    assertEquals(JSON.parse(r.content), { timedOut: true, notes: [] });
    assertEquals(findProcesses(marker), []);
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool evicts the least recently used idle Worker", async () => {
  const pool = testPool({ maxWorkers: 1 });
  try {
    await pool.runModule({ permissions: { read: false } }, "test:echo", 1, {});
    await pool.runModule({ permissions: { write: false } }, "test:echo", 2, {});
    assertEquals(pool.size, 1);
  } finally {
    pool.close();
  }
});

Deno.test("WorkerPool.close() refuses later calls", async () => {
  const pool = testPool();
  pool.close();
  await rejects(pool.runModule({ permissions: {} }, "test:echo", 1, {}), WorkerError);
});

Deno.test("keyString() ignores key order", () => {
  const a = keyString({ permissions: { read: ["/a"], run: ["x"] }, netns: true });
  const b = keyString({ netns: true, permissions: { run: ["x"], read: ["/a"] } });
  assertEquals(a, b);
  ok(a !== keyString({ permissions: { read: ["/b"], run: ["x"] }, netns: true }));
});

Deno.test("WorkerPool names the flag harness lacks for a Worker permission", async () => {
  const script = new URL("../../tests/_helpers/no_ffi.ts", import.meta.url);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-run",
      "--no-prompt",
      "--unstable-worker-options",
      script.pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assertEquals(JSON.parse(text), {
    abi: 0,
    name: "WorkerPermissionError",
    flag: "--allow-ffi",
    message:
      `Cannot start a tool Worker: harness itself lacks the "ffi" permission the tool needs: run harness with --allow-ffi`,
  });
});

Deno.test("WorkerPool() serves the built-in tools from worker_main.ts", async () => {
  const pool = new WorkerPool();
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(`${dir}/a.txt`, "hello");
    const key: WorkerKey = { permissions: { read: [dir] } };
    const ctx = { projectDir: dir, options: {} };
    const r = await pool.runModule(key, "read_file", { path: "a.txt" }, ctx);
    assertEquals(r.isError, false);
    ok(r.content.includes("hello"), r.content);
    const unknown = await pool.runModule(key, "no_such_tool", {}, ctx);
    ok(unknown.isError && unknown.content.includes('"no_such_tool"'));
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});
