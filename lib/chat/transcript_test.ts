import assert from "node:assert/strict";
import { openTranscript } from "./transcript.ts";

/** A clock that ticks one second per reading, from 2024-01-01T00:00:00Z. */
function fakeClock() {
  let t = Date.UTC(2024, 0, 1);
  return () => new Date((t += 1000) - 1000);
}

async function tempFile(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "harness_transcript_" });
  return `${dir}/run.jsonl`;
}

Deno.test("openTranscript() writes one JSON line per record, through to the file", async () => {
  const path = await tempFile();
  const transcript = openTranscript(path, fakeClock());
  try {
    transcript.write({ type: "run_start", model: "m" });
    assert.equal(
      await Deno.readTextFile(path),
      '{"ts":"2024-01-01T00:00:00.000Z","type":"run_start","model":"m"}\n',
      "the first record is on disk before the next write",
    );
    transcript.write({ type: "tool_result", content: "line 1\nline 2" });
    const lines = (await Deno.readTextFile(path)).split("\n");
    assert.equal(lines.length, 3, "two lines and the final newline");
    assert.equal(lines[2], "");
    assert.deepEqual(JSON.parse(lines[1]), {
      ts: "2024-01-01T00:00:01.000Z",
      type: "tool_result",
      content: "line 1\nline 2",
    });
  } finally {
    transcript.close();
    await Deno.remove(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  }
});

Deno.test("openTranscript() appends to an existing file", async () => {
  const path = await tempFile();
  try {
    await Deno.writeTextFile(path, '{"type":"earlier"}\n');
    const transcript = openTranscript(path, fakeClock());
    transcript.write({ type: "later" });
    transcript.close();
    const again = openTranscript(path, fakeClock());
    again.write({ type: "second run" });
    again.close();
    const types = (await Deno.readTextFile(path)).trimEnd().split("\n").map((l) =>
      JSON.parse(l).type
    );
    assert.deepEqual(types, ["earlier", "later", "second run"]);
  } finally {
    await Deno.remove(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  }
});

Deno.test("openTranscript() drops writes after close and closes once", async () => {
  const path = await tempFile();
  try {
    const transcript = openTranscript(path, fakeClock());
    transcript.write({ type: "a" });
    transcript.close();
    transcript.write({ type: "b" });
    transcript.close();
    assert.equal((await Deno.readTextFile(path)).split("\n").length, 2);
  } finally {
    await Deno.remove(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  }
});

Deno.test("openTranscript() throws NotFound when the directory does not exist", async () => {
  const path = await tempFile();
  const missing = `${path.slice(0, path.lastIndexOf("/"))}/no/such/dir/run.jsonl`;
  try {
    assert.throws(() => openTranscript(missing), Deno.errors.NotFound);
  } finally {
    await Deno.remove(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  }
});
