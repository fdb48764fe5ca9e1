/**
 * Approval modes of a run, matching Nanocoder's modes:
 *
 * | `--approval` | Nanocoder   | tools offered                         | asks for                  |
 * | ------------ | ----------- | ------------------------------------- | ------------------------- |
 * | `ask`        | normal      | all                                   | `always`, `destructive`   |
 * | `auto-edit`  | auto-accept | all                                   | `always`                  |
 * | `yolo`       | yolo        | all                                   | nothing                   |
 * | `plan`       | plan        | `approval: never` and read-only       | nothing                   |
 * | `never-ask`  | headless    | `approval: never`                     | nothing                   |
 *
 * Without a terminal nothing ever waits on input: a call that would ask is denied,
 * and the model is told why.
 *
 * @module
 */
import type { ApprovalDecision, ApprovalPolicy } from "../exec/call_types.ts";
import type { ToolDefinition } from "../types.ts";

/** The approval mode of a run. */
export type ApprovalMode = "ask" | "auto-edit" | "yolo" | "plan" | "never-ask";

/** Every mode, for flag validation. */
export const APPROVAL_MODES: readonly ApprovalMode[] = [
  "ask",
  "auto-edit",
  "yolo",
  "plan",
  "never-ask",
];

/** What a user answers at the prompt. */
export type PromptAnswer = "yes" | "no" | "always";

/** Whether a tool is offered to the model in a mode. */
export function offeredInMode(tool: ToolDefinition, mode: ApprovalMode): boolean {
  if (mode === "plan") return tool.approval === "never" && tool.readOnly;
  if (mode === "never-ask") return tool.approval === "never";
  return true;
}

/** Whether a call of the tool needs the user's approval in a mode. */
export function needsApproval(tool: ToolDefinition, mode: ApprovalMode): boolean {
  switch (mode) {
    case "ask":
      return tool.approval !== "never";
    case "auto-edit":
      return tool.approval === "always";
    case "yolo":
      return false;
    case "plan":
    case "never-ask":
      return !offeredInMode(tool, mode);
  }
}

/**
 * Makes the approval policy of a run.
 *
 * @param mode The run's mode.
 * @param prompt Asks the user on a terminal; `undefined` when there is none.
 * @returns A policy that remembers "always" answers for the session.
 */
export function makeApprovalPolicy(
  mode: ApprovalMode,
  prompt:
    | ((tool: ToolDefinition, args: Record<string, unknown>) => Promise<PromptAnswer>)
    | undefined,
): ApprovalPolicy {
  const always = new Set<string>();
  return async (tool, args): Promise<ApprovalDecision> => {
    if (!needsApproval(tool, mode)) {
      return {
        approved: true,
        by: tool.approval === "never" ? "policy" : "mode",
        reason: `approved by the ${mode} mode (tool approval: ${tool.approval})`,
      };
    }
    if (mode === "plan" || mode === "never-ask") {
      return {
        approved: false,
        by: "mode",
        reason: `Tool "${tool.name}" is not available in ${mode} mode (approval: ${tool.approval}${
          mode === "plan" ? `, read-only: ${tool.readOnly}` : ""
        })`,
        hint:
          `run with --approval yolo, or set "tools.overrides.${tool.name}.approval": "never" in harness.jsonc`,
      };
    }
    if (always.has(tool.name)) {
      return { approved: true, by: "user", reason: "approved for this session" };
    }
    if (!prompt) {
      return {
        approved: false,
        by: "mode",
        reason:
          `Tool "${tool.name}" needs approval (approval: ${tool.approval}) and there is no terminal to ask on`,
        hint:
          `run with --approval yolo (or auto-edit for destructive tools), or set "tools.overrides.${tool.name}.approval": "never" in harness.jsonc`,
      };
    }
    const answer = await prompt(tool, args);
    if (answer === "always") always.add(tool.name);
    return answer === "no"
      ? { approved: false, by: "user", reason: `The user declined the call of "${tool.name}"` }
      : {
        approved: true,
        by: "user",
        reason: answer === "always" ? "approved for this session" : "approved once",
      };
  };
}
