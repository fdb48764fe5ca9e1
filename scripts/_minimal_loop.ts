/**
 * The baseline of the one-shot benchmark: the smallest Deno agent loop that does what
 * `harness run` does for one tool call (request, SSE, tool spawn, second request,
 * answer), with nothing else. Usage: `deno run -A _minimal_loop.ts URL TOOL`.
 *
 * @module
 */
const [url, tool] = Deno.args;
const messages: unknown[] = [{ role: "user", content: "go" }];
for (let turn = 0; turn < 4; turn++) {
  const res = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages, stream: true }),
  });
  let text = "";
  const calls: { id: string; name: string; args: string }[] = [];
  for (const line of (await res.text()).split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta ?? {};
    text += delta.content ?? "";
    for (const d of delta.tool_calls ?? []) {
      calls[d.index] ??= { id: d.id, name: d.function?.name, args: "" };
      calls[d.index].args += d.function?.arguments ?? "";
    }
  }
  if (calls.length === 0) {
    console.log(text);
    break;
  }
  messages.push({
    role: "assistant",
    content: null,
    tool_calls: calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.args },
    })),
  });
  for (const c of calls) {
    const out = await new Deno.Command(tool, { stdin: "null" }).output();
    messages.push({
      role: "tool",
      tool_call_id: c.id,
      content: new TextDecoder().decode(out.stdout),
    });
  }
}
