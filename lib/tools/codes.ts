/**
 * Every diagnostic code harness can emit, for SARIF rules and the README.
 *
 * @module
 */
import { compareStrings } from "../_compare.ts";
import type { CodeInfo } from "../types.ts";
import { MANIFEST_CODES } from "./loaders/manifest.ts";
import { NANOCODER_CODES } from "./loaders/nanocoder.ts";
import { OCTOMIND_CODES } from "./loaders/octomind.ts";
import { DISK_CODES } from "./lint_disk.ts";
import { SCHEMA_CODES } from "./lint_schema.ts";
import { TEMPLATE_CODES } from "./template.ts";
import { CROSS_FORMAT_CODES } from "./validate.ts";

/** The whole catalogue, sorted by code, each code once. */
export const ALL_CODES: readonly CodeInfo[] = dedupe([
  ...OCTOMIND_CODES,
  ...NANOCODER_CODES,
  ...MANIFEST_CODES,
  ...TEMPLATE_CODES,
  ...SCHEMA_CODES,
  ...DISK_CODES,
  ...CROSS_FORMAT_CODES,
]);

function dedupe(list: CodeInfo[]): CodeInfo[] {
  const byCode = new Map<string, CodeInfo>();
  for (const info of list) if (!byCode.has(info.code)) byCode.set(info.code, info);
  return [...byCode.values()].sort((a, b) => compareStrings(a.code, b.code));
}
