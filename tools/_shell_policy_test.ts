import assert from "node:assert/strict";
import {
  checkCommand,
  DEFAULT_DENIED_COMMANDS,
  deniedBy,
  launchMode,
  parseDuration,
  scriptCommands,
  type ShellPolicy,
  splitArgs,
} from "./_shell_policy.ts";

const policy = (p: Partial<ShellPolicy>): ShellPolicy => ({
  allowedCommands: [],
  deniedCommands: [...DEFAULT_DENIED_COMMANDS],
  allowAnyCommand: false,
  ...p,
});

Deno.test("splitArgs() splits at white space without quoting, like strings.Fields", () => {
  assert.deepEqual(splitArgs("  -la \t src\n"), ["-la", "src"]);
  assert.deepEqual(splitArgs(`"a b"`), [`"a`, `b"`]);
  assert.deepEqual(splitArgs(undefined), []);
});

Deno.test("parseDuration() reads Go durations", () => {
  assert.equal(parseDuration("30s"), 30_000);
  assert.equal(parseDuration("1m30s"), 90_000);
  assert.equal(parseDuration("500ms"), 500);
  assert.equal(parseDuration("1.5h"), 5_400_000);
  assert.equal(parseDuration("30"), undefined);
  assert.equal(parseDuration("soon"), undefined);
});

Deno.test("deniedBy() matches base names and dotted variants", () => {
  assert.equal(deniedBy(["sudo"], "/usr/bin/sudo"), "sudo");
  assert.equal(deniedBy(["mkfs"], "mkfs.ext4"), "mkfs");
  assert.equal(deniedBy(["su"], "sum"), undefined);
  assert.equal(deniedBy(["dd"], `"dd"`), "dd");
});

Deno.test("scriptCommands() finds the command words of a shell script", () => {
  assert.deepEqual(scriptCommands("ls -la | grep x && FOO=1 make; echo $(whoami) `id`"), [
    "ls",
    "grep",
    "make",
    "echo",
    "whoami",
    "id",
  ]);
  assert.deepEqual(scriptCommands("if true; then env X=1 sudo ls; fi"), [
    "true",
    "env",
    "X=1",
    "sudo",
    "ls",
    "fi",
  ]);
});

Deno.test("checkCommand() refuses everything without an allowlist", () => {
  assert.match(
    checkCommand(policy({}), "ls", [], false)!,
    /has no allowlist, so every command is refused/,
  );
  assert.equal(checkCommand(policy({ allowAnyCommand: true }), "ls", [], false), undefined);
});

Deno.test("checkCommand() applies the deny list first, through wrappers and scripts", () => {
  const any = policy({ allowAnyCommand: true, allowedCommands: [] });
  assert.match(checkCommand(any, "sudo", ["ls"], false)!, /Command "sudo" is denied by policy/);
  assert.match(checkCommand(any, "/sbin/mkfs.ext4", [], false)!, /"deniedCommands" has "mkfs"/);
  assert.match(checkCommand(any, "env", ["FOO=1", "sudo", "ls"], false)!, /"sudo" is denied/);
  assert.match(checkCommand(any, "ls", ["|", "sudo", "x"], true)!, /"sudo" is denied/);
  assert.equal(checkCommand(any, "grep", ["sudo", "/etc/x"], false), undefined);
  const allow = policy({ allowedCommands: ["sudo", "git"] });
  assert.match(checkCommand(allow, "sudo", [], false)!, /denied by policy/);
});

Deno.test("checkCommand() enforces the allowlist and refuses shell mode with it", () => {
  const allow = policy({ allowedCommands: ["git", "ls"] });
  assert.equal(checkCommand(allow, "git", ["status"], false), undefined);
  assert.equal(
    checkCommand(allow, "rm", ["-rf", "x"], false),
    `Command "rm" is not in the allowlist: use one of "git", "ls"`,
  );
  assert.match(checkCommand(allow, "git", [], true)!, /Cannot run with "shell": true/);
  assert.match(checkCommand(policy({ allowedDir: "/x" }), "a", [], true)!, /"shell": true/);
});

Deno.test("launchMode() picks how a permitted call starts", () => {
  assert.equal(launchMode(policy({}), false), undefined);
  assert.equal(launchMode(policy({ allowedCommands: ["git"] }), false), "direct");
  assert.equal(launchMode(policy({ allowedDir: "/x", allowedCommands: ["a"] }), false), "exec");
  assert.equal(launchMode(policy({ allowAnyCommand: true }), false), "exec");
  assert.equal(launchMode(policy({ allowAnyCommand: true }), true), "shell");
});
