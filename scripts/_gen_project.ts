/**
 * Generates a project with N tools, a third per format, for benchmarks.
 *
 * @module
 */

/**
 * Writes a project with `n` tools into `dir`: Octomind scripts, Nanocoder files and
 * one `tools.json` whose entries share one program.
 *
 * @param dir An empty directory.
 * @param n How many tools.
 */
export async function generateProject(dir: string, n: number): Promise<void> {
  await Deno.mkdir(`${dir}/.agents/tools`, { recursive: true });
  await Deno.mkdir(`${dir}/.nanocoder/tools`, { recursive: true });
  await Deno.mkdir(`${dir}/tools/bin`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/harness.jsonc`,
    `{ "tools": { "personal": false, "builtins": {} } }\n`,
  );
  const entries: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const name = `tool_${String(i).padStart(4, "0")}`;
    if (i % 3 === 0) {
      const path = `${dir}/.agents/tools/${name}`;
      await Deno.writeTextFile(
        path,
        `#!/bin/sh\n# @description Tool ${i}: echo a message.\n# @param *message string The text\n# @param count integer How many times\n# @allow read .\nprintf '%s\\n' "$OCTOMIND_PARAM_MESSAGE"\n`,
      );
      await Deno.chmod(path, 0o755);
    } else if (i % 3 === 1) {
      await Deno.writeTextFile(
        `${dir}/.nanocoder/tools/${name}.md`,
        `---\nname: ${name}\ndescription: Tool ${i} lists files.\nparameters:\n  path:\n    type: string\n    required: true\n    description: Directory\n  all:\n    type: boolean\napproval: never\n---\nls {{# all }}-a {{/ all }}{{ path }}\n`,
      );
    } else {
      entries.push({
        name,
        description: `Tool ${i} prints the time`,
        schema: {
          type: "object",
          properties: { tz: { type: "string" } },
          additionalProperties: false,
        },
        command: ["./tools/bin/now"],
        timeoutSec: 5,
      });
    }
  }
  await Deno.writeTextFile(`${dir}/tools.json`, JSON.stringify({ tools: entries }, null, 2));
  await Deno.writeTextFile(`${dir}/tools/bin/now`, "#!/bin/sh\ndate -u\n");
  await Deno.chmod(`${dir}/tools/bin/now`, 0o755);
}
