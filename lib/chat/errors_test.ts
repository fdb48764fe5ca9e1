import assert from "node:assert/strict";
import {
  httpError,
  isToolsUnsupported,
  PROVIDER_CODES,
  ProviderError,
  serverMessage,
} from "./errors.ts";

Deno.test("serverMessage() extracts the message of common error shapes", () => {
  assert.equal(serverMessage('{"error":{"message":"bad key","type":"auth"}}'), "bad key");
  assert.equal(
    serverMessage('{"error":"model \\"x\\" not found, try pulling it first"}'),
    'model "x" not found, try pulling it first',
  );
  assert.equal(serverMessage('{"object":"error","message":"vllm"}'), "vllm");
  assert.equal(serverMessage('{"detail":"Not Found"}'), "Not Found");
  assert.equal(
    serverMessage("<html>\n  502 Bad Gateway\n</html>"),
    "<html> 502 Bad Gateway </html>",
  );
  assert.equal(serverMessage("x".repeat(600)).length, 501);
});

Deno.test("httpError() recognises tool errors only when tools were sent", () => {
  const body = '{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools"}}';
  assert.equal(
    httpError("http://h/v1/chat/completions", 400, body, true).kind,
    "tools-unsupported",
  );
  const plain = httpError("http://h/v1/chat/completions", 400, body, false);
  assert.equal(plain.kind, "http");
  assert.equal(
    plain.message,
    'Request to "http://h/v1/chat/completions" failed with HTTP 400: registry.ollama.ai/library/gemma:2b does not support tools',
  );
  assert.ok(isToolsUnsupported(body));
  assert.ok(!isToolsUnsupported('{"error":{"message":"rate limited"}}'));
});

Deno.test("httpError() gives a hint per status", () => {
  const hint = (status: number, body = "") => httpError("u", status, body, false).hint ?? "";
  assert.match(hint(404), /baseUrl/);
  assert.match(hint(403), /API key/);
  assert.match(hint(400, "This model's maximum context length is 8192 tokens"), /too long/);
  assert.match(hint(429), /rate limited/);
  assert.match(hint(502), /server failed/);
  assert.match(httpError("u", 500, "", false).message, /\(empty body\)$/);
});

Deno.test("ProviderError carries kind, status, body and exit code", () => {
  const e = new ProviderError("http", "m", { status: 500, body: "b".repeat(5000), hint: "h" });
  assert.ok(e instanceof Error);
  assert.equal(e.name, "ProviderError");
  assert.equal(e.exitCode, 3);
  assert.equal(e.body?.length, 4096);
  assert.equal(new ProviderError("aborted", "m").exitCode, 130);
});

Deno.test("PROVIDER_CODES lists every warning code the provider emits", async () => {
  const dir = new URL(".", import.meta.url);
  let source = "";
  for (const f of ["assemble.ts", "provider.ts"]) {
    source += await Deno.readTextFile(new URL(f, dir));
  }
  const emitted = new Set(
    [...source.matchAll(/code: "([a-z-]+)"|warn\("([a-z-]+)"/g)].map((m) => m[1] ?? m[2]),
  );
  assert.deepEqual([...emitted].sort(), PROVIDER_CODES.map((c) => c.code).sort());
});
