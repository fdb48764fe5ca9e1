/**
 * Escape attempts by a subprocess tool run the way harness runs it: scope → plan →
 * scoped Worker (+ Landlock, + network namespace) → process. Each case asserts the
 * denial AND that nothing was read, written or sent. A case is skipped, with a
 * printed reason, only when this machine lacks the layer it tests.
 */
import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import dgram from "node:dgram";
import type { ResolvedScope } from "../lib/types.ts";
import { type MachineCaps, planConfinement, workerKeyFor, wrapSpec } from "../lib/exec/confine.ts";
import type { ProcessResult, ProcessSpec } from "../lib/exec/process.ts";
import {
  bashSpec,
  CAPS,
  HAS_LANDLOCK,
  HAS_LANDLOCK_NET,
  makeProject,
  type Project,
  skipBecause,
  testPool,
} from "./_helpers/exec.ts";

const NO_LANDLOCK = HAS_LANDLOCK ? undefined : "Landlock is not available on this machine";
/** Runs a bash script as a confined tool of `scope` in `project`, in a fresh pool. */
async function runConfined(
  project: Project,
  scope: Partial<ResolvedScope>,
  script: string,
  opts: { caps?: MachineCaps; spec?: Partial<ProcessSpec> } = {},
): Promise<ProcessResult> {
  const full: ResolvedScope = { read: [], write: [], net: [], env: [], run: [], ...scope };
  const plan = planConfinement(full, opts.caps ?? CAPS, "auto", "bash", project.proj);
  assertEquals(plan.refused, undefined);
  const spec = wrapSpec(bashSpec(script, { cwd: project.proj, ...opts.spec }), plan);
  const pool = testPool();
  try {
    return await pool.runProcess(workerKeyFor(full, plan, "bash"), spec);
  } finally {
    pool.close();
  }
}

/** Runs `body` with a fresh project and removes it afterwards. */
function withProject(body: (p: Project) => Promise<void>): () => Promise<void> {
  return async () => {
    const project = await makeProject();
    try {
      await body(project);
    } finally {
      await Deno.remove(project.root, { recursive: true });
    }
  };
}

/** A loopback HTTP server that counts the requests it sees. */
function countingServer(): { port: number; count: () => number; close: () => Promise<void> } {
  let seen = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    seen++;
    return new Response("reached\n");
  });
  return { port: server.addr.port, count: () => seen, close: () => server.shutdown() };
}

const httpGet = (port: number) =>
  `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;

Deno.test(
  "escape: a tool reads its read scope and nothing outside the project",
  withProject(async (project) => {
    if (skipBecause(NO_LANDLOCK)) return;
    const r = await runConfined(
      project,
      { read: [project.data] },
      `cat data/in.txt; cat ${project.secret}; cat ${project.siblingSecret}; cat ../sibling/secret.txt;
     ls ${project.root}; cp ${project.secret} data/copy; cat /etc/shadow; cat /root/.bashrc`,
    );
    assertEquals(r.stdout, "public data\n");
    ok(!`${r.stdout}${r.stderr}`.includes("TOP-SECRET"), "no secret may leak");
    assertEquals(r.stderr.match(/Permission denied/g)?.length, 7, r.stderr);
    assertEquals(await exists(`${project.data}/copy`), false);
  }),
);

Deno.test(
  "escape: a tool writes its write scope and nothing else",
  withProject(async (project) => {
    if (skipBecause(NO_LANDLOCK)) return;
    const targets = [
      `${project.data}/evil`,
      `${project.proj}/evil`,
      `${project.sibling}/evil`,
      `${project.root}/evil`,
      `/tmp/harness-escape-evil-${crypto.randomUUID()}`,
    ];
    const r = await runConfined(
      project,
      { read: [project.data], write: [project.out] },
      `echo ok > out/result.txt; ${targets.map((t) => `echo x > ${t}`).join("; ")};
     echo y >> ${project.secret}; rm -f ${project.siblingSecret}; mv data/in.txt out/;
     ln -s ${project.secret} out/link; cat out/link`,
    );
    assertEquals(await Deno.readTextFile(`${project.out}/result.txt`), "ok\n");
    for (const t of targets) assertEquals(await exists(t), false, `${t} must not exist`);
    assertEquals(await Deno.readTextFile(project.secret), "TOP-SECRET-OUTSIDE\n");
    assertEquals(await Deno.readTextFile(project.siblingSecret), "TOP-SECRET-SIBLING\n");
    assertEquals(await Deno.readTextFile(`${project.data}/in.txt`), "public data\n");
    ok(!r.stdout.includes("TOP-SECRET"), "a symlink must not leak the secret");
    ok((r.stderr.match(/Permission denied/g)?.length ?? 0) >= 8, r.stderr);
  }),
);

/** Each network namespace provider this machine has, with the caps that select it. */
function netnsVariants(): { name: string; caps: MachineCaps; missing?: string }[] {
  const user = { ...CAPS, netnsPrivileged: false };
  return [
    {
      name: "worker thread",
      caps: CAPS,
      missing: CAPS.netnsPrivileged && CAPS.ffi ? undefined : "needs CAP_SYS_ADMIN and --allow-ffi",
    },
    {
      name: "unshare",
      caps: user,
      missing: CAPS.unshare !== null && CAPS.userns
        ? undefined
        : "needs unshare and user namespaces",
    },
    {
      name: "bwrap (without Landlock)",
      caps: { ...user, unshare: null, landlockAbi: 0 },
      missing: CAPS.bwrap !== null && CAPS.userns ? undefined : "needs bwrap and user namespaces",
    },
  ];
}

for (const variant of netnsVariants()) {
  Deno.test(
    `escape: net [] sends nothing over TCP or UDP (${variant.name})`,
    withProject(async (project) => {
      if (skipBecause(variant.missing)) return;
      const plan = planConfinement(
        { read: [], write: [], net: [], env: [], run: [] },
        variant.caps,
        "auto",
        "bash",
        project.proj,
      );
      assertEquals(plan.netns, variant.name.split(" ")[0]);
      const server = countingServer();
      const udp = await udpReceiver();
      try {
        const control = await runConfined(
          project,
          { read: true, write: true, net: true },
          `${httpGet(server.port)}; echo hi > /dev/udp/127.0.0.1/${udp.port}`,
        );
        ok(control.stdout.includes("reached"), "control: an unconfined tool reaches the server");
        await udp.settle();
        assertEquals(
          [server.count(), udp.count()],
          [1, 1],
          "control: both servers saw the control",
        );
        const r = await runConfined(
          project,
          { read: [project.data] },
          `${httpGet(server.port)}; echo hi > /dev/udp/127.0.0.1/${udp.port}; echo end`,
          { caps: variant.caps },
        );
        assertEquals(r.stdout, "end\n");
        await udp.settle();
        assertEquals([server.count(), udp.count()], [1, 1], "the servers saw nothing more");
      } finally {
        await server.close();
        udp.close();
      }
    }),
  );
}

Deno.test(
  "escape: net [host:port] reaches that port and no other",
  withProject(async (project) => {
    if (skipBecause(HAS_LANDLOCK_NET ? undefined : "Landlock TCP rules need ABI 4 (Linux 6.7)")) {
      return;
    }
    const allowed = countingServer();
    const other = countingServer();
    try {
      const r = await runConfined(
        project,
        { net: [`127.0.0.1:${allowed.port}`] },
        `${httpGet(allowed.port)}; ${httpGet(other.port)}; echo end`,
      );
      ok(r.stdout.includes("reached"), r.stderr);
      ok(r.stdout.endsWith("end\n"));
      ok(r.stderr.includes("Permission denied"), r.stderr);
      assertEquals([allowed.count(), other.count()], [1, 0]);
    } finally {
      await allowed.close();
      await other.close();
    }
  }),
);

Deno.test(
  "escape: a tool gets exactly the environment of its spec",
  withProject(async (project) => {
    Deno.env.set("OPENAI_API_KEY", "sk-harness-test-secret");
    try {
      const env = { PATH: "/usr/bin:/bin", ALLOWED: "yes" };
      const r = await runConfined(project, { read: true, write: true, net: true }, "env", {
        spec: { env },
      });
      const names = r.stdout.trim().split("\n").map((line) => line.split("=")[0]);
      assertEquals(names.filter((n) => !["PWD", "SHLVL", "_"].includes(n)).sort(), [
        "ALLOWED",
        "PATH",
      ]);
      ok(!r.stdout.includes("sk-harness-test-secret"));
    } finally {
      Deno.env.delete("OPENAI_API_KEY");
    }
  }),
);

Deno.test(
  "escape: a confined tool cannot signal harness",
  withProject(async (project) => {
    if (skipBecause(HAS_LANDLOCK && CAPS.landlockAbi >= 6 ? undefined : "needs Landlock ABI 6")) {
      return;
    }
    const r = await runConfined(
      project,
      { read: [project.data] },
      `kill -0 ${Deno.pid} && echo reached`,
    );
    assertEquals(r.stdout, "");
    ok(r.stderr.includes("Operation not permitted"), r.stderr);
  }),
);

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** A loopback UDP socket that counts datagrams. */
async function udpReceiver(): Promise<
  { port: number; count: () => number; settle: () => Promise<void>; close: () => void }
> {
  const socket = dgram.createSocket("udp4");
  let seen = 0;
  socket.on("message", () => seen++);
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    port: (socket.address() as { port: number }).port,
    count: () => seen,
    // Loopback delivery is synchronous; one macrotask lets the "message" event run.
    settle: () => new Promise((resolve) => setTimeout(resolve, 20)),
    close: () => socket.close(),
  };
}
