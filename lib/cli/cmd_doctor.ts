/**
 * `harness doctor`: the Deno grant of this process, the kernel layer (Landlock ABI,
 * network namespaces, bubblewrap) and what that means for tools.
 *
 * @module
 */
import { probeMachine } from "../exec/confine.ts";
import type { CommandContext } from "./context.ts";
import { VERSION } from "./main.ts";

/** The permission kinds harness reports on. */
const KINDS = ["read", "write", "net", "env", "run", "ffi", "sys"] as const;

/** Builds the `doctor` action. */
export function doctorCommand(opts: { json?: boolean }) {
  return async (ctx: CommandContext): Promise<void> => {
    const caps = await probeMachine();
    const grant: Record<string, string> = {};
    for (const name of KINDS) grant[name] = Deno.permissions.querySync({ name }).state;
    let kernel = "unknown";
    try {
      kernel = Deno.osRelease();
    } catch {
      // --allow-sys=osRelease not granted.
    }
    const netns = caps.netnsPrivileged
      ? "yes (privileged: the worker thread unshares)"
      : caps.userns
      ? "yes (user namespaces)"
      : caps.bwrap
      ? "yes (bubblewrap)"
      : "no";
    const meaning: string[] = [];
    if (caps.landlockAbi > 0) {
      meaning.push(
        `Subprocess tools are confined by Landlock ABI ${caps.landlockAbi}: files they may read and write${
          caps.landlockAbi >= 4 ? ", TCP ports they may connect to" : ""
        }, programs they may run.`,
      );
    } else {
      meaning.push(
        `Subprocess tools are NOT confined by the kernel here (${
          caps.os !== "linux"
            ? `not Linux: ${caps.os}`
            : !caps.ffi
            ? "harness lacks --allow-ffi"
            : "Landlock unavailable: needs Linux ≥ 5.13 with Landlock enabled"
        }); "sandbox": "strict" refuses to run them.`,
      );
    }
    meaning.push(
      netns === "no"
        ? "Tools that declare no network are kept off TCP by Landlock only (UDP stays open); strict mode refuses them."
        : "Tools that declare no network run in an empty network namespace (no TCP, no UDP, no DNS).",
    );
    meaning.push(
      "Built-in TypeScript tools are confined entirely by Deno Worker permissions on every OS.",
    );
    if (grant.run !== "granted") {
      meaning.push(
        "harness lacks unrestricted --allow-run: a timeout kills a tool, not its grandchildren.",
      );
    }
    const report = {
      version: VERSION,
      deno: Deno.version.deno,
      os: caps.os,
      arch: Deno.build.arch,
      kernel,
      grant,
      landlockAbi: caps.landlockAbi,
      ffi: caps.ffi,
      bwrap: caps.bwrap,
      unshare: caps.unshare,
      userNamespaces: caps.netnsPrivileged ? "not needed (privileged)" : caps.userns,
      netnsPrivileged: caps.netnsPrivileged,
      meaning,
    };
    if (opts.json) {
      ctx.io.out(JSON.stringify(report, null, 2) + "\n");
      return;
    }
    const b = ctx.out.bold;
    const ok = (v: boolean, text: string) => (v ? ctx.out.green(text) : ctx.out.yellow(text));
    ctx.io.out(
      [
        `${
          b("harness")
        } ${VERSION} on Deno ${Deno.version.deno}, ${caps.os}/${Deno.build.arch}, kernel ${kernel}`,
        "",
        b("Deno grant of this process"),
        ...KINDS.map((k) =>
          `  ${k.padEnd(6)} ${
            ok(
              grant[k] === "granted",
              grant[k] === "granted" ? "granted" : `${grant[k]} (partial or none)`,
            )
          }`
        ),
        "",
        b("Kernel layer"),
        `  Landlock ABI        ${
          ok(caps.landlockAbi > 0, caps.landlockAbi > 0 ? String(caps.landlockAbi) : "unavailable")
        }`,
        `  network namespaces  ${ok(netns !== "no", netns)}`,
        `  bubblewrap          ${ok(caps.bwrap !== null, caps.bwrap ?? "not installed")}`,
        `  unshare             ${ok(caps.unshare !== null, caps.unshare ?? "not installed")}`,
        "",
        b("What that means"),
        ...meaning.map((m) => `  - ${m}`),
      ].join("\n") + "\n",
    );
  };
}
