import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  binaryName,
  compileArgs,
  errorCause,
  formatSha256Sums,
  isRuntimeFailure,
  parseCompileArgs,
  runtimeFailureMessage,
  sha256Hex,
  TARGETS,
  UsageError,
} from "./compile.ts";
import { ENTRY, INCLUDES, PERMISSION_FLAGS, UNSTABLE_FLAGS } from "./grant.ts";

const ROOT = new URL("../", import.meta.url);

/** deno compile's output when dl.deno.land cannot be resolved (measured on this machine). */
const DNS_FAILURE = `Compile main.ts to out/h-x
Download https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip
error: Writing deno compile executable to temporary file 'out/h-x.tmp-031e51dd2b9ed5ad'

Caused by:
    0: Setting up base binary.
    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip): client error (Connect): dns error: failed to lookup address information: Name or service not known
    2: client error (Connect)
    3: dns error
    4: failed to lookup address information: Name or service not known

Stack backtrace:
   0: <unknown>
`;

/** deno compile's output for a Windows target built on a Linux runtime. */
const PE_FAILURE = `Compile main.ts to out/h-w.exe
error: Writing deno compile executable to temporary file 'out/h-w.exe.tmp-906a870829bb4e5d'

Caused by:
    0: Writing binary bytes
    1: Invalid object: Failed to parse PE

Stack backtrace:
   0: <unknown>
`;

/**
 * A throwaway project with the compile script, the grant, the `compile` task of the
 * real deno.json and a tiny entry point, so a test compiles in about a second with no
 * npm packages and no effect on the real `dist/`.
 */
async function makeSandbox(version = "0.0.7-test"): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "harness_compile_" });
  await Deno.mkdir(`${dir}/scripts`);
  for (const name of ["compile.ts", "grant.ts"]) {
    await Deno.copyFile(new URL(`scripts/${name}`, ROOT), `${dir}/scripts/${name}`);
  }
  const real = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify({ version, tasks: { compile: real.tasks.compile } }),
  );
  await Deno.writeTextFile(`${dir}/${ENTRY}`, `console.log("harness ${version}");\n`);
  for (const include of INCLUDES) {
    const path = `${dir}/${include}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, "self.close();\n");
  }
  return dir;
}

/**
 * Runs `deno task compile ARGS` in a directory. With `clean` (the default) the
 * environment is only PATH, HOME, a fresh DENO_DIR (so no cached runtime) and `env`,
 * so DENORT_BIN is unset unless given; otherwise it is this process's plus `env`.
 */
async function runCompileTask(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
  clean = true,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const base: Record<string, string> = { NO_COLOR: "1" };
  if (clean) {
    base.DENO_DIR = `${cwd}/.deno_dir`;
    for (const name of ["PATH", "HOME"]) {
      const value = Deno.env.get(name);
      if (value !== undefined) base[name] = value;
    }
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "compile", ...args],
    cwd,
    clearEnv: clean,
    env: { ...base, ...env },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
  };
}

Deno.test("compileArgs() lists the grant, includes, target, output and entry in order", () => {
  assert.deepEqual(compileArgs("x86_64-unknown-linux-gnu", "1.2.3", "dist"), [
    "compile",
    ...PERMISSION_FLAGS,
    ...UNSTABLE_FLAGS,
    ...INCLUDES.flatMap((path) => ["--include", path]),
    "--no-check",
    "--target",
    "x86_64-unknown-linux-gnu",
    "--output",
    "dist/harness-1.2.3-x86_64-unknown-linux-gnu",
    ENTRY,
  ]);
});

Deno.test("compileArgs() names the Windows binary .exe and joins the output dir once", () => {
  const args = compileArgs("x86_64-pc-windows-msvc", "0.1.0", "dist/");
  assert.equal(args[args.indexOf("--output") + 1], "dist/harness-0.1.0-x86_64-pc-windows-msvc.exe");
  assert.equal(binaryName("aarch64-apple-darwin", "0.1.0"), "harness-0.1.0-aarch64-apple-darwin");
});

Deno.test("parseCompileArgs() defaults to every target and dist/", () => {
  assert.deepEqual(parseCompileArgs([]), { targets: [...TARGETS], outDir: "dist", help: false });
  assert.equal(TARGETS.length, 5);
});

Deno.test("parseCompileArgs() takes repeated --target once each and --out in both spellings", () => {
  const options = parseCompileArgs([
    "--target",
    "aarch64-apple-darwin",
    "--target=x86_64-unknown-linux-gnu",
    "--target",
    "aarch64-apple-darwin",
    "--out=build",
  ]);
  assert.deepEqual(options.targets, ["aarch64-apple-darwin", "x86_64-unknown-linux-gnu"]);
  assert.equal(options.outDir, "build");
});

Deno.test("parseCompileArgs() rejects an unknown target and lists the valid ones", () => {
  assert.throws(() => parseCompileArgs(["--target", "riscv64-unknown-linux-gnu"]), (error) => {
    assert.ok(error instanceof UsageError);
    assert.equal(error.exitCode, 2);
    assert.match(error.message, /^Unknown target "riscv64-unknown-linux-gnu": use one of /);
    for (const target of TARGETS) assert.ok(error.message.includes(`"${target}"`), target);
    return true;
  });
  assert.throws(() => parseCompileArgs(["--out"]), /Option "--out" needs a value/);
  assert.throws(() => parseCompileArgs(["--bogus"]), /Unknown argument "--bogus"/);
});

Deno.test("isRuntimeFailure() tells a runtime download failure from other compile errors", () => {
  assert.equal(isRuntimeFailure(DNS_FAILURE), true);
  assert.equal(isRuntimeFailure("error: x\n    0: Could not find denort at '/nonexistent'"), true);
  assert.equal(isRuntimeFailure(PE_FAILURE), false);
  assert.equal(isRuntimeFailure('error: Module not found "file:///x/main.ts"'), false);
  const afterDownload = "Download https://dl.deno.land/release/v2.9.6/denort-x.zip\n" +
    "error: Writing deno compile executable\n\nCaused by:\n    0: Permission denied (os error 13)\n";
  assert.equal(isRuntimeFailure(afterDownload), false);
});

Deno.test("errorCause() picks the informative cause and drops the backtrace", () => {
  assert.equal(
    errorCause(DNS_FAILURE),
    "error sending request for url (https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip): client error (Connect): dns error: failed to lookup address information: Name or service not known",
  );
  assert.equal(errorCause(PE_FAILURE), "Invalid object: Failed to parse PE");
  assert.equal(errorCause("\x1b[31merror\x1b[0m: Module not found"), "Module not found");
  assert.equal(errorCause("Compile main.ts to x\n"), undefined);
});

Deno.test("runtimeFailureMessage() names the target, the runtime file and how to get it", () => {
  const message = runtimeFailureMessage("aarch64-apple-darwin", "2.9.6", DNS_FAILURE);
  assert.match(message, /^Cannot compile harness for target "aarch64-apple-darwin": /);
  assert.ok(message.includes(`could not download "denort-aarch64-apple-darwin.zip"`));
  assert.ok(message.includes("DENORT_BIN=/path/to/denort"));
  assert.ok(
    message.includes("https://dl.deno.land/release/v2.9.6/denort-aarch64-apple-darwin.zip"),
  );
  assert.ok(message.includes("https://github.com/denoland/deno/releases/tag/v2.9.6"));
  assert.ok(!message.includes("Stack backtrace"));
  const missing = runtimeFailureMessage("x86_64-unknown-linux-gnu", "2.9.6", "", "/nonexistent");
  assert.ok(missing.includes(`DENORT_BIN="/nonexistent" is not a file`));
});

Deno.test("formatSha256Sums() and sha256Hex() print what sha256sum prints", async () => {
  const digest = await sha256Hex(new TextEncoder().encode("abc"));
  assert.equal(digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(
    formatSha256Sums([{ name: "a", sha256: digest }, { name: "b", sha256: "00" }]),
    `${digest}  a\n00  b\n`,
  );
});

Deno.test("compile.ts exits 2 on an unknown target and lists the valid ones", async () => {
  const dir = await makeSandbox();
  try {
    const { code, stderr } = await runCompileTask(dir, ["--target", "sparc-sun-solaris"]);
    assert.equal(code, 2);
    assert.match(stderr, /Unknown target "sparc-sun-solaris": use one of /);
    for (const target of TARGETS) assert.ok(stderr.includes(target), target);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compile.ts refuses DENORT_BIN with more than one target (exit 2)", async () => {
  const dir = await makeSandbox();
  try {
    const { code, stderr } = await runCompileTask(dir, [], { DENORT_BIN: "/bin/true" });
    assert.equal(code, 2);
    assert.match(
      stderr,
      /DENORT_BIN="\/bin\/true" is the runtime of one target: pass the matching --target/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compile.ts explains how to get the runtime when it cannot be downloaded", async () => {
  const dir = await makeSandbox();
  try {
    // A proxy on a closed port makes the download fail on every machine, as DNS does here.
    const { code, stderr } = await runCompileTask(
      dir,
      ["--target", "x86_64-unknown-linux-gnu", "--out", `${dir}/out`],
      { HTTPS_PROXY: "http://127.0.0.1:9", https_proxy: "http://127.0.0.1:9", NO_PROXY: "" },
    );
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^error: Cannot compile harness for target "x86_64-unknown-linux-gnu": the Deno runtime "denort" is not available: deno compile could not download "denort-x86_64-unknown-linux-gnu\.zip" from dl\.deno\.land\n/,
    );
    assert.match(stderr, /\n {2}deno: error sending request for url \(https:\/\/dl\.deno\.land\//);
    assert.ok(stderr.includes("DENORT_BIN=/path/to/denort"));
    assert.ok(stderr.includes(`Deno "${Deno.version.deno}"`));
    assert.ok(stderr.includes("https://github.com/denoland/deno/releases/tag/v"));
    assert.ok(!/backtrace|\n\s+at /i.test(stderr), stderr);
    assert.equal((await Array.fromAsync(Deno.readDir(`${dir}/out`))).length, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "compile.ts with DENORT_BIN=/bin/true writes the binary and lists it in SHA256SUMS" +
    (Deno.build.os === "linux" ? "" : " (skipped: /bin/true is an ELF runtime only on Linux)"),
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const dir = await makeSandbox("0.0.7-test");
    try {
      const { code, stdout, stderr } = await runCompileTask(
        dir,
        ["--target", "x86_64-unknown-linux-gnu", "--out", "out"],
        { DENORT_BIN: "/bin/true" },
      );
      assert.equal(code, 0, stderr);
      const name = "harness-0.0.7-test-x86_64-unknown-linux-gnu";
      const bytes = await Deno.readFile(`${dir}/out/${name}`);
      assert.ok(bytes.length > 0);
      assert.equal(
        await Deno.readTextFile(`${dir}/out/SHA256SUMS`),
        `${await sha256Hex(bytes)}  ${name}\n`,
      );
      assert.match(stdout, /Compiled out\/harness-0\.0\.7-test-x86_64-unknown-linux-gnu \(/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** A real denort is ~90 MB; anything under 10 MB is a stand-in such as /bin/true. */
function realDenort(): string | undefined {
  const path = Deno.env.get("DENORT_BIN");
  if (!path) return undefined;
  try {
    return Deno.statSync(path).size > 10 * 1024 * 1024 ? path : undefined;
  } catch {
    return undefined;
  }
}

const DENORT = realDenort();

Deno.test({
  name: "compile.ts builds a harness binary that prints its --version" +
    (DENORT ? "" : " (skipped: DENORT_BIN not set to a denort runtime)"),
  ignore: DENORT === undefined,
  fn: async () => {
    const out = await Deno.makeTempDir({ prefix: "harness_dist_" });
    try {
      const { version } = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
      const target = Deno.build.target;
      const { code, stderr } = await runCompileTask(
        fileURLToPath(ROOT),
        ["--target", target, "--out", out],
        {},
        false,
      );
      assert.equal(code, 0, stderr);
      const run = await new Deno.Command(`${out}/${binaryName(target, version)}`, {
        args: ["--version"],
      }).output();
      assert.equal(run.code, 0);
      assert.equal(new TextDecoder().decode(run.stdout), `harness ${version}\n`);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});
