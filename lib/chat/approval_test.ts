import assert from "node:assert/strict";
import type { Approval, ToolDefinition } from "../types.ts";
import {
  APPROVAL_MODES,
  type ApprovalMode,
  makeApprovalPolicy,
  needsApproval,
  offeredInMode,
  type PromptAnswer,
} from "./approval.ts";

function tool(name: string, approval: Approval, readOnly: boolean): ToolDefinition {
  return {
    name,
    description: `The ${name} tool`,
    parameters: { type: "object" },
    source: { format: "builtin", path: `tools/${name}.ts` },
    runner: { kind: "module", url: `file:///tools/${name}.ts` },
    approval,
    readOnly,
    timeoutMs: 30_000,
  };
}

/** A prompt that records its questions and gives the scripted answers in order. */
function scriptedPrompt(answers: PromptAnswer[]) {
  const asked: string[] = [];
  const prompt = (t: ToolDefinition): Promise<PromptAnswer> => {
    asked.push(t.name);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`Unexpected prompt for "${t.name}"`);
    return Promise.resolve(answer);
  };
  return { asked, prompt };
}

const neverPrompt = () => Promise.reject(new Error("the policy must not prompt"));

// The mode table of approval.ts: [mode, approval, readOnly] → [offered, asks].
const TABLE: [ApprovalMode, Approval, boolean, boolean, boolean][] = [
  ["ask", "never", false, true, false],
  ["ask", "always", false, true, true],
  ["ask", "destructive", false, true, true],
  ["ask", "always", true, true, true],
  ["auto-edit", "never", false, true, false],
  ["auto-edit", "always", false, true, true],
  ["auto-edit", "destructive", false, true, false],
  ["yolo", "never", false, true, false],
  ["yolo", "always", false, true, false],
  ["yolo", "destructive", false, true, false],
  ["plan", "never", true, true, false],
  ["plan", "never", false, false, true],
  ["plan", "always", true, false, true],
  ["plan", "destructive", true, false, true],
  ["never-ask", "never", false, true, false],
  ["never-ask", "never", true, true, false],
  ["never-ask", "always", true, false, true],
  ["never-ask", "destructive", false, false, true],
];

Deno.test("offeredInMode() and needsApproval() follow the mode table", () => {
  for (const [mode, approval, readOnly, offered, asks] of TABLE) {
    const t = tool("t", approval, readOnly);
    const at = `${mode} / ${approval} / read-only ${readOnly}`;
    assert.equal(offeredInMode(t, mode), offered, `offered: ${at}`);
    assert.equal(needsApproval(t, mode), asks, `needs approval: ${at}`);
  }
});

Deno.test("APPROVAL_MODES lists every mode of the table", () => {
  assert.deepEqual([...APPROVAL_MODES].sort(), ["ask", "auto-edit", "never-ask", "plan", "yolo"]);
});

Deno.test("makeApprovalPolicy() approves without asking what the mode allows", async () => {
  const cases: [ApprovalMode, Approval, boolean, "policy" | "mode"][] = [
    ["ask", "never", false, "policy"],
    ["auto-edit", "destructive", false, "mode"],
    ["yolo", "always", false, "mode"],
    ["plan", "never", true, "policy"],
    ["never-ask", "never", false, "policy"],
  ];
  for (const [mode, approval, readOnly, by] of cases) {
    const decision = await makeApprovalPolicy(mode, neverPrompt)(
      tool("t", approval, readOnly),
      {},
    );
    assert.equal(decision.approved, true, `${mode} / ${approval}`);
    assert.equal(decision.by, by, `${mode} / ${approval}`);
  }
});

Deno.test("makeApprovalPolicy() denies what plan and never-ask do not offer, with a hint", async () => {
  const plan = await makeApprovalPolicy("plan", neverPrompt)(tool("edit", "never", false), {});
  assert.equal(plan.approved, false);
  assert.equal(plan.by, "mode");
  assert.match(plan.reason, /^Tool "edit" is not available in plan mode/);
  assert.match(plan.reason, /read-only: false/);
  assert.match(plan.hint!, /--approval yolo/);
  const headless = await makeApprovalPolicy("never-ask", neverPrompt)(
    tool("shell", "always", false),
    {},
  );
  assert.equal(headless.approved, false);
  assert.match(headless.reason, /^Tool "shell" is not available in never-ask mode/);
  assert.match(headless.hint!, /"tools\.overrides\.shell\.approval": "never"/);
});

Deno.test("makeApprovalPolicy() asks and follows yes and no", async () => {
  const { asked, prompt } = scriptedPrompt(["yes", "no", "yes"]);
  const policy = makeApprovalPolicy("ask", prompt);
  const shell = tool("shell", "always", false);
  assert.deepEqual(await policy(shell, { command: "ls" }), {
    approved: true,
    by: "user",
    reason: "approved once",
  });
  const no = await policy(shell, { command: "rm -rf /" });
  assert.equal(no.approved, false);
  assert.equal(no.by, "user");
  assert.equal(no.reason, 'The user declined the call of "shell"');
  assert.equal((await policy(shell, {})).approved, true);
  assert.deepEqual(asked, ["shell", "shell", "shell"], "yes is not remembered");
});

Deno.test("makeApprovalPolicy() remembers always for that tool for the session", async () => {
  const { asked, prompt } = scriptedPrompt(["always", "no"]);
  const policy = makeApprovalPolicy("ask", prompt);
  const shell = tool("shell", "always", false);
  const edit = tool("edit", "destructive", false);
  assert.equal((await policy(shell, {})).approved, true);
  const again = await policy(shell, { command: "other" });
  assert.deepEqual(again, { approved: true, by: "user", reason: "approved for this session" });
  assert.equal((await policy(edit, {})).approved, false, "another tool is still asked");
  assert.deepEqual(asked, ["shell", "edit"]);
  const fresh = makeApprovalPolicy("ask", scriptedPrompt(["no"]).prompt);
  assert.equal((await fresh(shell, {})).approved, false, "a new session asks again");
});

Deno.test("makeApprovalPolicy() denies with a hint when there is no prompt", async () => {
  const policy = makeApprovalPolicy("ask", undefined);
  const decision = await policy(tool("shell", "destructive", false), {});
  assert.deepEqual(decision, {
    approved: false,
    by: "mode",
    reason:
      'Tool "shell" needs approval (approval: destructive) and there is no terminal to ask on',
    hint: "run with --approval yolo (or auto-edit for destructive tools), or set " +
      '"tools.overrides.shell.approval": "never" in harness.jsonc',
  });
  const autoEdit = makeApprovalPolicy("auto-edit", undefined);
  assert.equal((await autoEdit(tool("shell", "always", false), {})).approved, false);
  assert.equal((await autoEdit(tool("edit", "destructive", false), {})).approved, true);
});
