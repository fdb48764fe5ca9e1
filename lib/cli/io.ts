/**
 * The edge of the program: arguments, environment, standard streams. Commands take an
 * `Io` so tests run the CLI in-process with captured output and a fake environment.
 *
 * @module
 */

/** Everything the CLI reads from or writes to the outside world. */
export interface Io {
  /** Writes text to standard output. */
  out(text: string): void;
  /** Writes text to standard error. */
  err(text: string): void;
  /** Reads an environment variable. */
  getEnv(name: string): string | undefined;
  /** The whole environment (tools inherit a filtered copy of it). */
  envObject(): Record<string, string>;
  /** The directory the user ran the command from. */
  cwd(): string;
  /** Whether each standard stream is a terminal. */
  isTerminal: { stdin: boolean; stdout: boolean; stderr: boolean };
  /** Reads all of standard input as text. */
  readStdin(): Promise<string>;
  /** Reads one line from standard input (interactive prompts), `null` at end of input. */
  readLine(): Promise<string | null>;
}

const encoder = new TextEncoder();

function writeAllSync(fd: { writeSync(p: Uint8Array): number }, text: string): void {
  let data = encoder.encode(text);
  while (data.length > 0) data = data.subarray(fd.writeSync(data));
}

/** Reads a variable; one harness may not read (narrow `--allow-env`) reads as unset. */
function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

function envGranted(): boolean {
  return Deno.permissions.querySync({ name: "env" }).state === "granted";
}

/** The real process: `Deno.stdout`, `Deno.env`, `Deno.cwd()`. */
export function processIo(): Io {
  let lineReader: ReadableStreamDefaultReader<string> | undefined;
  let buffered = "";
  return {
    out: (text) => writeAllSync(Deno.stdout, text),
    err: (text) => writeAllSync(Deno.stderr, text),
    getEnv: readEnv,
    // Under a grant without --allow-env, tools get an empty environment.
    envObject: () => (envGranted() ? Deno.env.toObject() : {}),
    // Under `deno task`, the task runs in the config's directory; INIT_CWD is where the
    // user ran it, which is what `-C` defaults to.
    cwd: () => readEnv("INIT_CWD") ?? Deno.cwd(),
    isTerminal: {
      stdin: Deno.stdin.isTerminal(),
      stdout: Deno.stdout.isTerminal(),
      stderr: Deno.stderr.isTerminal(),
    },
    readStdin: () => new Response(Deno.stdin.readable).text(),
    async readLine() {
      lineReader ??= Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
      while (!buffered.includes("\n")) {
        const { value, done } = await lineReader.read();
        if (done) {
          if (buffered === "") return null;
          const rest = buffered;
          buffered = "";
          return rest;
        }
        buffered += value;
      }
      const i = buffered.indexOf("\n");
      const line = buffered.slice(0, i).replace(/\r$/, "");
      buffered = buffered.slice(i + 1);
      return line;
    },
  };
}
