/**
 * The `harness` command. Hands off to `lib/cli`; `--version` is answered before any
 * heavy module loads, so it costs no more than starting Deno.
 *
 * @module
 */
import meta from "./deno.json" with { type: "json" };

if (import.meta.main) {
  const args = Deno.args;
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    console.log(`harness ${meta.version}`);
  } else {
    const { runCli } = await import("./lib/cli/main.ts");
    // Exit at once: output is written synchronously and transcripts are closed, and
    // idle keep-alive connections or Workers must not hold the process open.
    Deno.exit(await runCli(args));
  }
}
