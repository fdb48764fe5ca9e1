import assert from "node:assert/strict";
import { hostAllowed, webFetchTool } from "./web_fetch.ts";
import { startBuiltinWorker } from "../tests/_helpers/builtin_worker_client.ts";

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

/** A local server recording every request; `handler` answers them. */
function serve(handler: (req: Request, url: URL) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    seen.push({ method: req.method, url: req.url, headers: req.headers, body: await req.text() });
    return handler(req, url);
  });
  const host = `127.0.0.1:${server.addr.port}`;
  return {
    seen,
    host,
    base: `http://${host}`,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

const call = (args: Record<string, unknown>, options: Record<string, unknown>) =>
  webFetchTool.execute(args, { projectDir: "/nonexistent", options });

Deno.test("hostAllowed() matches host and port like Deno's net permission", () => {
  const u = (s: string) => new URL(s);
  assert.equal(hostAllowed(u("https://api.example.com/x"), ["api.example.com"]), true);
  assert.equal(hostAllowed(u("https://api.example.com/x"), ["api.example.com:443"]), true);
  assert.equal(hostAllowed(u("http://api.example.com/x"), ["api.example.com:443"]), false);
  assert.equal(hostAllowed(u("http://API.example.com:8080/"), ["api.example.com:8080"]), true);
  assert.equal(hostAllowed(u("http://localhost:80/"), ["127.0.0.1"]), false);
  assert.equal(hostAllowed(u("http://[::1]:9/"), ["[::1]:9"]), true);
  assert.equal(hostAllowed(u("http://evil.com/"), []), false);
});

Deno.test("webFetchTool.execute() GETs an allowed host and shows status, headers and body", async () => {
  await using srv = serve((_req, url) =>
    Response.json({ q: url.searchParams.getAll("q"), page: url.searchParams.get("page") })
  );
  const r = await call({ url: `${srv.base}/search?page=2`, query: "q=a&q=b" }, {
    hosts: [srv.host],
  });
  assert.equal(r.isError, undefined);
  const body = `{"q":["a","b"],"page":"2"}`;
  assert.equal(
    r.content,
    `HTTP 200 OK\ncontent-type: application/json\ncontent-length: ${body.length}\n\n${body}`,
  );
  assert.equal(srv.seen[0].method, "GET");
});

Deno.test("webFetchTool.execute() sends method, headers and body", async () => {
  await using srv = serve(() => new Response("created", { status: 201 }));
  const r = await call(
    { url: `${srv.base}/items`, method: "POST", headers: { "X-Token": "t1" }, body: '{"a":1}' },
    { hosts: [srv.host] },
  );
  assert.match(r.content, /^HTTP 201 Created\n/);
  assert.equal(srv.seen[0].method, "POST");
  assert.equal(srv.seen[0].body, '{"a":1}');
  assert.equal(srv.seen[0].headers.get("x-token"), "t1");
  assert.equal(srv.seen[0].headers.get("content-type"), "application/json");
});

Deno.test("webFetchTool.execute() returns a non-2xx response as an error result with its body", async () => {
  await using srv = serve(() => new Response("no such item", { status: 404 }));
  const r = await call({ url: `${srv.base}/x` }, { hosts: [srv.host] });
  assert.equal(r.isError, true);
  assert.match(r.content, /^HTTP 404 Not Found\n[\s\S]*\n\nno such item$/);
});

Deno.test("webFetchTool.execute() refuses hosts that are not listed, and the server sees nothing", async () => {
  await using allowed = serve(() => new Response("ok"));
  await using other = serve(() => new Response("should not be reached"));
  const r = await call({ url: `${other.base}/x` }, { hosts: [allowed.host] });
  assert.equal(r.isError, true);
  assert.match(r.content, new RegExp(`its host "${other.host}" is not in "hosts"`));
  const none = await call({ url: `${allowed.base}/x` }, {});
  assert.match(none.content, /has no allowed hosts/);
  assert.equal(other.seen.length, 0);
  assert.equal(allowed.seen.length, 0);
});

Deno.test("webFetchTool.execute() checks every redirect hop against the hosts", async () => {
  await using other = serve(() => new Response("should not be reached"));
  await using srv = serve((_req, url) =>
    url.pathname === "/away"
      ? Response.redirect(`${other.base}/stolen`, 302)
      : url.pathname === "/hop"
      ? Response.redirect(`${srv.base}/final`, 302)
      : new Response("final")
  );
  const ok = await call({ url: `${srv.base}/hop` }, { hosts: [srv.host] });
  assert.match(
    ok.content,
    /^HTTP 200 OK\nurl: http:\/\/127\.0\.0\.1:\d+\/final\n[\s\S]*\n\nfinal$/,
  );
  const away = await call({ url: `${srv.base}/away` }, { hosts: [srv.host] });
  assert.equal(away.isError, true);
  assert.match(away.content, /^Redirect to "http:\/\/127\.0\.0\.1:\d+\/stolen" is not allowed/);
  assert.equal(other.seen.length, 0);
});

Deno.test("webFetchTool.execute() caps the body and describes binary bodies", async () => {
  await using srv = serve((_req, url) =>
    url.pathname === "/big"
      ? new Response("z".repeat(5000))
      : new Response(new Uint8Array([0, 1, 2]), { headers: { "content-type": "image/png" } })
  );
  const big = await call({ url: `${srv.base}/big` }, { hosts: [srv.host], maxResponseBytes: 1000 });
  assert.ok(
    big.content.endsWith(`${"z".repeat(1000)}\n[truncated: the body is longer than 1000 bytes]`),
  );
  const bin = await call({ url: `${srv.base}/png` }, { hosts: [srv.host] });
  assert.match(bin.content, /\[binary body \(image\/png\) of 3 bytes not shown\]$/);
});

Deno.test("webFetchTool.execute() gives up at its timeout", async () => {
  const { promise: release, resolve } = Promise.withResolvers<void>();
  await using srv = serve(async () => {
    await release;
    return new Response("late");
  });
  try {
    const r = await call({ url: `${srv.base}/slow` }, { hosts: [srv.host], timeoutMs: 50 });
    assert.equal(r.isError, true);
    assert.match(r.content, /timed out after 50 ms$/);
  } finally {
    resolve();
  }
});

Deno.test("webFetchTool.execute() refuses bad input before any request", async () => {
  const hosts = { hosts: ["127.0.0.1:1"] };
  assert.match((await call({ url: "not a url" }, hosts)).content, /is not a valid absolute URL/);
  assert.match((await call({ url: "file:///etc/passwd" }, hosts)).content, /is not http or https/);
  assert.match(
    (await call({ url: "http://127.0.0.1:1/", body: "x" }, hosts)).content,
    /A GET request cannot have a body/,
  );
});

Deno.test("webFetchTool.permissions() is enough inside a Worker and Deno denies other hosts", async () => {
  await using srv = serve(() => new Response("from worker"));
  await using other = serve(() => new Response("should not be reached"));
  const options = { hosts: [srv.host] };
  const worker = startBuiltinWorker(
    webFetchTool.permissions({ projectDir: "/nonexistent", options }),
  );
  try {
    const ok = await worker.call({
      tool: "web_fetch",
      args: { url: `${srv.base}/` },
      projectDir: "/nonexistent",
      options,
    });
    assert.ok("result" in ok && ok.result.content.endsWith("\n\nfrom worker"), JSON.stringify(ok));
    const refused = await worker.call({
      tool: "web_fetch",
      args: { url: `${other.base}/` },
      projectDir: "/nonexistent",
      options,
    });
    assert.ok("result" in refused && refused.result.isError);
    const raw = await worker.call({ probe: "fetch", path: `${other.base}/` });
    assert.ok("error" in raw && raw.error.startsWith("NotCapable"), JSON.stringify(raw));
    assert.equal(other.seen.length, 0);
  } finally {
    worker.close();
  }
});
