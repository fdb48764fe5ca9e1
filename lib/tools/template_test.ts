import { deepEqual, equal, ok } from "node:assert/strict";
import {
  lintTemplate,
  renderTemplate,
  shellQuote,
  TEMPLATE_CODES,
  templateSeverity,
} from "./template.ts";

/** Runs a rendered script with bash and returns what it printed. */
async function bash(script: string, cwd: string): Promise<string> {
  const out = await new Deno.Command("/bin/bash", {
    args: ["-c", script],
    cwd,
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("shellQuote() quotes each kind of value as Nanocoder does", () => {
  equal(shellQuote("it's"), `'it'\\''s'`);
  equal(shellQuote(""), "''");
  equal(shellQuote(0), "'0'");
  equal(shellQuote(1.5), "'1.5'");
  equal(shellQuote(2.0), "'2'");
  equal(shellQuote(false), "'false'");
  equal(shellQuote({ a: "x'y", b: [1] }), `'{"a":"x'\\''y","b":[1]}'`);
  equal(shellQuote(["a", "b c", 3, null, ["n"]]), `'a' 'b c' '3' 'null' '["n"]'`);
  equal(shellQuote([]), "");
  equal(shellQuote(null), "");
  equal(shellQuote(undefined), "");
  equal(shellQuote("a\nb"), "'a\nb'");
});

Deno.test("renderTemplate() substitutes raw args and drops missing ones", () => {
  equal(renderTemplate("echo {{ missing }}", {}), "echo ");
  equal(renderTemplate("echo {{x}} {{  x  }}", { x: "v" }), "echo 'v' 'v'");
  equal(renderTemplate("echo {{ extra }}", { extra: "undeclared" }), "echo 'undeclared'");
  equal(renderTemplate("echo {{ n }}", { n: null }), "echo ");
  equal(renderTemplate("echo {{ constructor }} {{ toString }}", {}), "echo  ");
});

Deno.test("renderTemplate() keeps sections by Nanocoder's truthiness", () => {
  const t = "{{# v }}Y{{/ v }}{{^ v }}N{{/ v }}";
  const cases: [unknown, string][] = [
    ["x", "Y"],
    ["false", "Y"],
    ["0", "Y"],
    [1, "Y"],
    [-1, "Y"],
    [true, "Y"],
    [["a"], "Y"],
    [{}, "Y"],
    ["", "N"],
    [0, "N"],
    [NaN, "N"],
    [false, "N"],
    [[], "N"],
    [null, "N"],
  ];
  for (const [v, want] of cases) equal(renderTemplate(t, { v }), want, JSON.stringify(v));
  equal(renderTemplate(t, {}), "N");
});

Deno.test("renderTemplate() expands nested sections and repeats passes", () => {
  const t = "{{# a }}A{{# b }}B{{/ b }}{{/ a }}";
  equal(renderTemplate(t, { a: true, b: true }), "AB");
  equal(renderTemplate(t, { a: true, b: false }), "A");
  equal(renderTemplate(t, { a: false, b: true }), "");
  // Removing the inner section forms a new one, which the next pass expands.
  equal(renderTemplate("{{# a {{# b }}{{/ b }}}}X{{/ a }}", { a: 1 }), "X");
  equal(
    renderTemplate("{{# j }}A {{ id }}{{/ j }}{{^ j }}B {{ id }}{{/ j }}", { id: "1" }),
    "B '1'",
  );
});

Deno.test("renderTemplate() leaves what no rule matches in the script", () => {
  equal(renderTemplate("{{# a }}x", { a: true }), "{{# a }}x");
  equal(renderTemplate("{{# a }}x{{/ b }}", { a: true, b: true }), "{{# a }}x{{/ b }}");
  equal(renderTemplate("{{ # a }}x{{/ a }}", { a: true }), "{{ # a }}x{{/ a }}");
  equal(
    renderTemplate("{{ a.b }} {{> p }} {{! c }}", { a: { b: 1 } }),
    "{{ a.b }} {{> p }} {{! c }}",
  );
  equal(renderTemplate("{{{ v }}}", { v: "x" }), "{'x'}");
  equal(renderTemplate(`-l "{{ s }}"`, { s: "app=api" }), `-l "'app=api'"`);
  // The same name nested pairs with the first closing tag; a later pass may pair the rest.
  equal(renderTemplate("{{# a }}1{{# a }}2{{/ a }}3{{/ a }}", { a: true }), "123");
  equal(renderTemplate("{{# a }}1{{# a }}2{{/ a }}3{{/ a }}", { a: false }), "3{{/ a }}");
});

Deno.test("renderTemplate() values cannot inject shell code when bash runs the script", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "harness-tpl-" });
  try {
    const marker = `${dir}/pwned-${crypto.randomUUID()}`;
    const payloads = [
      `'; touch ${marker}; #`,
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      `x\ntouch ${marker}`,
      `"; touch ${marker}; "`,
      `\\'; touch ${marker}; \\'`,
      `$'\\x27'; touch ${marker}`,
      `*`,
      `-n`,
    ];
    for (const payload of payloads) {
      const script = renderTemplate("printf '%s\\0' {{ x }} {{ list }}", {
        x: payload,
        list: [payload, "two words"],
      });
      const out = await bash(script, dir);
      equal(out, `${payload}\0${payload}\0two words\0`, payload);
      ok(!exists(marker), `payload ran: ${payload}`);
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("renderTemplate() quotes a destructive payload into one inert word", () => {
  equal(renderTemplate("echo {{ name }}", { name: "'; rm -rf /; #" }), `echo ''\\''; rm -rf /; #'`);
  equal(renderTemplate("echo {{ name }}", { name: "; rm -rf /; #" }), "echo '; rm -rf /; #'");
});

Deno.test("renderTemplate() inside author-written double quotes still expands $( ) (why lint warns)", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "harness-tpl-" });
  try {
    const marker = `${dir}/dq-${crypto.randomUUID()}`;
    const script = renderTemplate(`printf '%s' "{{ s }}"`, { s: `$(touch ${marker})` });
    equal(await bash(script, dir), "''");
    ok(exists(marker), "the original's quoting does not protect a double-quoted placeholder");
    deepEqual(lintTemplate(`printf '%s' "{{ s }}"`, ["s"]).map((p) => p.code), [
      "template/double-quoted-placeholder",
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("lintTemplate() accepts a clean body", () => {
  deepEqual(
    lintTemplate(
      "# list {{ ns }}\nkubectl get pods -n {{ ns }} {{# sel }}-l {{ sel }}{{/ sel }}{{^ all }}--limit 5{{/ all }}\necho \"done: $(date)\" 'x'",
      ["ns", "sel", "all"],
    ),
    [],
  );
});

Deno.test("lintTemplate() reports undeclared names in variables and sections", () => {
  const problems = lintTemplate("echo {{ a }} {{# b }}{{ c }}{{/ b }}", ["a"]);
  deepEqual(problems.map((p) => [p.code, p.offset]), [
    ["template/undeclared-name", 13],
    ["template/undeclared-name", 21],
  ]);
  ok(problems[0].message.includes(`Section "b"`));
  ok(problems[1].message.includes(`Placeholder "c"`));
});

Deno.test("lintTemplate() reports unclosed, mismatched and same-name nested sections", () => {
  const codes = (body: string) => lintTemplate(body, ["a", "b"]).map((p) => p.code);
  deepEqual(codes("{{# a }}x"), ["template/unclosed-section"]);
  deepEqual(codes("{{# a }}x{{/ b }}"), [
    "template/unclosed-section",
    "template/mismatched-section",
  ]);
  deepEqual(codes("x{{/ a }}"), ["template/mismatched-section"]);
  deepEqual(codes("{{# a }}{{^ b }}x{{/ a }}{{/ b }}"), [
    "template/unclosed-section",
    "template/mismatched-section",
  ]);
  deepEqual(codes("{{# a }}{{# a }}x{{/ a }}{{/ a }}"), ["template/nested-same-name"]);
});

Deno.test("lintTemplate() reports unsupported and literal tags", () => {
  const codes = (body: string) => lintTemplate(body, ["v", "x"]).map((p) => p.code);
  deepEqual(codes("echo {{{ v }}}"), ["template/triple-mustache"]);
  deepEqual(codes("{{& v }} {{> p }} {{! c }} {{=<% %>=}}"), [
    "template/unsupported-sigil",
    "template/unsupported-sigil",
    "template/unsupported-sigil",
    "template/unsupported-sigil",
  ]);
  deepEqual(codes("{{ # x }}y{{ / x }} {{ a.b }} {{ 1x }}"), [
    "template/literal-tag",
    "template/literal-tag",
    "template/literal-tag",
    "template/literal-tag",
  ]);
  deepEqual(codes("awk '{ if (a) {{ print $1 }} }'"), ["template/literal-tag"]);
  deepEqual(codes("echo {{\n}}"), []);
});

Deno.test("lintTemplate() reports placeholders whose quoting the script changes", () => {
  const codes = (body: string) => lintTemplate(body, ["v"]).map((p) => p.code);
  deepEqual(codes(`echo "{{ v }}"`), ["template/double-quoted-placeholder"]);
  deepEqual(codes(`echo "a $(echo {{ v }}) b"`), []);
  deepEqual(codes(`echo '{{ v }}'`), ["template/single-quoted-placeholder"]);
  deepEqual(codes(`echo $'{{ v }}'`), ["template/single-quoted-placeholder"]);
  deepEqual(codes("echo `echo {{ v }}`"), ["template/backtick-placeholder"]);
  deepEqual(codes(`echo 'it'\\''s' {{ v }} "q\\"" {{ v }}`), []);
  deepEqual(codes(`echo 'it\\'s' {{ v }}`), ["template/single-quoted-placeholder"]);
  deepEqual(codes("cat <<EOF\n{{ v }}\nEOF\necho {{ v }}"), ["template/heredoc-placeholder"]);
  deepEqual(codes("cat <<'EOF'\nx {{ v }}\nEOF\n"), ["template/quoted-heredoc-placeholder"]);
  deepEqual(codes("cat <<-EOF\n\t{{ v }}\n\tEOF\necho {{ v }}"), ["template/heredoc-placeholder"]);
  deepEqual(codes("x=$((1<<2)); echo {{ v }}"), []);
  deepEqual(codes("echo {{ v }} # it's fine"), []);
});

Deno.test("TEMPLATE_CODES lists every code lintTemplate() reports, with its severity", () => {
  const bodies = [
    "{{ zz }}",
    "{{# a }}",
    "{{/ a }}",
    "{{# v }}{{# v }}{{/ v }}{{/ v }}",
    "{{{ v }}}",
    "{{& v }}",
    "{{ a.b }}",
    "'{{ v }}'",
    '"{{ v }}"',
    "`{{ v }}`",
    "cat <<E\n{{ v }}\nE",
    "cat <<'E'\n{{ v }}\nE",
  ];
  const seen = new Set(bodies.flatMap((b) => lintTemplate(b, ["v"]).map((p) => p.code)));
  deepEqual([...seen].sort(), TEMPLATE_CODES.map((c) => c.code).sort());
  // A value inside "…" or an unquoted here-document keeps running $( ): an injection.
  equal(templateSeverity("template/double-quoted-placeholder"), "error");
  equal(templateSeverity("template/heredoc-placeholder"), "error");
  equal(templateSeverity("template/quoted-heredoc-placeholder"), "warning");
  equal(templateSeverity("template/single-quoted-placeholder"), "error");
});
