/**
 * Validates call arguments against the tool's own parameters schema — the very object
 * sent to the model — in every format, even where the original did not validate.
 * ajv is imported on the first call only, and each schema is compiled once.
 *
 * @module
 */
import type { ToolDefinition } from "../types.ts";

type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; params: Record<string, unknown> }[] | null;
};

/** Compiles and caches one validator per tool schema. */
export class ArgumentValidator {
  #cache = new Map<string, Validate | string>();
  #ajv: Promise<{ compile(schema: unknown): Validate }> | undefined;

  /**
   * Validates arguments.
   *
   * @param tool The tool (its `parameters` is the schema).
   * @param args The parsed arguments.
   * @returns A description of every problem, or `undefined` when the arguments are valid.
   */
  async validate(tool: ToolDefinition, args: unknown): Promise<string | undefined> {
    const schema = tool.parameters;
    if (
      schema === undefined || schema === null || typeof schema !== "object" || Array.isArray(schema)
    ) {
      return undefined; // agentcli passes a missing or non-object schema through; nothing to check
    }
    const key = `${tool.name}\u0000${JSON.stringify(schema)}`;
    let validate = this.#cache.get(key);
    if (validate === undefined) {
      try {
        validate = (await this.#compiler()).compile(schema);
      } catch (error) {
        validate = `its parameters schema is not valid JSON Schema (${
          (error as Error).message
        }); run \`harness tools validate\``;
      }
      this.#cache.set(key, validate);
    }
    if (typeof validate === "string") return validate;
    if (validate(args)) return undefined;
    return (validate.errors ?? []).map(describe).join("; ");
  }

  #compiler() {
    this.#ajv ??= Promise.all([import("ajv"), import("ajv-formats")]).then(([{ Ajv }, formats]) => {
      const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
      (formats.default as unknown as (a: unknown) => void)(ajv);
      return ajv as unknown as { compile(schema: unknown): Validate };
    });
    return this.#ajv;
  }
}

function describe(
  e: { instancePath: string; message?: string; params: Record<string, unknown> },
): string {
  const where = e.instancePath === ""
    ? "the arguments"
    : `"${e.instancePath.slice(1).replace(/\//g, ".")}"`;
  if (e.params.additionalProperty !== undefined) {
    return `${where} has the unknown property "${String(e.params.additionalProperty)}"`;
  }
  if (e.params.missingProperty !== undefined) {
    return `${where} is missing the required property "${String(e.params.missingProperty)}"`;
  }
  if (Array.isArray(e.params.allowedValues)) {
    return `${where} must be one of ${
      (e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")
    }`;
  }
  return `${where} ${e.message ?? "is invalid"}`;
}
