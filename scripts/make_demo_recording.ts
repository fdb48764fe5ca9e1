/**
 * Records `examples/demo/session.jsonl`: runs the real CLI against a local scripted
 * OpenAI-compatible server with `--record`, so the recording holds real requests
 * (made by harness, with the demo's real tools) and the scripted answers.
 * `deno run --allow-all scripts/make_demo_recording.ts` regenerates it.
 *
 * @module
 */
import { runCli } from "../lib/cli/main.ts";
import { processIo } from "../lib/cli/io.ts";
import { startFakeOpenAI } from "../tests/fake_openai.ts";
import { sseResponse, sseText, sseToolCalls } from "../tests/_helpers/sse.ts";

/** The prompt of the demo, as the README runs it. */
export const DEMO_PROMPT = "What is left to do in notes.txt? Stamp your answer with the time.";

const ANSWER = "Open items in notes.txt (4 lines, 15 words), checked at the time utc_now " +
  "reported: tag the release (line 3) and announce it (line 4). The changelog is done.";

if (import.meta.main) {
  const root = new URL("../", import.meta.url).pathname;
  const file = `${root}examples/demo/session.jsonl`;
  await Deno.remove(file).catch(() => {});
  const fake = startFakeOpenAI([
    () =>
      sseResponse(sseToolCalls("chatcmpl-demo-1", [
        { id: "call_todos", name: "find_todos", args: {} },
        { id: "call_stats", name: "file_stats", args: { path: "notes.txt" } },
        { id: "call_clock", name: "utc_now", args: {} },
      ], "Let me look at the notes and the clock.")),
    () => sseResponse(sseText("chatcmpl-demo-2", ANSWER)),
  ]);
  const code = await runCli([
    "-C",
    `${root}examples/demo`,
    "run",
    "--base-url",
    fake.url,
    "--record",
    file,
    DEMO_PROMPT,
  ], processIo());
  await fake.close();
  console.error(`recorded ${file} (exit ${code})`);
  Deno.exit(code);
}
