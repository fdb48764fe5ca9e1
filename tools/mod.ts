/**
 * The built-in tools of harness, one TypeScript module each, run inside a Deno Worker
 * whose permissions are exactly what the tool's `permissions()` returns. They follow
 * Contenox's `local_fs`, `local_shell` and `webhook` hooks, improved where noted.
 *
 * Every path argument is relative to the project; `..`, absolute paths elsewhere and
 * symbolic links that lead outside are refused (`tools/_paths.ts`). Failures are
 * results with `isError: true`, never exceptions.
 *
 * | tool | arguments | approval | read-only | permissions | options (default) | output cap |
 * | --- | --- | --- | --- | --- | --- | --- |
 * | `read_file` | `path` | never | yes | read: project | – | 100 KiB, then a note naming `read_file_range` |
 * | `read_file_range` | `path`, `start_line`, `end_line` (1-based, inclusive) | never | yes | read: project | – | 100 KiB |
 * | `list_dir` | `path` (default `.`) | never | yes | read: project | – | 1000 entries |
 * | `grep` | `path` (file or directory), `pattern` (literal) | never | yes | read: project | – | 200 matches, lines cut at 300 chars, files over 5 MiB skipped |
 * | `stat_file` | `path` | never | yes | read: project | – | – |
 * | `count_stats` | `path` | never | yes | read: project | – | – |
 * | `write_file` | `path`, `content` | destructive | no | read, write: project | – | – |
 * | `edit` | `path`, `search`, `replacement` | destructive | no | read, write: project | – | files up to 5 MiB |
 * | `shell` | `command`, `args`, `cwd`, `timeout`, `shell` | always | no | read: project (+ `allowedDir`); env: `envPassthrough`; run: `allowedCommands`, else `/bin/sh` | `allowedCommands` (none: every call refused), `deniedCommands` (sudo, su, doas, pkexec, runuser, dd, mkfs, mke2fs, mkswap, fdisk, sfdisk, parted, wipefs, shred, blkdiscard), `allowedDir` (none), `allowAnyCommand` (false), `timeoutMs` (30000), `maxTimeoutMs` (600000), `maxOutputBytes` (102400 per stream), `envPassthrough` (PATH, HOME, USER, LANG, LC_ALL, TZ, TERM, TMPDIR) | `maxOutputBytes` per stream, head and tail kept |
 * | `web_fetch` | `url`, `method` (default GET), `query`, `headers`, `body` | always | no | net: `hosts` | `hosts` (none: every call refused), `timeoutMs` (30000), `maxResponseBytes` (102400) | `maxResponseBytes` |
 *
 * Differences from Contenox: `sed` is called `edit` and its arguments are `search` and
 * `replacement`, it reports how many occurrences it replaced and zero matches is an
 * error; `read_file_range` reports out-of-range lines instead of returning nothing;
 * `grep` also searches directories; `stat_file`'s `modTime` is `modified`; `shell`
 * refuses every call until an allowlist or `allowAnyCommand` is set (the original's
 * code does the same, its documentation says otherwise) and its default timeout is
 * 30 s (the original's is 60 s); `web_fetch` defaults to GET (the original, POST) and
 * calls only the hosts in `hosts`.
 *
 * @module
 */
import type { BuiltinTool } from "./_types.ts";
import { countStatsTool } from "./count_stats.ts";
import { editTool } from "./edit.ts";
import { grepTool } from "./grep.ts";
import { listDirTool } from "./list_dir.ts";
import { readFileTool } from "./read_file.ts";
import { readFileRangeTool } from "./read_file_range.ts";
import { shellTool } from "./shell.ts";
import { statFileTool } from "./stat_file.ts";
import { webFetchTool } from "./web_fetch.ts";
import { writeFileTool } from "./write_file.ts";

export type { BuiltinContext, BuiltinPermissions, BuiltinResult, BuiltinTool } from "./_types.ts";

/** Every built-in tool by name, in the order they are listed. */
export const BUILTIN_TOOLS: Readonly<Record<string, BuiltinTool>> = Object.freeze({
  read_file: readFileTool,
  read_file_range: readFileRangeTool,
  list_dir: listDirTool,
  grep: grepTool,
  stat_file: statFileTool,
  count_stats: countStatsTool,
  write_file: writeFileTool,
  edit: editTool,
  shell: shellTool,
  web_fetch: webFetchTool,
});
