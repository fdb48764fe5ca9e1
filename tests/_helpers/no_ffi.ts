/**
 * Run without `--allow-ffi`: prints what `landlockAbi()` and a Worker that needs FFI
 * give, as one JSON object (used by worker_pool_test.ts).
 *
 * @module
 */
import { landlockAbi } from "../../lib/exec/landlock.ts";
import { WorkerPermissionError } from "../../lib/exec/worker_pool.ts";
import { testPool } from "./exec.ts";

const pool = testPool();
try {
  await pool.runProcess({ permissions: { run: ["bash"], ffi: true } }, {
    program: "bash",
    args: ["-c", "true"],
    cwd: "/",
    env: {},
    stdin: "null",
    timeoutMs: 1000,
    maxOutputBytes: 100,
  });
  console.log(JSON.stringify({ abi: landlockAbi(), error: "none" }));
} catch (err) {
  const e = err as WorkerPermissionError;
  console.log(JSON.stringify({
    abi: landlockAbi(),
    name: e.name,
    flag: e.flag,
    message: e.message,
  }));
} finally {
  pool.close();
}
