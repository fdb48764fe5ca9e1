/**
 * A test Worker that runs one built-in tool per message, to prove that the scope a tool
 * declares with `permissions()` is enough and that Deno denies what lies outside it.
 *
 * Messages: `{id, tool, args, projectDir, options}` runs `BUILTIN_TOOLS[tool].execute`;
 * `{id, probe: "read" | "write" | "readDir" | "fetch", path}` does the raw operation without any
 * check of harness, to show what Deno itself allows. Replies: `{id, result}` or
 * `{id, error: "Name: message"}`.
 *
 * @module
 */
import { BUILTIN_TOOLS } from "../../tools/mod.ts";

/** A request to the test worker. */
export type BuiltinWorkerRequest =
  | {
    id: number;
    tool: string;
    args: Record<string, unknown>;
    projectDir: string;
    options: Record<string, unknown>;
  }
  | { id: number; probe: "read" | "write" | "readDir" | "fetch"; path: string };

const worker = self as unknown as {
  onmessage: ((e: MessageEvent<BuiltinWorkerRequest>) => void) | null;
  postMessage(message: unknown): void;
};

worker.onmessage = async (e) => {
  const msg = e.data;
  try {
    if ("probe" in msg) {
      if (msg.probe === "read") await Deno.readTextFile(msg.path);
      else if (msg.probe === "write") await Deno.writeTextFile(msg.path, "probe");
      else if (msg.probe === "readDir") await Array.fromAsync(Deno.readDir(msg.path));
      else await (await fetch(msg.path)).body?.cancel();
      worker.postMessage({ id: msg.id, result: { content: "probe succeeded" } });
      return;
    }
    const tool = BUILTIN_TOOLS[msg.tool];
    const result = await tool.execute(msg.args, {
      projectDir: msg.projectDir,
      options: msg.options,
    });
    worker.postMessage({ id: msg.id, result });
  } catch (err) {
    const e = err as Error;
    worker.postMessage({ id: msg.id, error: `${e.name}: ${e.message}` });
  }
};
