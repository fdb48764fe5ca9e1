/**
 * The escape suite through the whole call path: `harness tools call`, in-process, on a
 * copy of `tests/fixtures/call/project` — registry, argument validation, scope,
 * confinement plan, scoped Worker, kernel layer, convention rendering. Every case
 * asserts the denial in what the model sees AND that nothing was read (the secret is
 * absent from the content), written (the file is absent) or sent (the server saw
 * nothing). A case is skipped, with a printed reason, only when this machine lacks the
 * layer it tests (`tests/escape_test.ts` covers the same layers below the call path).
 *
 * @module
 */
import assert from "node:assert/strict";
import { probeMachine } from "../lib/exec/confine.ts";
import {
  API_KEY,
  type CallProject,
  copyProject,
  OUTSIDE_SECRET,
  parseDump,
  SIBLING_SECRET,
} from "./fixtures/call/project.ts";

const CAPS = await probeMachine();
const LANDLOCK = CAPS.os === "linux" && CAPS.ffi && CAPS.landlockAbi > 0;
const NO_LANDLOCK = LANDLOCK ? undefined : "Landlock is not available on this machine";
const NO_LANDLOCK_NET = !LANDLOCK
  ? NO_LANDLOCK
  : CAPS.landlockAbi < 4
  ? `Landlock ABI ${CAPS.landlockAbi} has no TCP rules (needs 4)`
  : undefined;
const NO_NETNS = CAPS.os !== "linux"
  ? "network namespaces need Linux"
  : CAPS.netnsPrivileged && CAPS.ffi ||
      CAPS.unshare !== null && (CAPS.netnsPrivileged || CAPS.userns)
  ? undefined
  : "no network namespace is available (no CAP_SYS_ADMIN, no unshare with user namespaces)";

/** Prints why a case is skipped and returns true, or returns false when it runs. */
function skipBecause(missing: string | undefined): boolean {
  if (missing === undefined) return false;
  console.log(`  skipped: ${missing}`);
  return true;
}

/** Runs `body` on a fresh copy of the fixture project. */
function withProject(body: (p: CallProject) => Promise<void>): () => Promise<void> {
  return async () => {
    await using project = await copyProject();
    await body(project);
  };
}

/** A loopback HTTP server that counts the requests it sees. */
function countingServer(): AsyncDisposable & { port: number; seen: () => number } {
  let seen = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    seen++;
    return new Response("reached the server\n");
  });
  return {
    port: server.addr.port,
    seen: () => seen,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

const noSecret = (content: string) =>
  assert.ok(
    !content.includes(OUTSIDE_SECRET) && !content.includes(SIBLING_SECRET),
    `no secret may leak: ${content}`,
  );

// ------------------------------------------------------------------------------------
// Files: a tool that declares read ./data and write ./out

Deno.test(
  "escape: a tool declaring read ./data reads it and nothing outside it",
  withProject(async (p) => {
    if (skipBecause(NO_LANDLOCK)) return;
    const inside = await p.call("octo_reader", { read: "data/in.txt" });
    assert.equal(inside.code, 0, inside.content);
    assert.equal(inside.content, "public data\n");

    await Deno.symlink(`${p.outside}/secret.txt`, `${p.dir}/data/link.txt`);
    for (
      const path of [
        `${p.outside}/secret.txt`, // absolute, outside the project
        "../outside/secret.txt", // relative, outside the project
        "private/secret.txt", // a sibling of data inside the project
        `${p.dir}/private/secret.txt`,
        "data/../private/secret.txt",
        "data/link.txt", // a symlink in data that points outside
      ]
    ) {
      const r = await p.call("octo_reader", { read: path });
      assert.equal(r.code, 1, `${path}: ${r.content}`);
      assert.match(
        r.content,
        /^local tool 'octo_reader' exited with status exit status: 1\n\[stderr\]\ncat: .*: Permission denied$/,
      );
      noSecret(r.content);
    }
  }),
);

Deno.test(
  "escape: a tool declaring write ./out writes it and nothing else",
  withProject(async (p) => {
    if (skipBecause(NO_LANDLOCK)) return;
    const ok = await p.call("octo_reader", { write: "out/result.txt" });
    assert.equal(ok.code, 0, ok.content);
    assert.equal(await Deno.readTextFile(`${p.dir}/out/result.txt`), "written\n");

    for (
      const path of [
        `${p.outside}/evil.txt`,
        "../outside/evil2.txt",
        "private/evil.txt",
        "data/evil.txt", // readable is not writable
        "evil.txt",
        `${p.root}/evil.txt`,
        "out/../evil3.txt",
      ]
    ) {
      const r = await p.call("octo_reader", { write: path });
      assert.equal(r.code, 1, `${path}: ${r.content}`);
      assert.match(r.content, /Permission denied/);
      assert.equal(await p.exists(path), false, `${path} must not exist`);
    }
    assert.equal(await Deno.readTextFile(`${p.outside}/secret.txt`), `${OUTSIDE_SECRET}\n`);
  }),
);

// ------------------------------------------------------------------------------------
// Network

Deno.test(
  "escape: a tool with net: [] cannot reach a loopback server",
  withProject(async (p) => {
    if (skipBecause(NO_LANDLOCK_NET ?? NO_NETNS)) return;
    await using server = countingServer();
    const r = await p.call("octo_offline", { port: server.port });
    assert.equal(r.code, 1, r.content);
    assert.match(
      r.content,
      /exited with status exit status: 1\n\[stderr\]\n.*(Network is unreachable|Permission denied|Connection refused)/,
    );
    assert.ok(!r.content.includes("reached the server"));
    assert.equal(server.seen(), 0, "the server saw nothing");
  }),
);

Deno.test("escape: a tool with net: [127.0.0.1:PORT] reaches that port and no other", async () => {
  if (skipBecause(NO_LANDLOCK_NET)) return;
  await using allowed = countingServer();
  await using p = await copyProject({ PORT: allowed.port });
  const r = await p.call("octo_online", { port: allowed.port });
  assert.equal(r.code, 0, r.content);
  assert.match(r.content, /reached the server/);
  assert.equal(allowed.seen(), 1);

  await using other = countingServer();
  const denied = await p.call("octo_online", { port: other.port });
  assert.equal(denied.code, 1, denied.content);
  assert.match(denied.content, /Permission denied/);
  assert.ok(!denied.content.includes("reached the server"));
  assert.equal(other.seen(), 0, "the other server saw nothing");
});

// ------------------------------------------------------------------------------------
// The provider's API key

Deno.test(
  "escape: a tool never sees OPENAI_API_KEY unless it declares it",
  withProject(async (p) => {
    const seen = async (tool: string, args: unknown) => {
      const r = await p.call(tool, args);
      assert.equal(r.code, 0, `${tool}: ${r.content}`);
      const dump = parseDump(r.content);
      assert.equal(dump.env.OPENAI_API_KEY === undefined, !r.content.includes(API_KEY));
      return dump.env;
    };
    // Undeclared tools that inherit the environment get all of it but the key.
    const octo = await seen("octo_dump", { message: "m" });
    assert.equal(octo.FOO, "foo-value", "the inherited environment is there");
    assert.equal(octo.OPENAI_API_KEY, undefined);
    const nano = await seen("nano_dump", { value: "v" });
    assert.equal(nano.FOO, "foo-value");
    assert.equal(nano.OPENAI_API_KEY, undefined);
    assert.equal((await seen("agent_dump", { message: "m" })).OPENAI_API_KEY, undefined);
    // Declared by name: `@allow env OPENAI_API_KEY`, or agentcli envPassthrough.
    assert.equal((await seen("octo_keyed", { message: "m" })).OPENAI_API_KEY, API_KEY);
    assert.equal((await seen("agent_keyed", {})).OPENAI_API_KEY, API_KEY);
    // A declared env scope gets only what it names (and PATH, HOME, the locale).
    assert.equal((await seen("octo_keyed", { message: "m" })).FOO, undefined);
  }),
);

Deno.test(
  "escape: the provider key is withheld under its configured name too",
  withProject(async (p) => {
    await p.config({ tools: { personal: false }, provider: { apiKeyEnv: "MY_LLM_KEY" } });
    const run = await p.cli(
      ["tools", "call", "octo_dump", "--json", "--args", '{"message":"m"}'],
      { env: { MY_LLM_KEY: "llm-key-SECRET" } },
    );
    assert.equal(run.code, 0, run.err);
    const dump = parseDump(JSON.parse(run.out).content);
    assert.equal(dump.env.MY_LLM_KEY, undefined);
    assert.ok(!run.out.includes("llm-key-SECRET"));
    assert.equal(dump.env.OPENAI_API_KEY, API_KEY, "any other variable is just inherited");
  }),
);

// ------------------------------------------------------------------------------------
// Template injection

Deno.test(
  "escape: injection payloads passed to a Nanocoder tool never execute",
  withProject(async (p) => {
    const payloads = [
      "'; rm -rf /; #",
      "'; rm -rf victim; touch ran-injected; #",
      "$(touch ran-injected)",
      "`touch ran-injected`",
      "x\ntouch ran-injected\n",
      '"; touch ran-injected; "',
      "'$(touch ran-injected)'",
      "\\'; touch ran-injected; #",
      "${IFS}$(touch${IFS}ran-injected)",
      "a' 'b",
      "'",
      "{{ value }}",
    ];
    for (const value of payloads) {
      const r = await p.call("nano_dump", { value });
      assert.equal(r.code, 0, `${JSON.stringify(value)}: ${r.content}`);
      assert.equal(parseDump(r.content).value, value, "the script saw the literal value");
      assert.equal(await p.exists("ran-injected"), false, JSON.stringify(value));
      assert.equal(await Deno.readTextFile(`${p.dir}/victim/keep.txt`), "must survive\n");
    }
  }),
);

// ------------------------------------------------------------------------------------
// Built-in file tools (confined by Deno in their Worker, and by their own path checks)

Deno.test(
  "escape: built-in file tools refuse .., absolute paths outside and symlinks out",
  withProject(async (p) => {
    await Deno.symlink(`${p.outside}/secret.txt`, `${p.dir}/data/link.txt`);
    await Deno.symlink(p.outside, `${p.dir}/data/linkdir`);
    const outsideMsg = /^Path ".*" is outside the project ".*": use a path inside the project$/;
    const linkMsg =
      /^Path ".*" leads outside the project ".*" through a symbolic link: use a path inside the project$/;
    const cases: { tool: string; args: Record<string, unknown>; says: RegExp; file?: string }[] = [
      { tool: "read_file", args: { path: "../outside/secret.txt" }, says: outsideMsg },
      { tool: "read_file", args: { path: `${p.outside}/secret.txt` }, says: outsideMsg },
      { tool: "read_file", args: { path: "data/../../outside/secret.txt" }, says: outsideMsg },
      { tool: "read_file", args: { path: "data/link.txt" }, says: linkMsg },
      { tool: "read_file", args: { path: "data/linkdir/secret.txt" }, says: linkMsg },
      {
        tool: "read_file_range",
        args: { path: "data/link.txt", start_line: 1, end_line: 1 },
        says: linkMsg,
      },
      { tool: "grep", args: { path: "..", pattern: "SECRET" }, says: outsideMsg },
      { tool: "grep", args: { path: "data/linkdir", pattern: "SECRET" }, says: linkMsg },
      { tool: "list_dir", args: { path: ".." }, says: outsideMsg },
      { tool: "count_stats", args: { path: "data/link.txt" }, says: linkMsg },
      {
        tool: "write_file",
        args: { path: "../outside/evil.txt", content: "x" },
        says: outsideMsg,
        file: `${p.outside}/evil.txt`,
      },
      {
        tool: "write_file",
        args: { path: `${p.root}/evil.txt`, content: "x" },
        says: outsideMsg,
        file: `${p.root}/evil.txt`,
      },
      {
        tool: "write_file",
        args: { path: "data/linkdir/evil.txt", content: "x" },
        says: linkMsg,
        file: `${p.outside}/evil.txt`,
      },
      {
        tool: "edit",
        args: { path: "data/link.txt", search: "TOP", replacement: "PWNED" },
        says: linkMsg,
      },
    ];
    for (const c of cases) {
      const r = await p.call(c.tool, c.args);
      assert.equal(r.code, 1, `${c.tool} ${JSON.stringify(c.args)}: ${r.content}`);
      assert.match(r.content, c.says);
      noSecret(r.content);
      if (c.file) assert.equal(await p.exists(c.file), false, `${c.file} must not exist`);
    }
    assert.equal(await Deno.readTextFile(`${p.outside}/secret.txt`), `${OUTSIDE_SECRET}\n`);
    // Inside the project they work.
    const ok = await p.call("read_file", { path: "data/in.txt" });
    assert.equal(ok.code, 0);
    assert.equal(ok.content, "public data\n");
  }),
);
