/**
 * A throw-away project directory for the built-in tool tests, next to an "outside"
 * directory that holds a secret the tools must never reveal or change.
 *
 * @module
 */

/** The text of `outside/secret.txt`. */
export const SECRET = "top-secret-value";

/** A temporary project and its surroundings, all real paths. */
export interface TempProject extends AsyncDisposable {
  /** The directory holding both `project` and `outside`. */
  root: string;
  /** The project directory (real path). */
  project: string;
  /** A directory outside the project with `secret.txt`. */
  outside: string;
  /** Writes a file inside the project, creating parents. */
  write(relative: string, content: string | Uint8Array): Promise<void>;
  /** Creates a symbolic link `relative` inside the project pointing at `target`. */
  link(relative: string, target: string): Promise<void>;
}

/**
 * Creates a temporary project; dispose it to remove everything.
 *
 * @returns The project, an `AsyncDisposable` for `await using`.
 */
export async function makeTempProject(): Promise<TempProject> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "harness_builtin_" }));
  const project = `${root}/project`;
  const outside = `${root}/outside`;
  await Deno.mkdir(project);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${outside}/secret.txt`, SECRET);
  const parentOf = (p: string) => p.slice(0, p.lastIndexOf("/"));
  return {
    root,
    project,
    outside,
    async write(relative, content) {
      const path = `${project}/${relative}`;
      await Deno.mkdir(parentOf(path), { recursive: true });
      if (typeof content === "string") await Deno.writeTextFile(path, content);
      else await Deno.writeFile(path, content);
    },
    async link(relative, target) {
      const path = `${project}/${relative}`;
      await Deno.mkdir(parentOf(path), { recursive: true });
      await Deno.symlink(target, path);
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}
