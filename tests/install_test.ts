/**
 * Tests of install.sh, run with `sh install.sh` against release files in a temporary
 * directory (no network). HARNESS_UNAME_S/HARNESS_UNAME_M pin the platform, so the
 * tests behave the same on every machine.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "../scripts/compile.ts";

const INSTALL_SH = fileURLToPath(new URL("../install.sh", import.meta.url));
const VERSION = "0.3.0";
const LINUX_X64 = { HARNESS_UNAME_S: "Linux", HARNESS_UNAME_M: "x86_64" };
const FAKE_BINARY = `#!/bin/sh\necho "harness ${VERSION}"\n`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temporary directory removed after `fn`. */
async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "harness_install_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Writes release files: one fake binary per target and a SHA256SUMS listing them, with
 * the checksums given in `sums` instead of the real ones where set.
 */
async function writeRelease(
  dir: string,
  targets: string[],
  sums: Record<string, string> = {},
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  let lines = "";
  for (const target of targets) {
    const name = `harness-${VERSION}-${target}`;
    await Deno.writeTextFile(`${dir}/${name}`, FAKE_BINARY);
    const sha = sums[target] ?? await sha256Hex(new TextEncoder().encode(FAKE_BINARY));
    lines += `${sha}  ${name}\n`;
  }
  await Deno.writeTextFile(`${dir}/SHA256SUMS`, lines);
}

/** Runs `sh install.sh ARGS` with only PATH, HOME and `env` in the environment. */
async function install(args: string[], env: Record<string, string>): Promise<Run> {
  const out = await new Deno.Command("sh", {
    args: [INSTALL_SH, ...args],
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("install.sh installs the binary for the platform from a local directory", async () => {
  await withTempDir(async (dir) => {
    await writeRelease(`${dir}/release`, ["x86_64-unknown-linux-gnu", "aarch64-apple-darwin"]);
    const run = await install(["--version", VERSION], {
      ...LINUX_X64,
      HOME: `${dir}/home`,
      HARNESS_DOWNLOAD_URL: `${dir}/release`,
    });
    assert.equal(run.code, 0, run.stderr);
    const installed = `${dir}/home/.local/bin/harness`;
    assert.equal((await Deno.stat(installed)).mode! & 0o777, 0o755);
    const version = await new Deno.Command(installed).output();
    assert.equal(new TextDecoder().decode(version.stdout), `harness ${VERSION}\n`);
    assert.match(
      run.stdout,
      new RegExp(`Installed harness ${VERSION} \\(x86_64-unknown-linux-gnu\\) to ${installed}\n`),
    );
    assert.match(run.stdout, /\.local\/bin is not on your PATH: add it/);
  });
});

Deno.test("install.sh takes the latest version from SHA256SUMS of a file:// URL", async () => {
  await withTempDir(async (dir) => {
    await writeRelease(`${dir}/release`, ["aarch64-apple-darwin", "x86_64-apple-darwin"]);
    const bin = `${dir}/bin`;
    const run = await install(["--dir", bin], {
      HARNESS_UNAME_S: "Darwin",
      HARNESS_UNAME_M: "arm64",
      HARNESS_DOWNLOAD_URL: `file://${dir}/release/`,
      PATH: `${bin}:${Deno.env.get("PATH")}`,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes(`Installed harness ${VERSION} (aarch64-apple-darwin)`));
    assert.ok(run.stdout.includes(`${bin} is on your PATH`));
    assert.ok(await exists(`${bin}/harness`));
  });
});

Deno.test("install.sh resolves latest through the GitHub releases API", async () => {
  await withTempDir(async (dir) => {
    await writeRelease(`${dir}/release`, ["aarch64-unknown-linux-gnu"]);
    await Deno.writeTextFile(
      `${dir}/latest.json`,
      `{\n  "url": "x",\n  "tag_name": "v${VERSION}",\n  "name": "v${VERSION}"\n}\n`,
    );
    // A curl that serves the API answer and the release files from disk, and logs the URLs.
    await Deno.mkdir(`${dir}/fakebin`);
    await Deno.writeTextFile(
      `${dir}/fakebin/curl`,
      `#!/bin/sh
out=; url=
while [ "$#" -gt 0 ]; do
  case $1 in -o) out=$2; shift 2 ;; -*) shift ;; *) url=$1; shift ;; esac
done
echo "$url" >> "${dir}/urls.log"
case $url in
  https://api.github.com/repos/acme/tool/releases/latest) cp "${dir}/latest.json" "$out" ;;
  https://github.com/acme/tool/releases/download/v${VERSION}/*) cp "${dir}/release/\${url##*/}" "$out" ;;
  *) echo "curl: (22) The requested URL returned error: 404" >&2; exit 22 ;;
esac
`,
    );
    await Deno.chmod(`${dir}/fakebin/curl`, 0o755);
    const run = await install(["--dir", `${dir}/bin`], {
      HARNESS_UNAME_S: "Linux",
      HARNESS_UNAME_M: "aarch64",
      HARNESS_REPO: "acme/tool",
      PATH: `${dir}/fakebin:${Deno.env.get("PATH")}`,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual((await Deno.readTextFile(`${dir}/urls.log`)).trim().split("\n"), [
      "https://api.github.com/repos/acme/tool/releases/latest",
      `https://github.com/acme/tool/releases/download/v${VERSION}/SHA256SUMS`,
      `https://github.com/acme/tool/releases/download/v${VERSION}/harness-${VERSION}-aarch64-unknown-linux-gnu`,
    ]);
    assert.ok(await exists(`${dir}/bin/harness`));
  });
});

Deno.test("install.sh refuses a binary whose checksum does not match and installs nothing", async () => {
  await withTempDir(async (dir) => {
    const wrong = "0".repeat(64);
    await writeRelease(`${dir}/release`, ["x86_64-unknown-linux-gnu"], {
      "x86_64-unknown-linux-gnu": wrong,
    });
    await Deno.mkdir(`${dir}/bin`);
    await Deno.writeTextFile(`${dir}/bin/harness`, "old\n");
    const run = await install(["--version", VERSION, "--dir", `${dir}/bin`], {
      ...LINUX_X64,
      HARNESS_DOWNLOAD_URL: `${dir}/release`,
    });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      new RegExp(
        `install.sh: error: checksum mismatch for "harness-${VERSION}-x86_64-unknown-linux-gnu": ` +
          `expected "${wrong}", got "[0-9a-f]{64}": .*nothing was installed`,
      ),
    );
    assert.equal(await Deno.readTextFile(`${dir}/bin/harness`), "old\n");
    assert.deepEqual((await Array.fromAsync(Deno.readDir(`${dir}/bin`))).map((e) => e.name), [
      "harness",
    ]);
  });
});

Deno.test("install.sh creates no directory when the checksum does not match", async () => {
  await withTempDir(async (dir) => {
    await writeRelease(`${dir}/release`, ["x86_64-unknown-linux-gnu"], {
      "x86_64-unknown-linux-gnu": "f".repeat(64),
    });
    const run = await install(["--version", VERSION], {
      ...LINUX_X64,
      HARNESS_DOWNLOAD_URL: `${dir}/release`,
      HARNESS_INSTALL_DIR: `${dir}/new/bin`,
    });
    assert.equal(run.code, 1);
    assert.equal(await exists(`${dir}/new`), false);
  });
});

Deno.test("install.sh says clearly when the release has no binary for the platform", async () => {
  await withTempDir(async (dir) => {
    await writeRelease(`${dir}/release`, ["x86_64-unknown-linux-gnu"]);
    const run = await install(["--version", VERSION, "--dir", `${dir}/bin`], {
      HARNESS_UNAME_S: "Linux",
      HARNESS_UNAME_M: "arm64",
      HARNESS_DOWNLOAD_URL: `${dir}/release`,
    });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `install.sh: error: no harness binary for target "aarch64-unknown-linux-gnu" in version ` +
        `"${VERSION}": "${dir}/release/SHA256SUMS" does not list ` +
        `"harness-${VERSION}-aarch64-unknown-linux-gnu"\n`,
    );
    assert.equal(await exists(`${dir}/bin`), false);
  });
});

Deno.test("install.sh says clearly when a listed binary cannot be downloaded", async () => {
  await withTempDir(async (dir) => {
    await writeRelease(`${dir}/release`, ["x86_64-unknown-linux-gnu"]);
    await Deno.remove(`${dir}/release/harness-${VERSION}-x86_64-unknown-linux-gnu`);
    const run = await install(["--version", VERSION, "--dir", `${dir}/bin`], {
      ...LINUX_X64,
      HARNESS_DOWNLOAD_URL: `${dir}/release`,
    });
    assert.equal(run.code, 1);
    assert.ok(
      run.stderr.includes(
        `install.sh: error: cannot download "${dir}/release/harness-${VERSION}-x86_64-unknown-linux-gnu"`,
      ),
      run.stderr,
    );
  });
});

Deno.test("install.sh rejects an unsupported operating system or CPU", async () => {
  const os = await install([], { HARNESS_UNAME_S: "FreeBSD", HARNESS_UNAME_M: "x86_64" });
  assert.equal(os.code, 1);
  assert.equal(
    os.stderr,
    'install.sh: error: unsupported operating system "FreeBSD": ' +
      "harness is built for Linux and macOS (Darwin)\n",
  );
  const windows = await install([], {
    HARNESS_UNAME_S: "MINGW64_NT-10.0",
    HARNESS_UNAME_M: "x86_64",
  });
  assert.equal(windows.code, 1);
  assert.match(
    windows.stderr,
    /on Windows, download harness-<version>-x86_64-pc-windows-msvc\.exe/,
  );
  const cpu = await install([], { HARNESS_UNAME_S: "Linux", HARNESS_UNAME_M: "riscv64" });
  assert.equal(cpu.code, 1);
  assert.match(cpu.stderr, /unsupported CPU architecture "riscv64"/);
});

Deno.test("install.sh prints help and rejects unknown arguments with exit 2", async () => {
  const help = await install(["--help"], {});
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: install\.sh \[--version V\] \[--dir DIR\]\n/);
  for (const name of ["HARNESS_VERSION", "HARNESS_DOWNLOAD_URL", "HARNESS_UNAME_S"]) {
    assert.ok(help.stdout.includes(name), name);
  }
  const bad = await install(["--force"], {});
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'install.sh: error: unknown argument "--force": see --help\n');
  const missing = await install(["--version"], {});
  assert.equal(missing.code, 2);
});

const SHELLCHECK = await new Deno.Command("shellcheck", { args: ["--version"] }).output()
  .then((out) => out.success, () => false);

Deno.test({
  name: "install.sh passes shellcheck as POSIX sh" +
    (SHELLCHECK ? "" : " (skipped: shellcheck is not installed)"),
  ignore: !SHELLCHECK,
  fn: async () => {
    const out = await new Deno.Command("shellcheck", { args: ["-s", "sh", INSTALL_SH] }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stdout));
  },
});
