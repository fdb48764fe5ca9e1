/**
 * Tag-level checks of an Octomind header that go beyond what Octomind does: the
 * `@allow` permission extension, misspelled tags, parameter names, and tags the
 * header scanner never reaches.
 *
 * Private to the Octomind loader.
 *
 * @module
 */
import { editDistance } from "../../_suggest.ts";
import type { PermissionScope } from "../../types.ts";
import { addPermissionEntry } from "../permissions.ts";
import {
  classify,
  type Header,
  HEADER_MAX_LINES,
  type HeaderLine,
  splitTag,
  splitWhitespace,
  trim,
} from "./_octomind_header.ts";

/** The tags Octomind knows, plus harness's `@allow`. */
export const KNOWN_TAGS = ["description", "desc", "param", "arg", "allow"] as const;

const TAG_ALIASES: Readonly<Record<string, string>> = {
  params: "param",
  parameter: "param",
  parameters: "param",
  args: "arg",
  argument: "arg",
  arguments: "arg",
  descr: "description",
  allows: "allow",
  permission: "allow",
  permissions: "allow",
};

/**
 * The tag a misspelled or decorated tag most likely meant (`@descripton`,
 * `@description:`, `@params`).
 *
 * @param tag The lower-cased tag, without `@`.
 * @returns The intended tag, or `undefined` when `tag` looks deliberate.
 */
export function suggestTag(tag: string): string | undefined {
  const bare = tag.replace(/[:=,;.]+$/, "");
  if (bare !== tag && (KNOWN_TAGS as readonly string[]).includes(bare)) return bare;
  if (Object.hasOwn(TAG_ALIASES, bare)) return TAG_ALIASES[bare];
  if (bare.length < 3) return undefined;
  for (const known of KNOWN_TAGS) {
    if (editDistance(bare, known) <= (known.length >= 6 ? 2 : 1)) return known;
  }
  return undefined;
}

/** A finding of the `@allow` parser: the message and where. */
export interface AllowProblem {
  message: string;
  line: number;
  column: number;
}

/** Collects `@allow KIND VALUE` lines into a scope. */
export class AllowCollector {
  /** The declared scope (kinds never mentioned stay absent). */
  readonly scope: PermissionScope = {};
  /** Whether any `@allow` line was seen, even a bad one: then the scope is declared. */
  declared = false;
  readonly problems: AllowProblem[] = [];
  #noneLine: number | undefined;
  #firstEntry: number | undefined;

  /**
   * Reads one `@allow` line.
   *
   * @param line The header line.
   * @param value The text after `@allow`.
   * @param valueColumn The 1-based file column of `value`.
   */
  add(line: HeaderLine, value: string, valueColumn: number): void {
    this.declared = true;
    const [kindWord] = splitWhitespace(value);
    const at = { line: line.line, column: valueColumn };
    if (kindWord === undefined) {
      this.#problem(
        at,
        `"@allow" has no kind: write "@allow KIND VALUE" (KIND is read, write, net, env or run), or "@allow none" for no permissions`,
      );
      return;
    }
    const rest = trim(value.slice(kindWord.length));
    const kind = kindWord.toLowerCase();
    const shown = `"@allow ${value}"`;
    if (kind === "none") {
      if (rest !== "") {
        this.#problem(at, `${shown} is ignored: "@allow none" takes no value; remove "${rest}"`);
      } else this.#noneLine ??= line.line;
      return;
    }
    if (rest === "") {
      this.#problem(at, `${shown} is ignored: it names no value; write e.g. "@allow read ./data"`);
      return;
    }
    const why = addPermissionEntry(this.scope, kind, rest);
    if (why) this.#problem(at, `${shown} is ignored: ${why}`);
    else this.#firstEntry ??= line.line;
  }

  /** Reports `@allow none` mixed with entries; call after the last line. */
  finish(): void {
    if (this.#noneLine !== undefined && this.#firstEntry !== undefined) {
      this.#problem(
        { line: this.#noneLine, column: 1 },
        `"@allow none" contradicts the "@allow" entry at line ${this.#firstEntry}: remove "@allow none" or the entries`,
      );
    }
  }

  #problem(at: { line: number; column: number }, message: string): void {
    this.problems.push({ message, ...at });
  }
}

/** A known tag that Octomind never reads, and why. */
export interface IgnoredTag {
  code: "octomind/header-ended-early" | "octomind/tag-after-header" | "octomind/header-line-limit";
  tag: string;
  line: number;
  column: number;
  /** Why Octomind does not read it, e.g. "the blank line at line 5 ended the header". */
  reason: string;
  message: string;
}

function tagOf(text: string | undefined): string | undefined {
  if (!text?.startsWith("@")) return undefined;
  const { tag } = splitTag(text);
  return (KNOWN_TAGS as readonly string[]).includes(tag) ? tag : undefined;
}

/**
 * Finds known tags just past the end of the header, where Octomind does not look:
 * after a blank line that ended it, after code that ended it (only when the header
 * lacks a description, so documented functions further down are left alone), and
 * past line 80.
 *
 * @param source The file's lines.
 * @param header What `extract_header` read.
 * @param descriptionMissing Whether the header has no description.
 * @returns The ignored tags, in file order.
 */
export function findIgnoredTags(
  source: readonly string[],
  header: Header,
  descriptionMissing: boolean,
): IgnoredTag[] {
  const out: IgnoredTag[] = [];
  const { end } = header;
  const push = (i: number, code: IgnoredTag["code"], reason: string, fix: string) => {
    const c = classify(source[i]!);
    const tag = tagOf(c.text);
    if (!tag) return;
    const message = `Tag "@${tag}" is ignored: ${reason}: ${fix}`;
    out.push({ code, tag, line: i + 1, column: c.column!, reason, message });
  };
  if (end.kind === "blank") {
    for (let i = end.line; i < source.length && classify(source[i]!).kind !== "code"; i++) {
      push(
        i,
        "octomind/header-ended-early",
        `the blank line at line ${end.line} ended the header`,
        "remove the blank line, or start it with a comment marker",
      );
    }
  } else if (end.kind === "code" && descriptionMissing) {
    let i = end.line;
    while (i < source.length && classify(source[i]!).kind !== "comment") i++;
    const code = trim(source[end.line - 1]!);
    const preview = code.length > 40 ? `${code.slice(0, 40)}…` : code;
    for (; i < source.length && classify(source[i]!).kind !== "code"; i++) {
      push(
        i,
        "octomind/tag-after-header",
        `the header ended at line ${end.line}, which is not a comment ("${preview}")`,
        "move the comment header above that line, right after the shebang",
      );
    }
  } else if (end.kind === "limit") {
    for (let i = HEADER_MAX_LINES; i < source.length; i++) {
      const kind = classify(source[i]!).kind;
      if (kind === "code" || (kind === "blank" && header.started)) break;
      push(
        i,
        "octomind/header-line-limit",
        `Octomind reads the header only from the first ${HEADER_MAX_LINES} lines`,
        "shorten the header or move the tags up",
      );
    }
  }
  return out;
}
