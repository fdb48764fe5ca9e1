/**
 * Test helpers for real processes: find processes by a unique marker in their command
 * line, and make unique markers.
 *
 * @module
 */

/** A marker unlikely to appear in any other command line on the machine. */
export function uniqueMarker(label: string): string {
  return `harness-test-${label}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Pids of the live processes whose command line contains `marker`. */
export function findProcesses(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (cmdline.includes(marker) && !isZombie(entry.name)) pids.push(Number(entry.name));
    } catch {
      // The process exited while we looked.
    }
  }
  return pids;
}

function isZombie(pid: string): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** SIGKILLs every process whose command line contains `marker` (test cleanup). */
export function killMarked(marker: string): void {
  for (const pid of findProcesses(marker)) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}

/** Writes an executable script into `dir` and returns its path. */
export function writeScript(dir: string, name: string, body: string): string {
  const path = `${dir}/${name}`;
  Deno.writeTextFileSync(path, body, { mode: 0o755 });
  Deno.chmodSync(path, 0o755);
  return path;
}
