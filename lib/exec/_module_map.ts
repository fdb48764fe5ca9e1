/**
 * The built-in tool modules a tool Worker can run, statically imported so a
 * compiled binary embeds them. Never import tools by a run-time path: a Worker's
 * dynamic `import()` is checked against the parent's read permission (DENO-NOTES §2).
 *
 * @module
 */
export { BUILTIN_TOOLS } from "../../tools/mod.ts";
