/**
 * Plans how a tool call is confined on this machine: the Landlock policy of its
 * Worker, a network namespace for `net: []`, the Worker's Deno permissions, and a
 * report of which layer enforces each permission entry (`harness tools show`).
 *
 * @module
 */
import type { ResolvedScope } from "../types.ts";
import type { LandlockPolicy } from "./landlock.ts";
import type { WorkerKey } from "./protocol.ts";
import type { ProcessSpec } from "./process.ts";
import { readShebang } from "./process.ts";
import { DEFAULT_PATH, type MachineCaps, resolveProgram } from "./machine.ts";

import {
  NET_READ_PATHS,
  SYSTEM_EXEC_PATHS,
  SYSTEM_READ_PATHS,
  SYSTEM_WRITE_PATHS,
} from "./system_paths.ts";

export { DEFAULT_PATH, type MachineCaps, probeMachine, resolveProgram } from "./machine.ts";
export {
  NET_READ_PATHS,
  SYSTEM_EXEC_PATHS,
  SYSTEM_READ_PATHS,
  SYSTEM_WRITE_PATHS,
} from "./system_paths.ts";

/** Which layer enforces one permission entry on this machine. */
export interface LayerReport {
  kind: "read" | "write" | "net" | "env" | "run";
  /** The scope entry, `*` for unrestricted, or a parenthesized group such as `(system paths)`. */
  entry: string;
  /** Empty when nothing enforces it on this machine. */
  enforcedBy: ("deno" | "landlock" | "netns" | "harness")[];
  note?: string;
}

/** How one tool call is confined. */
export interface Confinement {
  /** The Landlock policy of the tool's Worker; absent when Landlock is not used. */
  landlock?: LandlockPolicy;
  /**
   * The network namespace for `net: []`: `worker` moves the Worker thread into a new
   * namespace (no per-call cost), `unshare`/`bwrap` wrap each spawn.
   */
  netns: "none" | "worker" | "unshare" | "bwrap";
  /** A program that wraps the tool program (its args come before the tool's argv). */
  wrapper?: { program: string; args: string[] };
  layers: LayerReport[];
  /** Set in strict mode when a needed layer is missing: the reason and the fix. */
  refused?: string;
}

/** Options of {@linkcode planConfinement}. */
export interface PlanOptions {
  /** A private directory (mode 0700) the tool may write, passed to it as TMPDIR. */
  tmpDir?: string;
  /** PATH used to resolve program names. @default the PATH of {@linkcode DEFAULT_PATH} */
  path?: string;
}

const BWRAP_NET_ARGS = [
  "--unshare-net",
  "--bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--die-with-parent",
  "--",
];

/**
 * Plans the confinement of one tool.
 *
 * For a built-in TypeScript tool (`program` null) Deno enforces the whole scope. For
 * a subprocess tool Deno only limits which program the Worker starts; Landlock
 * confines what it reads, writes, executes and connects to (by TCP port: the kernel
 * does not see host names), and `net: []` adds a network namespace because Landlock
 * does not cover UDP. Where a layer is missing, `auto` proceeds and says so in the
 * layer notes; `strict` sets `refused`.
 *
 * @param scope The resolved scope (absolute paths).
 * @param caps What the machine offers ({@linkcode probeMachine}).
 * @param mode `auto` or `strict`.
 * @param program The tool's program (absolute, or a name resolved through PATH), or null for a built-in module.
 * @param projectDir The project directory (informational in notes).
 * @param opts Temp dir and PATH.
 * @returns The plan.
 */
export function planConfinement(
  scope: ResolvedScope,
  caps: MachineCaps,
  mode: "auto" | "strict",
  program: string | null,
  projectDir: string,
  opts: PlanOptions = {},
): Confinement {
  if (program === null) return planModule(scope);
  const layers: LayerReport[] = [];
  const missing: string[] = [];
  const llReason = landlockMissing(caps);
  const useLandlock = llReason === undefined &&
    (scope.read !== true || scope.write !== true || scope.net !== true);
  const fsBy: LayerReport["enforcedBy"] = useLandlock ? ["landlock"] : [];
  const unenforced = llReason === undefined ? "" : `not enforced: ${llReason}`;
  const searchPath = opts.path ?? DEFAULT_PATH;

  // Filesystem.
  const fsNote = (path: string) => exists(path) ? (unenforced || undefined) : "does not exist";
  for (const kind of ["read", "write"] as const) {
    const list = scope[kind];
    if (list === true) {
      layers.push({ kind, entry: "*", enforcedBy: [], note: "unrestricted" });
      continue;
    }
    if (llReason !== undefined) missing.push(`${kind} scope`);
    for (const path of list) {
      layers.push(compact({ kind, entry: path, enforcedBy: fsBy, note: fsNote(path) }));
    }
  }
  if (opts.tmpDir !== undefined) {
    layers.push(compact({
      kind: "write",
      entry: opts.tmpDir,
      enforcedBy: fsBy,
      note: `private temp dir, passed as TMPDIR${unenforced ? `; ${unenforced}` : ""}`,
    }));
  }
  layers.push(compact({
    kind: "read",
    entry: "(system paths)",
    enforcedBy: fsBy,
    note: useLandlock
      ? `readable so programs can start: ${SYSTEM_READ_PATHS.join(", ")}; writable: /dev/null`
      : unenforced || undefined,
  }));

  // Network.
  const net = planNet(scope, caps, useLandlock, llReason);
  layers.push(...net.layers);
  missing.push(...net.missing);

  // Programs.
  const resolved = resolveProgram(program, searchPath) ?? program;
  const exec = new Set<string>([...SYSTEM_EXEC_PATHS, resolved]);
  const interpreter = interpreterOf(resolved, searchPath);
  if (interpreter !== undefined) exec.add(interpreter);
  if (net.wrapper !== undefined) exec.add(net.wrapper.program);
  layers.push({
    kind: "run",
    entry: program,
    enforcedBy: useLandlock ? ["deno", "landlock"] : ["deno"],
    note: "the Worker may start only this program; it may in turn start programs under " +
      SYSTEM_EXEC_PATHS.join(", ") + " and the tool's run entries",
  });
  for (const extra of scope.run) {
    if (extra === program) continue; // reported above as the tool's own program
    const path = resolveProgram(extra, searchPath);
    if (path !== undefined) exec.add(path);
    layers.push(compact({
      kind: "run",
      entry: extra,
      enforcedBy: useLandlock ? ["landlock"] : [],
      note: path === undefined ? "not found in PATH" : unenforced || undefined,
    }));
  }

  // Environment.
  for (const name of scope.env === true ? ["*"] : scope.env) {
    layers.push({
      kind: "env",
      entry: name,
      enforcedBy: ["harness"],
      note: "the tool's environment is built from the allowed names only",
    });
  }

  const plan: Confinement = { netns: net.netns, layers };
  if (net.wrapper !== undefined) plan.wrapper = net.wrapper;
  if (useLandlock) {
    const netAllowed = scope.net === true || scope.net.length > 0;
    plan.landlock = {
      read: scope.read === true
        ? ["/"]
        : [...SYSTEM_READ_PATHS, ...(netAllowed ? NET_READ_PATHS : []), ...scope.read],
      write: scope.write === true
        ? ["/"]
        : [...SYSTEM_WRITE_PATHS, ...scope.write, ...(opts.tmpDir ? [opts.tmpDir] : [])],
      exec: [...exec],
      connectTcp: net.connectTcp,
    };
  }
  if (mode === "strict" && missing.length > 0) {
    plan.refused = `Cannot confine "${program}" strictly in "${projectDir}": ` +
      `${[...new Set(missing)].join(", ")} not enforceable: ${
        [llReason, net.reason].filter(Boolean).join("; ")
      }`;
  }
  return plan;
}

function planModule(scope: ResolvedScope): Confinement {
  const layers: LayerReport[] = [];
  for (const kind of ["read", "write", "net", "env", "run"] as const) {
    const list = scope[kind];
    const entries = list === true ? ["*"] : list.length === 0 ? ["(none)"] : list;
    for (const entry of entries) layers.push({ kind, entry, enforcedBy: ["deno"] });
  }
  return { netns: "none", layers };
}

interface NetPlan {
  connectTcp: number[] | "any";
  netns: Confinement["netns"];
  wrapper?: { program: string; args: string[] };
  layers: LayerReport[];
  missing: string[];
  reason?: string;
}

function planNet(
  scope: ResolvedScope,
  caps: MachineCaps,
  useLandlock: boolean,
  llReason: string | undefined,
): NetPlan {
  if (scope.net === true) {
    return {
      connectTcp: "any",
      netns: "none",
      layers: [{ kind: "net", entry: "*", enforcedBy: [], note: "unrestricted" }],
      missing: [],
    };
  }
  const tcpBy: LayerReport["enforcedBy"] = useLandlock && caps.landlockAbi >= 4 ? ["landlock"] : [];
  const tcpMissing = llReason ??
    (caps.landlockAbi < 4
      ? `Landlock ABI ${caps.landlockAbi} has no TCP rules: run on Linux 6.7 or later`
      : undefined);
  if (scope.net.length > 0) {
    const ports = scope.net.map(portOf);
    const connectTcp = ports.includes(undefined) ? "any" : ports as number[];
    const layers = scope.net.map((entry, i): LayerReport => {
      const port = ports[i];
      const note = tcpMissing !== undefined
        ? `not enforced: ${tcpMissing}`
        : port === undefined
        ? "no port given: every TCP port is allowed; the kernel checks ports, not hosts"
        : `TCP port ${port} to any host: the kernel checks the port, not the host`;
      return { kind: "net", entry, enforcedBy: port === undefined ? [] : tcpBy, note };
    });
    const plan: NetPlan = { connectTcp, netns: "none", layers, missing: [] };
    if (tcpMissing !== undefined && connectTcp !== "any") {
      plan.missing.push("net scope");
      plan.reason = tcpMissing;
    }
    return plan;
  }
  // net: [] — no TCP through Landlock, and no network at all through a namespace.
  const ns = pickNetns(caps, useLandlock);
  const enforcedBy: LayerReport["enforcedBy"] = [
    ...tcpBy,
    ...(ns.netns === "none" ? [] : ["netns" as const]),
  ];
  const plan: NetPlan = { connectTcp: [], netns: ns.netns, layers: [], missing: [] };
  if (ns.wrapper !== undefined) plan.wrapper = ns.wrapper;
  let note = ns.netns === "none"
    ? `no network namespace available (install util-linux unshare or bubblewrap, or allow user namespaces): ${
      tcpBy.length > 0 ? "only TCP is blocked, UDP and DNS are not" : "nothing is blocked"
    }`
    : `no network: ${
      ns.netns === "worker" ? "the Worker thread's own" : `a per-call (${ns.netns})`
    } network namespace`;
  if (tcpMissing !== undefined && ns.netns !== "none") note += `; TCP rules ${tcpMissing}`;
  plan.layers.push({ kind: "net", entry: "(none)", enforcedBy, note });
  if (ns.netns === "none") {
    plan.missing.push("net scope");
    plan.reason =
      "no network namespace: install util-linux unshare or bubblewrap, or allow unprivileged user namespaces";
  }
  return plan;
}

/** The cheapest network namespace: the worker thread (free), unshare (~2 ms), bwrap (~6 ms). */
function pickNetns(
  caps: MachineCaps,
  useLandlock: boolean,
): { netns: Confinement["netns"]; wrapper?: { program: string; args: string[] } } {
  if (caps.os !== "linux") return { netns: "none" };
  if (caps.netnsPrivileged && caps.ffi) return { netns: "worker" };
  if (caps.unshare !== null && (caps.netnsPrivileged || caps.userns)) {
    const args = caps.netnsPrivileged ? ["--net", "--"] : ["--user", "--net", "--"];
    return { netns: "unshare", wrapper: { program: caps.unshare, args } };
  }
  // bwrap mounts, which a Landlock domain forbids: only usable without Landlock.
  if (caps.bwrap !== null && !useLandlock && (caps.netnsPrivileged || caps.userns)) {
    return { netns: "bwrap", wrapper: { program: caps.bwrap, args: BWRAP_NET_ARGS } };
  }
  return { netns: "none" };
}

function landlockMissing(caps: MachineCaps): string | undefined {
  if (caps.os !== "linux") return `Landlock needs Linux (this is "${caps.os}")`;
  if (!caps.ffi) return "Landlock is applied through FFI: run harness with --allow-ffi";
  if (caps.landlockAbi === 0) {
    return "the kernel has no Landlock: run on Linux 5.13 or later with Landlock enabled (lsm=landlock)";
  }
  return undefined;
}

/** The TCP port of a net entry (`host:port`, `[v6]:port`), undefined when none is given. */
export function portOf(entry: string): number | undefined {
  const m = /^(?:\[[^\]]*\]|[^:\[\]]+):(\d{1,5})$/.exec(entry);
  return m ? Number(m[1]) : undefined;
}

/** The interpreter a script needs executed, following `#!/usr/bin/env NAME`. */
function interpreterOf(program: string, path: string): string | undefined {
  const line = readShebangLine(program);
  if (line === undefined) return undefined;
  const [interp, arg] = line;
  if (interp.endsWith("/env") && arg !== undefined && !arg.startsWith("-")) {
    return resolveProgram(arg, path);
  }
  return interp;
}

function readShebangLine(program: string): [string, string | undefined] | undefined {
  const interp = readShebang(program);
  if (interp === undefined) return undefined;
  try {
    const head = new TextDecoder().decode(Deno.readFileSync(program).subarray(0, 256));
    const words = head.split("\n")[0].slice(2).trim().split(/\s+/);
    return [interp, words[1]];
  } catch {
    return [interp, undefined];
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function compact(report: LayerReport): LayerReport {
  if (report.note === undefined) delete report.note;
  return report;
}

/**
 * The Worker key for a planned call: the Worker's Deno permissions and its kernel
 * confinement. A subprocess tool's Worker needs only `run` (its program and wrapper)
 * and `ffi` when it confines its thread; a built-in module's Worker gets the scope.
 *
 * @param scope The resolved scope.
 * @param plan The plan from {@linkcode planConfinement}.
 * @param program The tool's program, or null for a built-in module.
 * @returns The key for `WorkerPool`.
 */
export function workerKeyFor(
  scope: ResolvedScope,
  plan: Confinement,
  program: string | null,
): WorkerKey {
  if (program === null) {
    return {
      permissions: {
        read: scope.read,
        write: scope.write,
        net: scope.net,
        env: scope.env,
        run: scope.run,
        ffi: false,
        sys: false,
      },
    };
  }
  const run = [program, ...(plan.wrapper ? [plan.wrapper.program] : [])];
  const key: WorkerKey = {
    permissions: {
      read: false,
      write: false,
      net: false,
      env: false,
      sys: false,
      run,
      ffi: plan.landlock !== undefined || plan.netns === "worker",
    },
    modules: false,
  };
  if (plan.landlock !== undefined) key.landlock = plan.landlock;
  if (plan.netns === "worker") key.netns = true;
  return key;
}

/**
 * Applies the plan's wrapper to a spec: `wrapper.program wrapper.args… program args…`.
 *
 * @param spec The tool's spec.
 * @param plan The plan.
 * @returns The spec to run.
 */
export function wrapSpec(spec: ProcessSpec, plan: Confinement): ProcessSpec {
  if (plan.wrapper === undefined) return spec;
  return {
    ...spec,
    program: plan.wrapper.program,
    args: [...plan.wrapper.args, spec.program, ...spec.args],
  };
}
