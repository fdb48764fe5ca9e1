/**
 * The types of the one call path, shared by `harness tools call` and the chat loop.
 *
 * @module
 */
import type { JsonObject, ToolDefinition } from "../types.ts";

/** A request to call a tool, as the model (or the user) makes it. */
export interface CallRequest {
  name: string;
  /** Parsed arguments; when absent they are parsed from `rawArguments`. */
  args?: unknown;
  /** The argument text as the model sent it (agentcli tools receive it verbatim). */
  rawArguments?: string;
  /** The tool-call id, for approvals and transcripts. */
  id?: string;
}

/** Why a call did not run, when it did not. */
export type CallFailure =
  | "unknown-tool"
  | "invalid-arguments"
  | "denied"
  | "refused"
  | "tool-failed"
  | "native-tool";

/** The outcome of one call: what the model sees, and the facts behind it. */
export interface CallResult {
  /** Whether the call succeeded (a tool error or a denial is `false`). */
  ok: boolean;
  /** Exactly what the model sees as the tool result. */
  content: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
  /** Set when the call did not succeed. */
  failure?: CallFailure;
  /** For denials: the reason and how to allow it. */
  denied?: {
    reason: string;
    hint?: string;
    /** Who denied: the user at the prompt (the run goes on), or policy and permissions. */
    by?: "user" | "mode" | "policy" | "config" | "permission";
  };
  /** One-line warnings (a missing enforcement layer in `auto` mode). */
  warnings: string[];
}

/** What an approval policy decides for one call. */
export interface ApprovalDecision {
  approved: boolean;
  /** Who decided: the tool's policy, the run's mode, the user, or config. */
  by: "policy" | "mode" | "user" | "config";
  reason: string;
  /** How to allow it next time (a flag or config key). */
  hint?: string;
}

/**
 * Decides whether a call may run. The chat loop supplies an interactive policy on a
 * TTY and a non-interactive one elsewhere; `harness tools call` is an explicit user
 * action and approves.
 */
export type ApprovalPolicy = (
  tool: ToolDefinition,
  args: JsonObject,
  id?: string,
) => Promise<ApprovalDecision>;
