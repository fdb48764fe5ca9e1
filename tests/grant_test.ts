/**
 * Checks that `scripts/grant.ts` is the one definition of how harness runs: the
 * `harness` task, the compiled binary and deno.json agree with it, and every module
 * loaded at run time is reachable in a compiled binary.
 */

import assert from "node:assert/strict";
import { ENTRY, INCLUDES, PERMISSION_FLAGS, runArgs, UNSTABLE_FLAGS } from "../scripts/grant.ts";
import { compileArgs } from "../scripts/compile.ts";

const ROOT = new URL("../", import.meta.url);

/** The directories whose modules end up in the binary. */
const SOURCE_DIRS = ["lib", "tools"];

/** A module load at run time that a compiled binary may not be able to satisfy. */
interface RuntimeLoad {
  /** Repository-relative path of the module that loads. */
  file: string;
  /** 1-based line of the load. */
  line: number;
  /** What is wrong and how to fix it. */
  problem: string;
}

/**
 * Blanks comments, and the insides of strings, template literals and regular
 * expressions, keeping every other character at its offset. Code found in the result is
 * code, not text about code; the literal itself is read from the original at the same
 * offset.
 */
function codeShape(source: string): string {
  const out = source.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  let i = 0;
  let last = ""; // the last significant code character, to tell a regex from a division
  let lastWord = "";
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? source.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? source.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === "\\" ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      last = c;
    } else if (
      c === "/" &&
      (last === "" || "(,=:[!&|?{};+-*%<>~^".includes(last) ||
        ["return", "typeof", "case", "in", "of", "void", "throw", "await", "yield"]
          .includes(lastWord))
    ) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && source[j] !== "\n") {
        if (source[j] === "\\") j++;
        else if (source[j] === "[") inClass = true;
        else if (source[j] === "]") inClass = false;
        else if (source[j] === "/" && !inClass) break;
        j++;
      }
      blank(i + 1, j);
      i = j + 1;
      last = "/";
      lastWord = "";
    } else {
      if (!/\s/.test(c)) {
        last = c;
        lastWord = /[\w$]/.test(c) ? (/[\w$]/.test(source[i - 1] ?? "") ? lastWord + c : c) : "";
      }
      i++;
    }
  }
  return out.join("");
}

/** The string literal (quotes or a backtick template without `${`) that starts at `at`. */
function literalAt(source: string, at: number): string | undefined {
  const m = /^(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\$]|\\.|\$(?!\{))*)`)/
    .exec(source.slice(at));
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

/** Resolves `spec` against the repository-relative module `file`, or undefined if not relative. */
function resolveFrom(file: string, spec: string): string | undefined {
  if (!spec.startsWith("./") && !spec.startsWith("../")) return undefined;
  const url = new URL(spec, new URL(file, "file:///repo/"));
  return url.pathname.replace(/^\/repo\//, "");
}

/**
 * Finds the run-time module loads in one module that a compiled binary cannot be
 * trusted to satisfy: a dynamic `import()` whose specifier is not a literal, and a
 * `new Worker()` whose module is not listed in `INCLUDES` (or cannot be told).
 */
function findRuntimeLoads(
  file: string,
  source: string,
  includes: readonly string[],
): RuntimeLoad[] {
  const shape = codeShape(source);
  const lineOf = (at: number) => source.slice(0, at).split("\n").length;
  const loads: RuntimeLoad[] = [];
  const argAt = (at: number) => at + /^\s*/.exec(shape.slice(at))![0].length;

  for (const m of shape.matchAll(/(?<![\w$.])import\s*\(/g)) {
    const arg = argAt(m.index + m[0].length);
    if (literalAt(source, arg) === undefined) {
      loads.push({
        file,
        line: lineOf(m.index),
        problem: "dynamic import() with a non-literal specifier: use a string literal, " +
          "so deno compile embeds the module",
      });
    }
  }

  // Worker module URLs: new URL("<literal>", import.meta.url) or import.meta.resolve("<literal>").
  const urlForm = /(?<![\w$.])(?:new\s+URL|import\.meta\.resolve)\s*\(\s*/g;
  const urlAt = (at: number): string | undefined => {
    const literal = literalAt(source, at);
    return literal === undefined ? undefined : resolveFrom(file, literal) ?? literal;
  };
  /** Every module URL in the expression that starts at `at` (up to the end of its statement). */
  const urlsIn = (at: number, end: number): string[] =>
    [...shape.slice(at, end).matchAll(urlForm)].map((u) =>
      urlAt(at + u.index + u[0].length) ?? "(not a literal)"
    );
  for (const m of shape.matchAll(/(?<![\w$.])new\s+Worker\s*\(/g)) {
    const arg = argAt(m.index + m[0].length);
    let targets: string[];
    let form: RegExpExecArray | null;
    const direct = urlAt(arg);
    if (direct !== undefined) {
      targets = [direct];
    } else if ((form = new RegExp(`^${urlForm.source}`).exec(shape.slice(arg))) !== null) {
      targets = [urlAt(arg + form[0].length) ?? "(not a literal)"];
    } else {
      // A name (`url`, `W.href`, `this.#url`): the URL forms assigned to it in this module,
      // such as `this.#url = opts.workerUrl ?? new URL("./worker_main.ts", import.meta.url)`.
      const name = /^(?:this\.)?([\w$#]+)/.exec(shape.slice(arg))?.[1];
      targets = [];
      if (name !== undefined) {
        const escaped = name.replace(/\$/g, "\\$");
        const assign = new RegExp(`(?<![\\w$#])${escaped}\\s*(?::[^=;(){}]+)?=(?![=>])`, "g");
        for (const a of shape.matchAll(assign)) {
          const from = a.index + a[0].length;
          const semi = shape.indexOf(";", from);
          targets.push(...urlsIn(from, semi === -1 ? shape.length : semi));
        }
      }
    }
    if (targets.length === 0 || targets.includes("(not a literal)")) {
      loads.push({
        file,
        line: lineOf(m.index),
        problem: "new Worker() with a module URL that cannot be read from the source: use " +
          'new URL("./module.ts", import.meta.url) and list the module in INCLUDES',
      });
    }
    for (const target of targets.filter((t) => t !== "(not a literal)")) {
      if (!includes.includes(target)) {
        loads.push({
          file,
          line: lineOf(m.index),
          problem: `new Worker() loads "${target}", which is not in INCLUDES: add it to ` +
            "INCLUDES in scripts/grant.ts, or deno compile will not embed it",
        });
      }
    }
  }
  return loads;
}

/** The entry and every module under the source directories, except tests (not in the binary). */
async function sourceFiles(): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(new URL(dir, ROOT)));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (/\.(ts|tsx|js|mjs)$/.test(entry.name) && !/_test\.[jt]sx?$/.test(entry.name)) {
        files.push(path);
      }
    }
  };
  for (const dir of SOURCE_DIRS) await walk(dir);
  return [ENTRY, ...files.sort()];
}

Deno.test("runArgs() is exactly the harness task of deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  assert.equal(config.tasks.harness, ["deno", ...runArgs()].join(" "));
  assert.deepEqual(runArgs(), ["run", ...PERMISSION_FLAGS, ENTRY]);
});

Deno.test("UNSTABLE_FLAGS are the unstable features deno.json enables for deno run", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  assert.deepEqual(
    UNSTABLE_FLAGS.map((flag) => flag.replace(/^--unstable-/, "")).sort(),
    [...config.unstable].sort(),
  );
});

Deno.test("compileArgs() uses the grant's flags, includes and entry", () => {
  const args = compileArgs("aarch64-unknown-linux-gnu", "0.0.0", "dist");
  const at = args.indexOf(PERMISSION_FLAGS[0]);
  assert.deepEqual(args.slice(at, at + PERMISSION_FLAGS.length), [...PERMISSION_FLAGS]);
  for (const flag of UNSTABLE_FLAGS) assert.ok(args.includes(flag), flag);
  for (const include of INCLUDES) {
    assert.equal(args[args.indexOf(include) - 1], "--include", include);
  }
  assert.equal(args.at(-1), ENTRY);
  assert.ok(!args.some((arg) => arg === "-A" || arg === "--allow-all"));
});

Deno.test("INCLUDES and ENTRY name files that exist", async () => {
  const missing: string[] = [];
  for (const path of [ENTRY, ...INCLUDES]) {
    const info = await Deno.stat(new URL(path, ROOT)).catch(() => undefined);
    if (!info?.isFile) missing.push(path);
  }
  assert.deepEqual(missing, [], "scripts/grant.ts lists files that do not exist");
});

Deno.test("findRuntimeLoads() flags non-literal import() and Workers not in INCLUDES", () => {
  const source = [
    'const a = await import("./a.ts");', // literal: fine
    "const b = await import(`./b.ts`);", // template without substitution: fine
    "const c = await import(`./${name}.ts`);", // line 3: non-literal
    "const d = await import(spec);", // line 4: non-literal
    '// await import(spec) in a comment, and "import(spec)" in a string', // ignored
    "const re = /import\\(x/;", // a regular expression: ignored
    'new Worker(new URL("./worker_main.ts", import.meta.url), { type: "module" });', // listed
    'new Worker(new URL("./other.ts", import.meta.url));', // line 8: not listed
    'const W = new URL("./worker_main.ts", import.meta.url);',
    "new Worker(W.href);", // resolved through the const: listed
    "new Worker(someUrl);", // line 11: unknown
    'new Worker(import.meta.resolve("../../tools/t.ts"));', // line 12: not listed
    "type T = typeof import('./types.ts');", // literal: fine
    "this.#url = opts.workerUrl ?? new URL('./worker_main.ts', import.meta.url);",
    "new Worker(this.#url, { type: 'module' });", // resolved through the field: listed
    "this.#other = opts.workerUrl;",
    "new Worker(this.#other);", // line 17: no module URL assigned
    "new Worker(new URL(name, import.meta.url));", // line 18: not a literal
  ].join("\n");
  const loads = findRuntimeLoads("lib/exec/worker.ts", source, ["lib/exec/worker_main.ts"]);
  assert.deepEqual(loads.map((load) => load.line), [3, 4, 8, 11, 12, 17, 18]);
  assert.match(loads[2].problem, /"lib\/exec\/other\.ts", which is not in INCLUDES/);
  assert.match(loads[4].problem, /"tools\/t\.ts", which is not in INCLUDES/);
});

Deno.test("main.ts and modules under lib/ and tools/ load nothing at run time that a binary lacks", async () => {
  const files = await sourceFiles();
  assert.ok(files.length > 1, "no modules found under lib/ or tools/");
  const loads: RuntimeLoad[] = [];
  for (const file of files) {
    const source = await Deno.readTextFile(new URL(file, ROOT)).catch(() => undefined);
    if (source !== undefined) loads.push(...findRuntimeLoads(file, source, INCLUDES));
  }
  assert.deepEqual(
    loads.map(({ file, line, problem }) => `${file}:${line}: ${problem}`),
    [],
  );
});
