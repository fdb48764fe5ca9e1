import { createOpenAIProvider } from "./lib/chat/provider.ts";
import { startFakeOpenAI } from "./tests/fake_openai.ts";
globalThis.addEventListener("unhandledrejection", (e) => { console.log("UNHANDLED", e.reason, e.promise); e.preventDefault(); });
const HELLO = 'data: {"id":"r1","choices":[{"index":0,"delta":{"content":"Hello"}}]}\n\n' +
  'data: {"id":"r1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
const fake = startFakeOpenAI([{ sse: HELLO, chunkDelayMs: 500 }]);
const ctl = new AbortController();
const port = createOpenAIProvider({ baseUrl: fake.url, model: "m" });
try {
  for await (const e of port.stream({ messages: [{ role: "user", content: "hi" }], tools: [] }, { signal: ctl.signal })) {
    console.log("event", e.type); ctl.abort(); console.log("aborted");
  }
} catch (e) { console.log("caught", (e as Error).message); }
await fake.close();
