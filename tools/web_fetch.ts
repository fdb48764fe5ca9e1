/**
 * `web_fetch`: one HTTP request to a declared host (Contenox `webhook`).
 *
 * Arguments: `url` (http or https), `method` (GET, POST, PUT, PATCH, DELETE; default
 * **GET**, where the original defaults to POST: a fetch tool mostly reads, GET is safe
 * to repeat, and the original's POST default fails without a body anyway), `query`
 * (a query string such as `q=foo&limit=10`, appended to the URL's own), `headers` (an
 * object of strings), `body` (text; not allowed with GET; its Content-Type defaults to
 * `application/json` when it parses as JSON, else `text/plain; charset=utf-8`).
 *
 * Only hosts listed in the `hosts` option may be called; without it every call is
 * refused. An entry `host` allows any port, `host:port` that port only (ports default
 * to 80/443 by scheme); names are compared exactly (`localhost` is not `127.0.0.1`),
 * like Deno's net permission, which the Worker enforces again. Redirects are followed by
 * hand (at most {@linkcode WEB_FETCH_MAX_REDIRECTS}), each hop checked against the list;
 * `Authorization` and `Cookie` are dropped when a redirect changes the host.
 *
 * The result is the status line, the headers in {@linkcode WEB_FETCH_SHOWN_HEADERS}, a
 * blank line, and the body as text capped at `maxResponseBytes`; a body that is not
 * text is described, not shown. A non-2xx status is a normal result flagged as an
 * error (the original failed the call); a refused host, a network failure or a timeout
 * is an error result.
 *
 * @module
 */
import {
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  errorMessage,
  fail,
  isResult,
  ok,
  optionalStringArg,
  positiveIntOption,
  stringArg,
  stringListOption,
} from "./_types.ts";
import { decodeText, wholeChars } from "./_io.ts";

/** Default timeout of one call, redirects included (30 s, as the original's client). */
export const WEB_FETCH_DEFAULT_TIMEOUT_MS = 30_000;
/** Default cap of the response body (100 KiB). */
export const WEB_FETCH_DEFAULT_MAX_RESPONSE_BYTES = 100 * 1024;
/** The most redirects followed. */
export const WEB_FETCH_MAX_REDIRECTS = 5;
/** Response headers shown to the model. */
export const WEB_FETCH_SHOWN_HEADERS: readonly string[] = [
  "content-type",
  "content-length",
  "location",
  "retry-after",
  "www-authenticate",
  "etag",
  "last-modified",
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** The `web_fetch` built-in tool. */
export const webFetchTool: BuiltinTool = {
  name: "web_fetch",
  description:
    "Make an HTTP request to one of the allowed hosts and return the status, main headers and body text.",
  parameters: {
    type: "object",
    properties: {
      url: { type: "string", description: "The URL to call (http or https)" },
      method: {
        type: "string",
        enum: METHODS,
        description: "HTTP method: GET, POST, PUT, PATCH, DELETE (default: GET)",
      },
      query: { type: "string", description: "Query string to add, e.g. q=foo&limit=10" },
      headers: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "HTTP headers to add, as an object of strings",
      },
      body: { type: "string", description: "Request body (not with GET)" },
    },
    required: ["url"],
    additionalProperties: false,
  },
  approval: "always",
  readOnly: false,
  optionsSchema: {
    type: "object",
    properties: {
      hosts: {
        type: "array",
        items: { type: "string", minLength: 1 },
        description: 'Hosts that may be called: "host" (any port) or "host:port". Required.',
      },
      timeoutMs: {
        type: "integer",
        minimum: 1,
        description: "Timeout of one call. Default 30000.",
      },
      maxResponseBytes: {
        type: "integer",
        minimum: 1,
        description: "Cap of the response body. Default 102400.",
      },
    },
    additionalProperties: false,
  },
  permissions: ({ options }) => ({ net: stringListOption(options, "hosts") ?? [] }),
  execute: webFetch,
};

/**
 * Whether `url`'s host and port are allowed by one of `hosts`.
 *
 * @param url The parsed URL.
 * @param hosts Entries `host` or `host:port`.
 * @returns Whether the request may go there.
 */
export function hostAllowed(url: URL, hosts: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
  return hosts.some((entry) => {
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.trim().toLowerCase());
    if (m === null) return false;
    return m[1] === host && (m[2] === undefined || m[2] === port);
  });
}

async function webFetch(
  args: Record<string, unknown>,
  ctx: BuiltinContext,
): Promise<BuiltinResult> {
  const rawUrl = stringArg(args, "url");
  if (isResult(rawUrl)) return rawUrl;
  const query = optionalStringArg(args, "query");
  if (isResult(query)) return query;
  const body = optionalStringArg(args, "body");
  if (isResult(body)) return body;
  const method = typeof args.method === "string" ? args.method.toUpperCase() : "GET";
  if (!METHODS.includes(method)) {
    return fail(`Method "${args.method}" is not supported: use one of ${METHODS.join(", ")}`);
  }
  if (body !== undefined && method === "GET") {
    return fail(`A GET request cannot have a body: use POST, PUT, PATCH or DELETE, or drop "body"`);
  }
  const hosts = stringListOption(ctx.options, "hosts") ?? [];
  if (hosts.length === 0) {
    return fail(
      `web_fetch has no allowed hosts, so every call is refused: list them in "hosts" under tools.builtins.web_fetch in harness.jsonc`,
    );
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return fail(
      `URL "${rawUrl}" is not a valid absolute URL: write e.g. "https://${hosts[0]}/path"`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return fail(`URL "${rawUrl}" is not http or https: only web requests are supported`);
  }
  if (query !== undefined && query !== "") {
    for (const [k, v] of new URLSearchParams(query)) url.searchParams.append(k, v);
  }
  const headers = new Headers();
  if (typeof args.headers === "object" && args.headers !== null && !Array.isArray(args.headers)) {
    for (const [k, v] of Object.entries(args.headers)) {
      if (typeof v !== "string") return fail(`Header "${k}" must be a string value`);
      try {
        headers.set(k, v);
      } catch {
        return fail(`Header "${k}" is not a valid HTTP header: check its name and value`);
      }
    }
  }
  if (body !== undefined && !headers.has("content-type")) {
    headers.set("content-type", isJson(body) ? "application/json" : "text/plain; charset=utf-8");
  }

  const timeoutMs = positiveIntOption(ctx.options, "timeoutMs", WEB_FETCH_DEFAULT_TIMEOUT_MS);
  const signals = [AbortSignal.timeout(timeoutMs)];
  if (ctx.signal) signals.push(ctx.signal);
  const signal = AbortSignal.any(signals);
  let response: Response | undefined;
  let current = url;
  let currentMethod = method;
  let currentBody = body;
  try {
    for (let hop = 0;; hop++) {
      if (!hostAllowed(current, hosts)) {
        return fail(
          `${
            hop === 0 ? "URL" : "Redirect to"
          } "${current.href}" is not allowed: its host "${current.host}" is not in "hosts" (${
            hosts.map((h) => `"${h}"`).join(", ")
          }): call an allowed host`,
        );
      }
      response = await fetch(current, {
        method: currentMethod,
        headers,
        body: currentBody,
        redirect: "manual",
        signal,
      });
      const location = response.headers.get("location");
      if (response.status < 300 || response.status > 399 || location === null) break;
      if (hop >= WEB_FETCH_MAX_REDIRECTS) break;
      await response.body?.cancel();
      const next = new URL(location, current);
      if (next.host !== current.host) {
        headers.delete("authorization");
        headers.delete("cookie");
      }
      current = next;
      if (
        response.status === 303 || ((response.status === 301 || response.status === 302) &&
          currentMethod === "POST")
      ) {
        currentMethod = "GET";
        currentBody = undefined;
        headers.delete("content-type");
      }
    }
  } catch (err) {
    if (ctx.signal?.aborted) return fail(`The request to "${current.href}" was cancelled`);
    if (signal.aborted) {
      return fail(`The request to "${current.href}" timed out after ${timeoutMs} ms`);
    }
    return fail(`The request to "${current.href}" failed: ${errorMessage(err)}`);
  }
  const maxBytes = positiveIntOption(
    ctx.options,
    "maxResponseBytes",
    WEB_FETCH_DEFAULT_MAX_RESPONSE_BYTES,
  );
  let text: string;
  try {
    text = await renderBody(response, maxBytes);
  } catch (err) {
    return fail(`Reading the response of "${current.href}" failed: ${errorMessage(err)}`);
  }
  const lines = [`HTTP ${response.status} ${response.statusText}`.trimEnd()];
  if (current.href !== url.href) lines.push(`url: ${current.href}`);
  for (const name of WEB_FETCH_SHOWN_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) lines.push(`${name}: ${value}`);
  }
  const content = `${lines.join("\n")}\n\n${text}`;
  return response.ok ? ok(content) : fail(content);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether a content type is text the model can read. */
function isTextual(contentType: string | null): boolean {
  if (contentType === null) return true;
  const type = contentType.split(";")[0].trim().toLowerCase();
  return type.startsWith("text/") || /[/+](json|xml|javascript|x-www-form-urlencoded|yaml)$/
    .test(type) ||
    type === "";
}

/** The body as text, read up to `maxBytes`; the rest is cancelled, not downloaded. */
async function renderBody(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  const contentType = response.headers.get("content-type");
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > maxBytes) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  const kept = bytes.subarray(0, Math.min(size, maxBytes));
  if (!isTextual(contentType) || kept.subarray(0, 8192).includes(0)) {
    return `[binary body (${contentType ?? "no content-type"}) of ${
      truncated ? `more than ${maxBytes}` : size
    } bytes not shown]`;
  }
  const text = decodeText(truncated ? wholeChars(kept) : kept);
  return truncated ? `${text}\n[truncated: the body is longer than ${maxBytes} bytes]` : text;
}
