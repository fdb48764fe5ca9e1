/**
 * Nanocoder's template language for custom-tool bodies (`.nanocoder/tools/*.md`):
 * rendering, ported exactly from Nanocoder's `template.ts`, and a linter.
 *
 * - `{{ name }}` becomes `args[name]` in POSIX single quotes; an array becomes its
 *   elements, each quoted, joined by a space; a missing key, `null` and `[]`
 *   become nothing at all.
 * - `{{# name }}…{{/ name }}` keeps its content when `args[name]` is truthy,
 *   `{{^ name }}…{{/ name }}` when it is falsy. Sections are expanded first (at
 *   most 16 passes), then variables.
 * - Anything else, including `{{ # x }}`, `{{ a.b }}` and `{{> p }}`, is left as it is.
 *
 * @module
 */
import type { CodeInfo, Severity } from "../types.ts";

/** The section regex of the original (the sigil must directly follow `{{`). */
const SECTION = /\{\{([#^])\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}([\s\S]*?)\{\{\/\s*\2\s*\}\}/g;
/** The variable regex of the original. */
const VARIABLE = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g;
/** The original's bound on section passes. */
const MAX_SECTION_PASSES = 16;

/**
 * Quotes one value for a POSIX shell, as Nanocoder's `renderValue` does.
 *
 * @param v Any argument value.
 * @returns `'…'` with each `'` written as `'\''`; numbers and booleans as
 *   `String(v)`, objects as JSON, each quoted; an array as its quoted elements
 *   joined by a space (`[]` gives `""`); `null` and `undefined` give `""`.
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(shellQuote("it's"), "'it'\\''s'");
 * equal(shellQuote(["a", "b c"]), "'a' 'b c'");
 * ```
 */
export function shellQuote(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map((e) => quoteString(stringify(e))).join(" ");
  return quoteString(stringify(v));
}

function quoteString(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function stringify(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  // JSON.stringify(undefined) is undefined (the original then throws); harness gives "".
  return JSON.stringify(v) ?? "";
}

/** Nanocoder's truthiness: `""`, `0`, `NaN`, `false`, `[]`, `null` and a missing key are falsy. */
function isTruthy(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === "string") return v.length > 0;
  if (typeof v === "number") return v !== 0 && !Number.isNaN(v);
  if (typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

/** `args[name]`, own properties only (so `{{ constructor }}` is missing, not a function). */
function lookup(args: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(args, name) ? args[name] : undefined;
}

function expandSections(body: string, args: Record<string, unknown>): string {
  let prev: string;
  let next = body;
  let passes = 0;
  do {
    prev = next;
    next = prev.replace(SECTION, (_m, sigil: string, name: string, inner: string) => {
      const truthy = isTruthy(lookup(args, name));
      return (sigil === "#" ? truthy : !truthy) ? expandSections(inner, args) : "";
    });
    passes++;
  } while (next !== prev && passes < MAX_SECTION_PASSES);
  return next;
}

/**
 * Renders a template body against the raw arguments (defaults are not applied;
 * undeclared keys are substituted too).
 *
 * @param body The Markdown body, a shell script with placeholders.
 * @param args The arguments as the model sent them.
 * @returns The script to hand to `shell -c`.
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * equal(renderTemplate("ls {{# all }}-a {{/ all }}{{ dir }}", { dir: "a b" }), "ls 'a b'");
 * ```
 */
export function renderTemplate(body: string, args: Record<string, unknown>): string {
  return expandSections(body, args).replace(VARIABLE, (_m, name: string) => {
    return Object.hasOwn(args, name) ? shellQuote(args[name]) : "";
  });
}

/** One finding of {@linkcode lintTemplate}. */
export interface TemplateProblem {
  /** One of {@linkcode TEMPLATE_CODES}. */
  code: string;
  /** What is wrong and how to fix it. */
  message: string;
  /** UTF-16 offset of the tag in the body. */
  offset: number;
}

const code = (name: string, severity: Severity, summary: string): CodeInfo => ({
  code: `template/${name}`,
  severity,
  summary,
});

/** Every code {@linkcode lintTemplate} can report. */
export const TEMPLATE_CODES: readonly CodeInfo[] = [
  code(
    "undeclared-name",
    "error",
    "A placeholder or section names a parameter that is not declared",
  ),
  code("unclosed-section", "error", "A section has no closing tag with the same name"),
  code("mismatched-section", "error", "A closing tag names a section that is not open"),
  code("nested-same-name", "error", "A section is nested in a section of the same name"),
  code("triple-mustache", "error", "A {{{ }}} tag, which is not supported and renders as {'v'}"),
  code("unsupported-sigil", "error", "A tag with & > ! or =, which is not supported"),
  code("literal-tag", "warning", "A {{ }} tag that matches no rule and stays in the script"),
  code("single-quoted-placeholder", "error", "A placeholder inside '…', which unquotes the value"),
  code(
    "double-quoted-placeholder",
    "error",
    'A placeholder inside "…": the value\'s $( ) and ` still run (shell injection)',
  ),
  code("backtick-placeholder", "error", "A placeholder inside `…`, where a ` in the value ends it"),
  code(
    "heredoc-placeholder",
    "error",
    "A placeholder inside an unquoted here-document: $( ) in the value runs",
  ),
  code(
    "quoted-heredoc-placeholder",
    "warning",
    "A placeholder inside a quoted here-document: the value keeps its quotes",
  ),
];

const SEVERITY = new Map(TEMPLATE_CODES.map((c) => [c.code, c.severity]));

/** The severity of a `template/…` code. @throws {RangeError} For an unknown code. */
export function templateSeverity(templateCode: string): Severity {
  const s = SEVERITY.get(templateCode);
  if (s === undefined) throw new RangeError(`Unknown template code "${templateCode}"`);
  return s;
}

/** A tag found in the body. */
interface Tag {
  kind: "open" | "close" | "var";
  name: string;
  sigil?: string;
  start: number;
  end: number;
}

const OPEN_TAG = /\{\{([#^])\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/y;
const CLOSE_TAG = /\{\{\/\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/y;
const VAR_TAG = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/y;
const SIGIL_TAG = /\{\{\s*([&>!=])/y;

function at(re: RegExp, s: string, i: number): RegExpExecArray | null {
  re.lastIndex = i;
  return re.exec(s);
}

/**
 * Finds what a template body will not do as its author expects.
 *
 * @param body The template body.
 * @param declared The declared parameter names.
 * @returns The problems, in body order; see {@linkcode TEMPLATE_CODES}.
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(lintTemplate("echo {{ x }}", ["x"]), []);
 * ```
 */
export function lintTemplate(body: string, declared: string[]): TemplateProblem[] {
  const known = new Set(declared);
  const out: TemplateProblem[] = [];
  const report = (c: string, message: string, offset: number) =>
    out.push({ code: `template/${c}`, message, offset });
  const tags: Tag[] = [];
  let i = body.indexOf("{{");
  while (i !== -1) {
    let m: RegExpExecArray | null;
    let next = i + 2;
    if (body.startsWith("{{{", i)) {
      const end = body.indexOf("}}}", i);
      report(
        "triple-mustache",
        `Tag "${
          body.slice(i, end === -1 ? i + 3 : end + 3)
        }" is not supported: it renders as {'value'}: write {{ name }}`,
        i,
      );
      next = end === -1 ? i + 3 : end + 3;
    } else if ((m = at(OPEN_TAG, body, i))) {
      tags.push({ kind: "open", sigil: m[1], name: m[2], start: i, end: i + m[0].length });
      next = i + m[0].length;
    } else if ((m = at(CLOSE_TAG, body, i))) {
      tags.push({ kind: "close", name: m[1], start: i, end: i + m[0].length });
      next = i + m[0].length;
    } else if ((m = at(VAR_TAG, body, i))) {
      tags.push({ kind: "var", name: m[1], start: i, end: i + m[0].length });
      next = i + m[0].length;
    } else if ((m = at(SIGIL_TAG, body, i))) {
      report(
        "unsupported-sigil",
        `Tag "{{${
          m[1]
        }" is not supported and stays in the script literally: use {{ name }}, {{# name }} or {{^ name }}`,
        i,
      );
    } else {
      const lineEnd = body.indexOf("\n", i);
      const close = body.indexOf("}}", i + 2);
      if (close !== -1 && (lineEnd === -1 || close < lineEnd)) {
        const tag = body.slice(i, close + 2);
        report(
          "literal-tag",
          `Tag "${tag}" matches no template rule and stays in the script literally: write {{ name }}, {{# name }} or {{/ name }} with a plain name and the sigil right after "{{"`,
          i,
        );
        next = close + 2;
      }
    }
    i = body.indexOf("{{", next);
  }
  checkNames(tags, known, report);
  checkSections(tags, report);
  checkQuoting(body, tags, report);
  return out.sort((a, b) => a.offset - b.offset);
}

type Report = (code: string, message: string, offset: number) => void;

function checkNames(tags: Tag[], known: Set<string>, report: Report): void {
  for (const t of tags) {
    if (t.kind === "close" || known.has(t.name)) continue;
    const what = t.kind === "var" ? "Placeholder" : "Section";
    report(
      "undeclared-name",
      `${what} "${t.name}" names no declared parameter, so it is always empty: declare "${t.name}" under "parameters" or fix the name`,
      t.start,
    );
  }
}

function checkSections(tags: Tag[], report: Report): void {
  const stack: Tag[] = [];
  for (const t of tags) {
    if (t.kind === "open") {
      if (stack.some((s) => s.name === t.name)) {
        report(
          "nested-same-name",
          `Section "${t.name}" is nested in a section of the same name, so the outer one ends at the first "{{/ ${t.name} }}": rename one of them`,
          t.start,
        );
      }
      stack.push(t);
    } else if (t.kind === "close") {
      const idx = stack.findLastIndex((s) => s.name === t.name);
      if (idx === -1) {
        const open = stack.at(-1);
        const detail = open === undefined
          ? "no section is open"
          : `the open section is "${open.name}"`;
        report(
          "mismatched-section",
          `Closing tag "{{/ ${t.name} }}" matches no open section (${detail}) and stays in the script literally: close sections in reverse order with the same name`,
          t.start,
        );
        continue;
      }
      for (const s of stack.splice(idx).slice(1)) unclosed(s, report);
    }
  }
  for (const s of stack) unclosed(s, report);
}

function unclosed(s: Tag, report: Report): void {
  report(
    "unclosed-section",
    `Section "{{${s.sigil} ${s.name} }}" has no closing "{{/ ${s.name} }}", so it stays in the script literally: add the closing tag`,
    s.start,
  );
}

/** Shell quoting contexts the quoting check tracks. */
type Ctx = "plain" | "single" | "ansi" | "double" | "backtick" | "subst";

/**
 * Walks the body as a shell would quote it (tags are opaque words) and reports
 * placeholders whose single quotes the surrounding quoting changes.
 */
function checkQuoting(body: string, tags: Tag[], report: Report): void {
  const skip = new Map(tags.map((t) => [t.start, t]));
  const stack: Ctx[] = ["plain"];
  const pending: { delim: string; quoted: boolean; strip: boolean }[] = [];
  let heredoc: { delim: string; quoted: boolean; strip: boolean } | undefined;
  let i = 0;
  const top = () => stack[stack.length - 1];
  while (i < body.length) {
    const tag = skip.get(i);
    if (tag !== undefined) {
      if (tag.kind === "var") {
        placeholderIn(
          heredoc ? (heredoc.quoted ? "heredoc-quoted" : "heredoc") : top(),
          tag,
          report,
        );
      }
      i = tag.end;
      continue;
    }
    const c = body[i];
    if (heredoc !== undefined) {
      const lineEnd = body.indexOf("\n", i);
      const line = body.slice(i, lineEnd === -1 ? body.length : lineEnd);
      const atLineStart = i === 0 || body[i - 1] === "\n";
      if (atLineStart && (heredoc.strip ? line.replace(/^\t+/, "") : line) === heredoc.delim) {
        heredoc = pending.shift();
        i = lineEnd === -1 ? body.length : lineEnd + 1;
      } else if (c === "\n") i++;
      else i = nextStop(body, i, skip, lineEnd);
      continue;
    }
    const ctx = top();
    if (ctx === "single" || ctx === "ansi") {
      if (ctx === "ansi" && c === "\\") i += 2;
      else {
        if (c === "'") stack.pop();
        i++;
      }
      continue;
    }
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (ctx === "double") {
      if (c === '"') stack.pop();
      else if (c === "`") stack.push("backtick");
      else if (body.startsWith("$(", i)) {
        stack.push("subst");
        i++;
      }
      i++;
      continue;
    }
    // plain, backtick or subst: an unquoted shell context
    if (c === "'") stack.push(body[i - 1] === "$" ? "ansi" : "single");
    else if (c === '"') stack.push("double");
    else if (c === "`") ctx === "backtick" ? stack.pop() : stack.push("backtick");
    else if (body.startsWith("$(", i)) {
      stack.push("subst");
      i++;
    } else if (c === ")" && ctx === "subst") stack.pop();
    else if (c === "#" && (i === 0 || /[\s;&|()]/.test(body[i - 1]))) {
      const lineEnd = body.indexOf("\n", i);
      i = lineEnd === -1 ? body.length : lineEnd;
      continue;
    } else if (body.startsWith("<<", i) && body[i + 2] !== "<") {
      const m = /<<(-?)[ \t]*(?:'([^'\n]*)'|"([^"\n]*)"|\\?([A-Za-z_][A-Za-z0-9_]*))/y;
      m.lastIndex = i;
      const hit = m.exec(body);
      if (hit !== null) {
        const delim = hit[2] ?? hit[3] ?? hit[4];
        pending.push({
          delim,
          quoted: hit[4] === undefined || hit[0].includes("\\"),
          strip: hit[1] === "-",
        });
        i += hit[0].length;
        continue;
      }
    } else if (c === "\n" && pending.length > 0 && stack.length === 1) {
      heredoc = pending.shift();
    }
    i++;
  }
}

/** The next index at or after `i` where the heredoc scan must look again. */
function nextStop(body: string, i: number, skip: Map<number, Tag>, lineEnd: number): number {
  const end = lineEnd === -1 ? body.length : lineEnd;
  for (let j = i + 1; j < end; j++) if (skip.has(j)) return j;
  return end;
}

function placeholderIn(ctx: Ctx | "heredoc" | "heredoc-quoted", t: Tag, report: Report): void {
  const tag = `{{ ${t.name} }}`;
  switch (ctx) {
    case "single":
    case "ansi":
      return report(
        "single-quoted-placeholder",
        `Placeholder "${tag}" is inside single quotes, so its own quotes end them and the value runs unquoted: remove the quotes around it (values are already quoted)`,
        t.start,
      );
    case "double":
      return report(
        "double-quoted-placeholder",
        `Placeholder "${tag}" is inside double quotes, so the value keeps its single quotes and "$", "\`" and "\\" in it are still expanded by the shell: remove the double quotes (values are already quoted)`,
        t.start,
      );
    case "backtick":
      return report(
        "backtick-placeholder",
        `Placeholder "${tag}" is inside backticks, where a "\`" in the value ends the command substitution: use $( ) instead`,
        t.start,
      );
    case "heredoc":
    case "heredoc-quoted":
      return report(
        ctx === "heredoc" ? "heredoc-placeholder" : "quoted-heredoc-placeholder",
        ctx === "heredoc"
          ? `Placeholder "${tag}" is inside a here-document, so the value keeps its single quotes and "$" and "\`" in it are expanded: assign it to a variable first (v=${tag}) and use "$v"`
          : `Placeholder "${tag}" is inside a quoted here-document, so the value keeps its single quotes: assign it to a variable first (v=${tag}) and use "$v" in an unquoted one`,
        t.start,
      );
  }
}
