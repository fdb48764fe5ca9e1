/**
 * Keeps the generated tables of the README true: the diagnostic codes (from the code
 * catalogue) and the built-in tools (from their definitions). `deno task readme`
 * rewrites them; a test fails when the README is out of date.
 *
 * @module
 */
import { ALL_CODES } from "../lib/tools/codes.ts";
import { BUILTIN_TOOLS } from "../tools/mod.ts";

/** Markers around a generated section. */
export function markers(name: string): [string, string] {
  return [`<!-- generated:${name} -->`, `<!-- /generated:${name} -->`];
}

function escapeCell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** The table of diagnostic codes. */
export function codesTable(): string {
  const rows = ALL_CODES.map((c) => `| \`${c.code}\` | ${c.severity} | ${escapeCell(c.summary)} |`);
  return ["| code | severity | what it checks |", "| --- | --- | --- |", ...rows].join("\n");
}

/** The table of built-in tools. */
export function builtinsTable(): string {
  const rows = Object.values(BUILTIN_TOOLS).map((t) => {
    const params = Object.keys(t.parameters.properties).map((p) =>
      t.parameters.required.includes(p) ? `\`${p}\`` : `\`${p}?\``
    ).join(", ");
    return `| \`${t.name}\` | ${params} | ${t.approval} | ${t.readOnly ? "yes" : "no"} | ${
      escapeCell(t.description.split("\n")[0])
    } |`;
  });
  return [
    "| tool | arguments | approval | read-only | what it does |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/** The README with its generated sections rewritten. */
export function renderReadme(text: string): string {
  let out = text;
  for (const [name, table] of [["codes", codesTable()], ["builtins", builtinsTable()]] as const) {
    const [open, close] = markers(name);
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`README.md has no ${open} … ${close} section`);
    out = `${out.slice(0, start + open.length)}\n${table}\n${out.slice(end)}`;
  }
  return out;
}

if (import.meta.main) {
  const path = new URL("../README.md", import.meta.url);
  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, renderReadme(text));
  console.log("README.md tables updated");
}
