/**
 * `grep`: lines that contain a literal string (Contenox `local_fs` `grep`: a substring,
 * not a regular expression; output `line_number: content`).
 *
 * Improvements over the original, which reads one file: a directory is searched
 * recursively in name order, skipping the directories in {@linkcode GREP_SKIP_DIRS},
 * binary files, files over {@linkcode GREP_MAX_FILE_BYTES} and symbolic links (never
 * followed); each line is then prefixed with the file's path relative to the project,
 * `src/a.ts:12: content`. Output stops after {@linkcode GREP_MAX_MATCHES} matches, long
 * lines are cut at {@linkcode GREP_MAX_LINE_CHARS} characters, and both are noted.
 *
 * @module
 */
import { join, relativeTo, resolveInProject } from "./_paths.ts";
import { decodeText, ioFailure, looksBinary, readCapped, splitLines } from "./_io.ts";
import {
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  fail,
  isResult,
  NO_OPTIONS_SCHEMA,
  ok,
  stringArg,
} from "./_types.ts";

/** The most matching lines `grep` returns. */
export const GREP_MAX_MATCHES = 200;
/** Matching lines longer than this many characters are cut. */
export const GREP_MAX_LINE_CHARS = 300;
/** Files larger than this many bytes (5 MiB) are skipped. */
export const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** The most files one directory search reads. */
export const GREP_MAX_FILES = 20_000;
/** Directory names a recursive search skips. */
export const GREP_SKIP_DIRS: readonly string[] = [".git", "node_modules"];

/** The `grep` built-in tool. */
export const grepTool: BuiltinTool = {
  name: "grep",
  description:
    "Find lines containing a literal string (not a regular expression) in a file, or recursively in a directory of the project. Returns line_number: content (path:line_number: content for a directory).",
  parameters: {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: "File or directory, relative to the project root (. for the whole project)",
      },
      pattern: { type: "string", description: "The exact text to search for" },
    },
    required: ["path", "pattern"],
    additionalProperties: false,
  },
  approval: "never",
  readOnly: true,
  optionsSchema: { ...NO_OPTIONS_SCHEMA },
  permissions: ({ projectDir }) => ({ read: [projectDir] }),
  execute: grep,
};

interface Search {
  pattern: string;
  matches: string[];
  filesRead: number;
  skippedLarge: number;
  /** Stopped early: too many matches or files. */
  stopped: "" | "matches" | "files";
  signal?: AbortSignal;
}

async function grep(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult> {
  const path = stringArg(args, "path");
  if (isResult(path)) return path;
  const pattern = stringArg(args, "pattern");
  if (isResult(pattern)) return pattern;
  if (pattern === "") return fail(`Pattern is empty: pass the text to search for`);
  if (pattern.includes("\n")) {
    return fail(`Pattern contains a newline: grep matches within one line: search for one line`);
  }
  const target = await resolveInProject(ctx.projectDir, path, { mustExist: true });
  if (!target.ok) return fail(target.message);
  const search: Search = {
    pattern,
    matches: [],
    filesRead: 0,
    skippedLarge: 0,
    stopped: "",
    signal: ctx.signal,
  };
  try {
    const info = await Deno.stat(target.path);
    if (info.isDirectory) {
      await searchDir(ctx.projectDir, target.path, search);
    } else {
      const read = await readCapped(target.path, GREP_MAX_FILE_BYTES);
      if (read.truncated) {
        return fail(
          `Cannot search "${target.relative}": it is larger than ${GREP_MAX_FILE_BYTES} bytes: use read_file_range`,
        );
      }
      if (looksBinary(read.bytes)) {
        return fail(`Cannot search "${target.relative}": it is a binary file`);
      }
      searchText(decodeText(read.bytes), "", search);
    }
  } catch (err) {
    if (ctx.signal?.aborted) return fail(`Searching "${target.relative}" was cancelled`);
    return fail(ioFailure("search", target.relative, err));
  }
  return ok(render(target.relative, search));
}

function render(relative: string, s: Search): string {
  const notes: string[] = [];
  if (s.stopped === "matches") {
    notes.push(
      `[truncated: stopped after ${GREP_MAX_MATCHES} matches: narrow the path or the pattern]`,
    );
  }
  if (s.stopped === "files") {
    notes.push(`[truncated: stopped after reading ${GREP_MAX_FILES} files: narrow the path]`);
  }
  if (s.skippedLarge > 0) {
    notes.push(
      `[skipped ${s.skippedLarge} file${
        s.skippedLarge === 1 ? "" : "s"
      } larger than ${GREP_MAX_FILE_BYTES} bytes]`,
    );
  }
  const body = s.matches.length === 0
    ? `No matches for "${s.pattern}" in "${relative}"`
    : s.matches.join("\n");
  return [body, ...notes].join("\n");
}

/** Adds the matching lines of one file; `prefix` is `path:` in a directory search. */
function searchText(text: string, prefix: string, s: Search): void {
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].includes(s.pattern)) continue;
    if (s.matches.length >= GREP_MAX_MATCHES) {
      s.stopped = "matches";
      return;
    }
    const line = lines[i].length > GREP_MAX_LINE_CHARS
      ? `${lines[i].slice(0, GREP_MAX_LINE_CHARS)}… [line cut at ${GREP_MAX_LINE_CHARS} characters]`
      : lines[i];
    s.matches.push(`${prefix}${i + 1}: ${line}`);
  }
}

async function searchDir(projectDir: string, dir: string, s: Search): Promise<void> {
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (s.stopped !== "") return;
    s.signal?.throwIfAborted();
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      if (!GREP_SKIP_DIRS.includes(entry.name)) await searchDir(projectDir, path, s);
      continue;
    }
    if (!entry.isFile) continue;
    if (s.filesRead >= GREP_MAX_FILES) {
      s.stopped = "files";
      return;
    }
    s.filesRead++;
    let read;
    try {
      read = await readCapped(path, GREP_MAX_FILE_BYTES);
    } catch {
      continue; // Vanished or unreadable while walking: not the model's concern.
    }
    if (read.truncated) {
      s.skippedLarge++;
      continue;
    }
    if (looksBinary(read.bytes)) continue;
    searchText(decodeText(read.bytes), `${relativeTo(projectDir, path)}:`, s);
  }
}
