/**
 * Validates call arguments against the tool's own parameters schema — the very object
 * sent to the model — in every format, even where the original did not validate.
 * Schemas in the common subset go to a small validator whose verdicts match ajv's
 * (`mini_schema.ts`); any other schema goes to ajv, imported on first need. Each
 * schema is compiled once.
 *
 * @module
 */
import type { ToolDefinition } from "../types.ts";
import { compileMini, type SchemaError } from "./mini_schema.ts";

type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; params: Record<string, unknown> }[] | null;
};

/** Why arguments were refused: bad arguments, or a schema that cannot be compiled. */
export interface ArgumentProblem {
  kind: "arguments" | "schema";
  /** Names each offending property (`"count" must be integer`), or the schema error. */
  message: string;
}

/** Compiles and caches one validator per tool schema. */
export class ArgumentValidator {
  #cache = new Map<string, ((data: unknown) => SchemaError[]) | string>();
  #ajv: Promise<{ compile(schema: unknown): Validate }> | undefined;

  /**
   * Validates arguments.
   *
   * @param tool The tool (its `parameters` is the schema).
   * @param args The parsed arguments.
   * @returns `undefined` when the arguments are valid; otherwise `kind: "arguments"` and a
   *   description of every problem, or `kind: "schema"` when the schema itself cannot be
   *   compiled (no arguments can satisfy it: the tool definition needs fixing).
   */
  async validate(tool: ToolDefinition, args: unknown): Promise<ArgumentProblem | undefined> {
    const schema = tool.parameters;
    if (
      schema === undefined || schema === null || typeof schema !== "object" || Array.isArray(schema)
    ) {
      return undefined; // agentcli passes a missing or non-object schema through; nothing to check
    }
    // Keyed by the schema text alone: tools that share a schema share one validator.
    const key = JSON.stringify(schema);
    let validate = this.#cache.get(key);
    if (validate === undefined) {
      try {
        validate = compileMini(schema) ?? ajvErrors((await this.#compiler()).compile(schema));
      } catch (error) {
        validate = `its parameters schema is not valid JSON Schema (${
          (error as Error).message
        }); run \`harness tools validate\``;
      }
      this.#cache.set(key, validate);
    }
    if (typeof validate === "string") return { kind: "schema", message: validate };
    const errors = validate(args);
    return errors.length === 0
      ? undefined
      : { kind: "arguments", message: errors.map(describe).join("; ") };
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

function ajvErrors(validate: Validate): (data: unknown) => SchemaError[] {
  return (data) =>
    validate(data) ? [] : (validate.errors ?? []).map((e) => ({
      instancePath: e.instancePath,
      message: e.message ?? "is invalid",
      params: e.params,
    }));
}

function describe(
  e: { instancePath: string; message?: string; params: Record<string, unknown> },
): string {
  const root = e.instancePath === "";
  // A JSON Pointer: "/a/0/b~1c" names a.0."b/c".
  const where = root
    ? "the arguments"
    : `"${
      e.instancePath.slice(1).split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
        .join(".")
    }"`;
  if (e.params.additionalProperty !== undefined) {
    return `${where} ${root ? "have" : "has"} the unknown property "${
      String(e.params.additionalProperty)
    }"`;
  }
  if (e.params.missingProperty !== undefined) {
    return `${where} ${root ? "are" : "is"} missing the required property "${
      String(e.params.missingProperty)
    }"`;
  }
  if (Array.isArray(e.params.allowedValues)) {
    return `${where} must be one of ${
      (e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")
    }`;
  }
  return `${where} ${e.message ?? "is invalid"}`;
}
