import assert from "node:assert/strict";
import { shellTool } from "./shell.ts";
import { makeTempProject } from "../tests/_helpers/temp_project.ts";
import { startBuiltinWorker } from "../tests/_helpers/builtin_worker_client.ts";

const run = (projectDir: string, args: Record<string, unknown>, options: Record<string, unknown>) =>
  shellTool.execute(args, { projectDir, options });
const json = (content: string) => JSON.parse(content);

Deno.test("shellTool.execute() refuses every command without an allowlist", async () => {
  await using t = await makeTempProject();
  const r = await run(t.project, { command: "echo", args: "hi" }, {});
  assert.equal(r.isError, true);
  assert.match(r.content, /has no allowlist/);
});

Deno.test("shellTool.execute() runs an allowed command in the project with split args", async () => {
  await using t = await makeTempProject();
  await t.write("sub/x.txt", "");
  const r = await run(t.project, { command: "ls", args: "-1  sub" }, { allowedCommands: ["ls"] });
  assert.equal(r.isError, undefined);
  const out = json(r.content);
  assert.deepEqual(
    { ...out, duration_seconds: 0 },
    {
      exit_code: 0,
      stdout: "x.txt",
      stderr: "",
      success: true,
      duration_seconds: 0,
      command: "ls",
    },
  );
  const pwd = await run(t.project, { command: "pwd", cwd: "sub" }, { allowedCommands: ["pwd"] });
  assert.equal(json(pwd.content).stdout, `${t.project}/sub`);
});

Deno.test("shellTool.execute() reports a failing command as an error result", async () => {
  await using t = await makeTempProject();
  const r = await run(t.project, { command: "ls", args: "missing" }, { allowedCommands: ["ls"] });
  assert.equal(r.isError, true);
  const out = json(r.content);
  assert.equal(out.success, false);
  assert.equal(out.exit_code, 2);
  assert.equal(out.error, "exit status 2");
  assert.match(out.stderr, /missing/);
});

Deno.test("shellTool.execute() refuses other commands, shell mode with an allowlist, and denied ones", async () => {
  await using t = await makeTempProject();
  const opts = { allowedCommands: ["ls"] };
  assert.match((await run(t.project, { command: "cat" }, opts)).content, /not in the allowlist/);
  assert.match(
    (await run(t.project, { command: "ls | cat", shell: true }, opts)).content,
    /Cannot run with "shell": true/,
  );
  assert.match(
    (await run(t.project, { command: "sudo", args: "ls" }, { allowAnyCommand: true })).content,
    /denied by policy/,
  );
  assert.match(
    (await run(t.project, { command: "-c", args: "id" }, { allowAnyCommand: true })).content,
    /starts with "-"/,
  );
});

Deno.test("shellTool.execute() runs /bin/sh scripts only with allowAnyCommand", async () => {
  await using t = await makeTempProject();
  const r = await run(
    t.project,
    { command: "printf 'b\\na\\n' | sort", shell: true },
    { allowAnyCommand: true },
  );
  assert.equal(json(r.content).stdout, "a\nb");
  const exec = await run(t.project, { command: "printf", args: "%s| $HOME" }, {
    allowAnyCommand: true,
  });
  assert.equal(json(exec.content).stdout, "$HOME|", "exec mode passes words without shell parsing");
});

Deno.test("shellTool.execute() passes only the allowed environment", async () => {
  await using t = await makeTempProject();
  Deno.env.set("HARNESS_TEST_API_KEY", "sk-should-not-leak");
  try {
    const r = await run(t.project, { command: "env" }, { allowedCommands: ["env"] });
    const names = json(r.content).stdout.split("\n").map((l: string) => l.split("=")[0]).sort();
    assert.ok(names.includes("PATH"));
    assert.ok(!names.includes("HARNESS_TEST_API_KEY"));
    const only = await run(t.project, { command: "env" }, {
      allowedCommands: ["env"],
      envPassthrough: ["HARNESS_TEST_API_KEY"],
    });
    assert.match(json(only.content).stdout, /HARNESS_TEST_API_KEY=sk-should-not-leak/);
  } finally {
    Deno.env.delete("HARNESS_TEST_API_KEY");
  }
});

Deno.test("shellTool.execute() kills a command at its timeout", async () => {
  await using t = await makeTempProject();
  const started = performance.now();
  const r = await run(t.project, { command: "sleep", args: "5", timeout: "200ms" }, {
    allowedCommands: ["sleep"],
  });
  assert.ok(performance.now() - started < 3000);
  assert.equal(r.isError, true);
  const out = json(r.content);
  assert.equal(out.error, "timed out after 200 ms and was killed");
  assert.equal(out.exit_code, -1);
  const bad = await run(t.project, { command: "sleep", timeout: "soon" }, {
    allowedCommands: ["sleep"],
  });
  assert.match(bad.content, /Timeout "soon" is not a duration/);
});

Deno.test("shellTool.execute() keeps cwd inside the project", async () => {
  await using t = await makeTempProject();
  await t.link("out", t.outside);
  for (const cwd of ["..", t.outside, "out"]) {
    const r = await run(t.project, { command: "ls", cwd }, { allowedCommands: ["ls"] });
    assert.equal(r.isError, true, cwd);
    assert.match(r.content, /outside the project/, cwd);
  }
});

Deno.test("shellTool.execute() with allowedDir runs only programs from that directory", async () => {
  await using t = await makeTempProject();
  await t.write("bin/hello.sh", '#!/bin/sh\necho hello "$1"\n');
  await Deno.chmod(`${t.project}/bin/hello.sh`, 0o755);
  const opts = { allowedDir: "bin" };
  const r = await run(t.project, { command: "hello.sh", args: "you" }, opts);
  assert.equal(json(r.content).stdout, "hello you");
  assert.equal(
    json((await run(t.project, { command: "bin/hello.sh" }, opts)).content).success,
    true,
  );
  assert.match(
    (await run(t.project, { command: "/bin/ls" }, opts)).content,
    /not under the allowed directory/,
  );
  assert.match((await run(t.project, { command: "nope.sh" }, opts)).content, /does not exist/);
});

Deno.test("shellTool.permissions() follows the policy", () => {
  const p = "/proj";
  assert.deepEqual(shellTool.permissions({ projectDir: p, options: {} }).run, []);
  assert.deepEqual(
    shellTool.permissions({ projectDir: p, options: { allowedCommands: ["git", "./x.sh"] } }).run,
    ["git", "/proj/x.sh"],
  );
  const anyCmd = shellTool.permissions({ projectDir: p, options: { allowAnyCommand: true } });
  assert.deepEqual(anyCmd.run, ["/bin/sh"]);
  assert.deepEqual(anyCmd.read, ["/proj"]);
  assert.deepEqual(
    shellTool.permissions({ projectDir: p, options: { allowedDir: "/opt/tools" } }).read,
    ["/proj", "/opt/tools"],
  );
});

Deno.test("shellTool.permissions() is enough inside a Worker", async () => {
  await using t = await makeTempProject();
  for (const options of [{ allowedCommands: ["ls"] }, { allowAnyCommand: true }]) {
    const worker = startBuiltinWorker(shellTool.permissions({ projectDir: t.project, options }));
    try {
      await t.write("seen.txt", "");
      const call = (args: Record<string, unknown>) =>
        worker.call({ tool: "shell", args, projectDir: t.project, options });
      const ok = await call({ command: "ls" });
      assert.ok("result" in ok && !ok.result.isError, JSON.stringify(ok));
      assert.match(ok.result.content, /seen\.txt/);
      if ("allowAnyCommand" in options) {
        const slow = await call({ command: "sleep", args: "5", timeout: "100ms" });
        assert.ok("result" in slow);
        assert.match(slow.result.content, /timed out/);
        assert.match(slow.result.content, /process group could not be killed/);
      }
    } finally {
      worker.close();
    }
  }
});
