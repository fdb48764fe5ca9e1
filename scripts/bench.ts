/**
 * `deno task bench`: every benchmark of the project in one table, each figure next to
 * its target and the ratio to its baseline measured in the same run (an empty
 * `deno run`, a bare spawn, a bare fetch loop), so a regression shows at a glance.
 * `deno task bench --write` also writes the table to `docs/benchmarks.md`.
 *
 * Figures are medians; this is a noisy 2-core VM, so expect ±30%.
 *
 * @module
 */
import { PERMISSION_FLAGS } from "./grant.ts";
import { generateProject } from "./_gen_project.ts";
import { benchExec } from "./bench_exec.ts";
import { benchSse } from "./bench_sse.ts";
import { sseResponse, sseText, sseToolCalls } from "../tests/_helpers/sse.ts";
import { runCli } from "../lib/cli/main.ts";
import { fakeIo } from "../tests/_helpers/cli.ts";

/** One row of the report. */
export interface Row {
  name: string;
  value: number;
  unit: "ms" | "MB" | "MB/s";
  /** The target, as `< N` (or `> N` for throughput). */
  target: number;
  /**
   * A target relative to the baseline measured in the same run (`value / baseline
   * <= maxRatio`). When set, it decides `met`: the absolute target was set on another
   * machine and is shown for reference.
   */
  maxRatio?: number;
  higherIsBetter?: boolean;
  baseline?: { name: string; value: number };
}

const ROOT = new URL("../", import.meta.url).pathname;
const DENO = Deno.execPath();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timeCommand(args: string[], n: number, cwd = ROOT): Promise<number> {
  return (await timeCommands([args], n, cwd))[0];
}

/**
 * Median wall time of each command, run in turns (a, b, a, b, …) so that load from
 * elsewhere on the machine hits all of them alike. Two warm-up rounds.
 */
async function timeCommands(commands: string[][], n: number, cwd = ROOT): Promise<number[]> {
  const times: number[][] = commands.map(() => []);
  for (let i = 0; i < n + 2; i++) {
    for (const [k, args] of commands.entries()) {
      const t = performance.now();
      const out = await new Deno.Command(DENO, { args, cwd, stdout: "null", stderr: "piped" })
        .output();
      const ms = performance.now() - t;
      if (!out.success && out.code !== 1) {
        throw new Error(`deno ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
      }
      if (i >= 2) times[k].push(ms);
    }
  }
  return times.map(median);
}

const harness = (...args: string[]) => ["run", ...PERMISSION_FLAGS, `${ROOT}main.ts`, ...args];

async function startup(empty: number): Promise<Row[]> {
  const version = await timeCommand(harness("--version"), 20);
  return [{
    name: "harness --version",
    value: version,
    unit: "ms",
    target: 50,
    baseline: { name: "empty deno run", value: empty },
  }];
}

async function validate(empty: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [n, target, runs] of [[10, 150, 15], [1000, 500, 7]] as const) {
    const dir = await Deno.makeTempDir({ prefix: `harness-bench-${n}-` });
    await Deno.mkdir(`${dir}/.git`);
    await generateProject(dir, n);
    const ms = await timeCommand(harness("-C", dir, "tools", "validate"), runs);
    rows.push({
      name: `tools validate, ${n} tools`,
      value: ms,
      unit: "ms",
      target,
      baseline: { name: "empty deno run", value: empty },
    });
    await Deno.remove(dir, { recursive: true });
  }
  return rows;
}

async function execRows(): Promise<Row[]> {
  const rows = await benchExec();
  return rows.map((r) => {
    const first = /first/i.test(r.name);
    return {
      name: first ? `tool Worker: ${r.name}` : `Worker + Landlock overhead: ${r.name}`,
      value: first ? r.ms : Math.max(0, r.ms - r.baselineMs),
      unit: "ms" as const,
      target: first ? 25 : 1,
      baseline: { name: r.baselineName ?? "bare Deno.Command spawn", value: r.baselineMs },
    };
  });
}

/**
 * The whole call path (argument validation, scope, confinement plan, Worker, Landlock,
 * the Octomind convention) against a bare `Deno.Command` spawn of the same script:
 * medians of 200 interleaved calls.
 */
export async function fullCallPath(): Promise<Row[]> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness-bench-call-" }));
  await Deno.mkdir(`${dir}/.git`);
  await Deno.mkdir(`${dir}/.agents/tools`, { recursive: true });
  const script = `${dir}/.agents/tools/echo_len`;
  await Deno.writeTextFile(
    script,
    `#!/bin/bash\n# @description Echo the length of the input.\n# @param *path string A path\n# @allow read .\ninput=$(cat); printf '{"ok":true,"len":%d}' "\${#input}"\n`,
  );
  await Deno.chmod(script, 0o755);
  await Deno.writeTextFile(
    `${dir}/harness.jsonc`,
    '{ "tools": { "personal": false, "builtins": {} } }',
  );
  const { loadConfig } = await import("../lib/config/load.ts");
  const { ToolRegistry, projectSources } = await import("../lib/tools/registry.ts");
  const { CallPath } = await import("../lib/exec/call.ts");
  const { WorkerPool } = await import("../lib/exec/worker_pool.ts");
  const { probeMachine } = await import("../lib/exec/confine.ts");
  const getEnv = (n: string) => Deno.env.get(n);
  const config = await loadConfig({ projectDir: dir, getEnv });
  const snapshot = await new ToolRegistry(config, projectSources(config, getEnv)).refresh();
  const pool = new WorkerPool();
  const calls = new CallPath({
    config,
    lookup: (n) => snapshot.byName.get(n),
    names: () => [...snapshot.byName.keys()],
    approve: () => Promise.resolve({ approved: true, by: "user", reason: "bench" }),
    pool,
    caps: await probeMachine(),
    env: Deno.env.toObject(),
  });
  const args = '{"path":"src/main.ts","pattern":"TODO"}';
  const bare = () =>
    new Deno.Command(script, {
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      cwd: dir,
      // The environment the Octomind convention gives the tool (it inherits).
      env: { ...Deno.env.toObject(), OCTOMIND_TOOL_NAME: "echo_len", OCTOMIND_WORKDIR: dir },
      clearEnv: true,
    }).spawn();
  const runBare = async () => {
    const child = bare();
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(args));
    await w.close();
    await child.output();
  };
  const full: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < 210; i++) {
    let t = performance.now();
    const r = await calls.call({ name: "echo_len", rawArguments: args });
    if (!r.ok) throw new Error(`bench call failed: ${r.content}`);
    const a = performance.now() - t;
    t = performance.now();
    await runBare();
    const b = performance.now() - t;
    if (i >= 10) {
      full.push(a);
      base.push(b);
    }
  }
  pool.close();
  await Deno.remove(dir, { recursive: true });
  const f = median(full);
  const b = median(base);
  return [{
    name: "full call path overhead (validate, scope, plan, Worker, Landlock)",
    value: Math.max(0, f - b),
    unit: "ms",
    target: 1,
    baseline: { name: "bare Deno.Command spawn", value: b },
  }];
}

/** A fake OpenAI server for the loop rows: `turns` tool-call turns, then an answer. */
function loopServer(tool: string, turns: number, argsFor: (i: number) => unknown) {
  let count = 0;
  const gaps: number[] = [];
  let lastEnd = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const arrived = performance.now();
    if (lastEnd > 0) gaps.push(arrived - lastEnd);
    await req.body?.cancel();
    const i = count++;
    const body = i < turns
      ? sseToolCalls(`r${i}`, [{ id: `call_${i}`, name: tool, args: argsFor(i) }])
      : sseText(`r${i}`, "done");
    lastEnd = performance.now();
    if (i >= turns) count = 0;
    return sseResponse(body);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    gaps,
    reset() {
      count = 0;
      lastEnd = 0;
      gaps.length = 0;
    },
    close: () => server.shutdown(),
  };
}

async function loopProject(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "harness-bench-loop-" });
  await Deno.mkdir(`${dir}/.git`);
  await Deno.mkdir(`${dir}/tools/bin`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/tools/bin/now`,
    '#!/bin/sh\necho \'{"utc":"2026-01-01T00:00:00Z"}\'\n',
  );
  await Deno.chmod(`${dir}/tools/bin/now`, 0o755);
  await Deno.writeTextFile(
    `${dir}/tools.json`,
    JSON.stringify({
      tools: [{
        name: "now",
        description: "time",
        schema: { type: "object", properties: {} },
        command: ["./tools/bin/now"],
      }],
    }),
  );
  await Deno.writeTextFile(
    `${dir}/harness.jsonc`,
    JSON.stringify({
      tools: { personal: false, builtins: { stat_file: true }, defaults: { approval: "never" } },
    }),
  );
  for (let i = 0; i < 100; i++) await Deno.writeTextFile(`${dir}/f${i}.txt`, `${i}\n`);
  return dir;
}

async function rssOf(args: string[]): Promise<number | undefined> {
  try {
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-f", "%M", DENO, ...args],
      stdout: "null",
      stderr: "piped",
    }).output();
    const kb = Number(new TextDecoder().decode(out.stderr).trim().split("\n").at(-1));
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined; // no /usr/bin/time here
  }
}

async function loop(): Promise<Row[]> {
  const dir = await loopProject();
  const server = loopServer("now", 1, () => ({}));
  const runArgs = harness(
    "-C",
    dir,
    "run",
    "--base-url",
    server.url,
    "--model",
    "m",
    "--approval",
    "yolo",
    "go",
  );
  const minimalArgs = [
    "run",
    "-A",
    `${ROOT}scripts/_minimal_loop.ts`,
    server.url,
    `${dir}/tools/bin/now`,
  ];
  const [oneShot, minimal] = await timeCommands([runArgs, minimalArgs], 20);
  const rss = await rssOf(runArgs);
  const minimalRss = await rssOf(minimalArgs);
  await server.close();

  // harness's own time per turn: from the end of one response to the next request.
  const turns = loopServer("stat_file", 100, (i) => ({ path: `f${i}.txt` }));
  const quiet = fakeIo({ cwd: dir }).io;

  const code = await runCli([
    "-C",
    dir,
    "run",
    "--base-url",
    turns.url,
    "--model",
    "m",
    "--approval",
    "yolo",
    "--max-turns",
    "200",
    "go",
  ], quiet);
  if (code !== 0) throw new Error(`the 100-turn run exited ${code}`);
  const perTurn = median(turns.gaps);
  await turns.close();
  await Deno.remove(dir, { recursive: true });

  const rows: Row[] = [
    {
      name: "one-shot run (start → tool → answer → exit)",
      value: oneShot,
      unit: "ms",
      target: 100,
      // The issue: "under 100 ms, i.e. within 3× of the minimal loop measured in the same run".
      maxRatio: 3,
      baseline: { name: "minimal Deno loop", value: minimal },
    },
    { name: "harness time per turn (server time excluded)", value: perTurn, unit: "ms", target: 2 },
  ];
  if (rss !== undefined) {
    rows.push({
      name: "one-shot run peak RSS",
      value: rss,
      unit: "MB",
      target: 80,
      ...(minimalRss ? { baseline: { name: "minimal Deno loop", value: minimalRss } } : {}),
    });
  }
  return rows;
}

async function sse(): Promise<Row[]> {
  const r = await benchSse(50);
  return [{
    name: "SSE parsing, 50 MB stream",
    value: r.mbPerSec,
    unit: "MB/s",
    target: 50,
    higherIsBetter: true,
  }];
}

function fmt(v: number, unit: Row["unit"]): string {
  return `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)} ${unit}`;
}

/** Renders the rows as a Markdown table. */
export function table(rows: Row[]): string {
  const lines = [
    "| benchmark | result | target | baseline | ratio | met |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    const base = r.baseline ? `${r.baseline.name}: ${fmt(r.baseline.value, r.unit)}` : "–";
    const ratioOf = r.baseline && r.baseline.value > 0 ? r.value / r.baseline.value : undefined;
    const ratio = ratioOf === undefined ? "–" : `${ratioOf.toFixed(2)}×`;
    const absolute = r.higherIsBetter ? r.value > r.target : r.value < r.target;
    const target = `${r.higherIsBetter ? ">" : "<"} ${r.target} ${r.unit}`;
    let met = absolute ? "yes" : "**no**";
    let shown = target;
    if (r.maxRatio !== undefined) {
      shown = `≤ ${r.maxRatio}× baseline (${target} on the issue's machine)`;
      const byRatio = ratioOf !== undefined && ratioOf <= r.maxRatio;
      met = `${byRatio ? "yes" : "**no**"} (absolute: ${absolute ? "yes" : "no"})`;
    }
    lines.push(`| ${r.name} | ${fmt(r.value, r.unit)} | ${shown} | ${base} | ${ratio} | ${met} |`);
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const empty = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(empty, "");
  const emptyMs = await timeCommand(["run", empty], 20);
  const rows: Row[] = [];
  for (
    const part of [
      () => startup(emptyMs),
      () => validate(emptyMs),
      execRows,
      fullCallPath,
      loop,
      sse,
    ]
  ) {
    rows.push(...await part());
    console.error(`… ${rows.length} rows`);
  }
  const out = table(rows);
  console.log(out);
  if (Deno.args.includes("--write")) {
    const machine =
      `${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} CPUs, Deno ${Deno.version.deno}, kernel ${Deno.osRelease()}`;
    await Deno.mkdir(`${ROOT}docs`, { recursive: true });
    const file = `${ROOT}docs/benchmarks.md`;
    // Keep the hand-written analysis that follows the table.
    const previous = await Deno.readTextFile(file).catch(() => "");
    const notes = previous.includes("\n## Notes")
      ? previous.slice(previous.indexOf("\n## Notes"))
      : "";
    await Deno.writeTextFile(
      file,
      `# Benchmarks\n\nMeasured with \`deno task bench\` on ${
        new Date().toISOString().slice(0, 10)
      }, ${machine}.\nMedians; the machine is a noisy 2-core VM, so expect ±30%.\n\n${out}\n${notes}`,
    );
    console.error("wrote docs/benchmarks.md");
  }
}
