/**
 * The source text of a tool definition, for `harness tools show`: an Octomind header,
 * a whole Nanocoder file (front matter and template), one manifest entry.
 *
 * @module
 */
import type { ToolDefinition } from "../types.ts";

/** Lines shown of an Octomind script: its header is at most this long. */
export const OCTOMIND_HEADER_LINES = 80;

/**
 * Reads the part of the defining file that defines the tool.
 *
 * @returns A label and the text, or `undefined` for built-ins and unreadable files.
 */
export async function sourceExcerpt(
  tool: ToolDefinition,
): Promise<{ label: string; text: string } | undefined> {
  if (tool.source.format === "builtin") return undefined;
  let text: string;
  try {
    text = await Deno.readTextFile(tool.source.path);
  } catch {
    return undefined;
  }
  switch (tool.source.format) {
    case "nanocoder":
      return { label: "front matter and template", text: text.trimEnd() };
    case "octomind":
      return { label: "header", text: octomindHeader(text) };
    case "manifest":
      return { label: "manifest entry", text: manifestEntry(text, tool.source.line ?? 1) };
  }
}

function octomindHeader(text: string): string {
  const lines = text.split("\n").slice(0, OCTOMIND_HEADER_LINES).map((l) => l.replace(/\r$/, ""));
  const out: string[] = [];
  let started = false;
  for (const [i, line] of lines.entries()) {
    const t = line.trimStart();
    if (i === 0 && t.startsWith("#!")) {
      out.push(line);
      continue;
    }
    if (t === "") {
      if (started) break;
      out.push(line);
      continue;
    }
    if (!/^(#|\/\/|--)/.test(t)) break;
    started = true;
    out.push(line);
  }
  return out.join("\n");
}

/** The JSON object that starts on `line`, found by matching braces outside strings. */
function manifestEntry(text: string, line: number): string {
  const lines = text.split("\n");
  let offset = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  offset = text.indexOf("{", offset);
  if (offset < 0) return lines[line - 1] ?? "";
  let depth = 0;
  let inString = false;
  for (let i = offset; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return text.slice(offset, i + 1);
  }
  return text.slice(offset);
}
