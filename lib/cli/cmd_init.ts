/**
 * `harness init`: a commented `harness.jsonc` (with `$schema`, pointing at a copy of
 * the schema written beside it so editors complete it offline), and one example tool
 * per format that passes `harness tools validate`. Never overwrites without `--force`.
 *
 * @module
 */
import schema from "../config/harness.schema.json" with { type: "json" };
import { UsageError } from "../errors.ts";
import type { CommandContext } from "./context.ts";

/** A file `init` writes. */
export interface InitFile {
  path: string;
  text: string;
  mode?: number;
}

/** The files `init` writes, relative to the project directory. */
export function initFiles(): InitFile[] {
  return [
    { path: ".harness/harness.schema.json", text: JSON.stringify(schema, null, 2) + "\n" },
    { path: "harness.jsonc", text: CONFIG },
    { path: ".agents/tools/git_status", text: OCTOMIND, mode: 0o755 },
    { path: ".nanocoder/tools/count_lines.md", text: NANOCODER },
    { path: "tools.json", text: MANIFEST },
    { path: "tools/bin/utc_now", text: UTC_NOW, mode: 0o755 },
  ];
}

/** Builds the `init` action. */
export function initCommand(opts: { force?: boolean }) {
  return async (ctx: CommandContext): Promise<void> => {
    const files = initFiles();
    const existing: string[] = [];
    for (const f of files) {
      try {
        await Deno.lstat(`${ctx.projectDir}/${f.path}`);
        existing.push(f.path);
      } catch {
        // Free to write.
      }
    }
    if (existing.length > 0 && !opts.force) {
      throw new UsageError(
        `Not overwriting existing files: ${existing.map((p) => `"${p}"`).join(", ")}`,
        {
          hint: "run harness init --force to overwrite them",
        },
      );
    }
    for (const f of files) {
      const path = `${ctx.projectDir}/${f.path}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, f.text);
      if (f.mode !== undefined && Deno.build.os !== "windows") await Deno.chmod(path, f.mode);
      ctx.io.out(`${existing.includes(f.path) ? "overwrote" : "wrote"} ${f.path}\n`);
    }
    ctx.io.out("\nNext: harness tools validate && harness tools list\n");
  };
}

const CONFIG = `// harness configuration. Every key is optional; the schema beside this file gives
// completion and checks in editors. Docs: harness --help, and the README.
{
  "$schema": "./.harness/harness.schema.json",

  // "auto" runs every tool with the layers this machine has (see \`harness doctor\`);
  // "strict" (for CI) gives undeclared tools no network, no writes, no extra
  // environment, and refuses a tool whose scope the machine cannot enforce.
  "sandbox": "auto",

  // The ceiling: no tool gets more than this, whatever it declares.
  // "permissions": { "net": ["api.github.com:443"], "env": ["GITHUB_TOKEN"] },

  "tools": {
    // Approval of Octomind and agentcli tools, which have no field of their own.
    "defaults": { "approval": "destructive" },
    // Built-in tools to enable (default: the file tools).
    // "builtins": { "read_file": true, "grep": true, "shell": { "allowedCommands": ["git", "deno"] } },
    "overrides": {
      "git_status": { "approval": "never", "readOnly": true },
      "utc_now": { "approval": "never", "readOnly": true }
    }
  },

  "provider": {
    // Any OpenAI-compatible server: OpenAI, Ollama (http://localhost:11434/v1),
    // vLLM, llama.cpp, LM Studio, OpenRouter, DeepSeek, Mistral.
    "baseUrl": "https://api.openai.com/v1",
    "model": "gpt-4.1-mini"
  },

  "run": { "maxTurns": 20, "approval": "ask" }
}
`;

const OCTOMIND = `#!/usr/bin/env bash
# @description Show the git status of the project (short format).
# @param path string Limit the status to this path
# @allow read .
# @allow run git
set -euo pipefail
git status --short -- "\${OCTOMIND_PARAM_PATH:-.}"
`;

const NANOCODER = `---
name: count_lines
description: Count the lines of a file in the project.
parameters:
  file:
    type: string
    required: true
    description: Path of the file, relative to the project
approval: never
read_only: true
permissions:
  read: ["."]
---
wc -l < {{ file }}
`;

const MANIFEST = `{
  "tools": [
    {
      "name": "utc_now",
      "description": "The current time in UTC, as ISO 8601",
      "schema": { "type": "object", "properties": {}, "additionalProperties": false },
      "command": ["./tools/bin/utc_now"],
      "timeoutSec": 5,
      "permissions": { "read": [], "net": [] }
    }
  ]
}
`;

const UTC_NOW = `#!/bin/sh
# agentcli tool: prints one line of JSON.
printf '{"utc":"%s"}\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
`;
