/**
 * Lint rules that look beyond the tool's own text: the interpreter a script's shebang
 * names, the program a manifest runs, and the Nanocoder template against its declared
 * parameters.
 *
 * @module
 */
import { mapConcurrent } from "../_concurrent.ts";
import { locate } from "../config/_positions.ts";
import type { CodeInfo, Diagnostic, ToolDefinition } from "../types.ts";

/** Codes emitted by this module. */
export const DISK_CODES: readonly CodeInfo[] = [
  {
    code: "octomind/interpreter-not-found",
    severity: "error",
    summary: "The shebang names an interpreter that is not installed or not on PATH",
  },
  {
    code: "manifest/command-not-found",
    severity: "error",
    summary: "command[0] does not exist (agentcli refuses to start)",
  },
  {
    code: "manifest/command-not-executable",
    severity: "error",
    summary: "command[0] is not executable (agentcli refuses to start)",
  },
];

/**
 * Runs the on-disk rules over loaded tools.
 *
 * @param tools The loaded tools.
 * @param getEnv Reads the environment (PATH).
 */
export async function lintOnDisk(
  tools: ToolDefinition[],
  getEnv: (name: string) => string | undefined,
): Promise<Diagnostic[]> {
  const path = getEnv("PATH") ?? "";
  const template = tools.some((t) => t.runner.kind === "template")
    ? await import("./template.ts")
    : undefined;
  // Each check reads or stats files: run them concurrently, report in tool order.
  const found = await mapConcurrent(
    tools,
    DISK_CONCURRENCY,
    async (tool): Promise<Diagnostic[]> => {
      const runner = tool.runner;
      if (runner.kind === "script") return orNone(await checkShebang(tool, runner.program, path));
      if (runner.kind === "argv") return orNone(await checkCommand(tool, runner.argv[0]));
      if (runner.kind === "template") return await checkTemplate(tool, runner.body, template!);
      return [];
    },
  );
  return found.flat();
}

/** Tools checked at once. */
const DISK_CONCURRENCY = 32;

function orNone(d: Diagnostic | undefined): Diagnostic[] {
  return d ? [d] : [];
}

async function readHead(file: string): Promise<string | undefined> {
  try {
    using f = await Deno.open(file);
    const buf = new Uint8Array(512);
    const n = await f.read(buf);
    return new TextDecoder().decode(buf.subarray(0, n ?? 0));
  } catch {
    return undefined;
  }
}

async function isExecutableFile(file: string): Promise<"ok" | "missing" | "not-executable"> {
  try {
    const info = await Deno.stat(file);
    if (!info.isFile) return "missing";
    if (info.mode !== null && (info.mode & 0o111) === 0) return "not-executable";
    return "ok";
  } catch {
    return "missing";
  }
}

/** Finds a program on a PATH string, like `exec.LookPath`. */
export async function lookPath(program: string, path: string): Promise<string | undefined> {
  if (program.includes("/")) {
    return (await isExecutableFile(program)) === "ok" ? program : undefined;
  }
  for (const dir of path.split(":")) {
    if (dir === "") continue;
    const candidate = `${dir}/${program}`;
    if ((await isExecutableFile(candidate)) === "ok") return candidate;
  }
  return undefined;
}

async function checkShebang(
  tool: ToolDefinition,
  file: string,
  path: string,
): Promise<Diagnostic | undefined> {
  if (Deno.build.os === "windows") return undefined;
  const head = await readHead(file);
  if (!head?.startsWith("#!")) return undefined;
  const words = head.slice(2).split(/\r?\n/)[0].trim().split(/\s+/);
  let interpreter = words[0];
  let viaEnv = false;
  if (interpreter.endsWith("/env")) {
    viaEnv = true;
    interpreter = words.slice(1).find((w) => !w.startsWith("-") && !w.includes("=")) ?? "";
  }
  if (interpreter === "") return undefined;
  const found = viaEnv ? await lookPath(interpreter, path) : await lookPath(interpreter, "");
  if (found) return undefined;
  return {
    severity: "error",
    code: "octomind/interpreter-not-found",
    message: viaEnv
      ? `Interpreter "${interpreter}" of tool "${tool.name}" is not on PATH, so the script cannot start: install it or fix the shebang`
      : `Interpreter "${interpreter}" of tool "${tool.name}" does not exist or is not executable, so the script cannot start: install it or fix the shebang`,
    file,
    line: 1,
    column: 1,
    tool: tool.name,
  };
}

async function checkCommand(
  tool: ToolDefinition,
  program: string,
): Promise<Diagnostic | undefined> {
  const state = await isExecutableFile(program);
  if (state === "ok") return undefined;
  const detail = state === "missing"
    ? `exec: "${program}": stat ${program}: no such file or directory`
    : `exec: "${program}": permission denied`;
  const d: Diagnostic = {
    severity: "error",
    code: state === "missing" ? "manifest/command-not-found" : "manifest/command-not-executable",
    message:
      `error: configured tool "${tool.name}" is unavailable: ${detail} (program "${program}"): ${
        state === "missing" ? "create the program or fix command[0]" : `run chmod +x ${program}`
      }`,
    file: tool.source.path,
    tool: tool.name,
  };
  if (tool.source.line !== undefined) d.line = tool.source.line;
  return d;
}

async function checkTemplate(
  tool: ToolDefinition,
  body: string,
  template: typeof import("./template.ts"),
): Promise<Diagnostic[]> {
  const schema = tool.parameters as { properties?: Record<string, unknown> } | undefined;
  const declared = Object.keys(schema?.properties ?? {});
  const findings = template.lintTemplate(body, declared);
  const severity = new Map(template.TEMPLATE_CODES.map((c) => [c.code, c.severity]));
  if (findings.length === 0) return [];
  let text = "";
  try {
    text = await Deno.readTextFile(tool.source.path);
  } catch {
    // The file changed under us: report without positions.
  }
  const start = text.lastIndexOf(body);
  return findings.map((f) => {
    const d: Diagnostic = {
      severity: severity.get(f.code) ?? "error",
      code: f.code,
      message: f.message,
      file: tool.source.path,
      tool: tool.name,
    };
    if (start >= 0) Object.assign(d, locate(text, start + f.offset));
    return d;
  });
}
