/**
 * Validates request bodies against `tests/chat_request.schema.json`, the subset of the
 * Chat Completions request schema harness relies on.
 *
 * @module
 */

import { Ajv2020 } from "ajv/dist/2020";

const schema = JSON.parse(
  Deno.readTextFileSync(new URL("./chat_request.schema.json", import.meta.url)),
);
const validate = new Ajv2020({
  allErrors: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
})
  .compile(schema);

/**
 * Checks one request body.
 *
 * @param body A parsed request body.
 * @returns The validation errors as "path: message" lines; empty when valid.
 */
export function chatRequestErrors(body: unknown): string[] {
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"}: ${e.message}`);
}
