import { equal, ok } from "node:assert/strict";
import { code, scopeSvgIds, toHtml, toMarkdown } from "./_document.ts";

Deno.test("scopeSvgIds() prefixes ids and every reference to them, nothing else", () => {
  const svg = '<svg><defs><clipPath id="clip1"><rect/></clipPath></defs>' +
    '<g clip-path="url(#clip1)"><use href="#clip1"/><a href="#elsewhere"/></g></svg>';
  equal(
    scopeSvgIds(svg, "forest-"),
    '<svg><defs><clipPath id="forest-clip1"><rect/></clipPath></defs>' +
      '<g clip-path="url(#forest-clip1)"><use href="#forest-clip1"/><a href="#elsewhere"/></g></svg>',
  );
  equal(scopeSvgIds("<svg><g/></svg>", "x-"), "<svg><g/></svg>");
});

Deno.test("toMarkdown() and toHtml() render code spans and escape the rest", () => {
  const blocks = [
    { kind: "paragraph" as const, text: `stop ${code("token_cap")} <b> & a_b` },
  ];
  equal(toMarkdown(blocks), "stop `token_cap` \\<b\\> & a\\_b\n");
  const html = toHtml(blocks, { title: "T", svgs: {} });
  equal(html.includes("<p>stop <code>token_cap</code> &lt;b&gt; &amp; a_b</p>"), true);
});

Deno.test("toMarkdown() fences a code span one backtick longer than its longest run (CommonMark 6.1)", () => {
  const md = (text: string) => toMarkdown([{ kind: "paragraph", text: code(text) }]);
  equal(md("a`b"), "``a`b``\n");
  equal(md("a``b"), "```a``b```\n");
  equal(md("a```b`c"), "````a```b`c````\n");
  equal(md("a````b"), "`````a````b`````\n");
  // A span that starts or ends with a backtick is padded (CommonMark strips one space each side).
  equal(md("`a"), "`` `a ``\n");
  equal(md("a`"), "`` a` ``\n");
  equal(md(" a "), "`  a  `\n");
});

Deno.test("toMarkdown() fences a code block longer than any backtick run of its content (CommonMark 4.5)", () => {
  equal(toMarkdown([{ kind: "code", text: "ls" }]), "```sh\nls\n```\n");
  equal(toMarkdown([{ kind: "code", text: "echo '````'" }]), "`````sh\necho '````'\n`````\n");
});

Deno.test("toMarkdown() and toHtml() show control, bidi and line-separator characters escaped", () => {
  const id = "a\u202eb\nc\x1b[2J\u2066d\u2028e\x85";
  const shown = "a\\u202eb\\nc\\x1b[2J\\u2066d\\u2028e\\x85";
  const blocks = [
    { kind: "heading" as const, level: 2 as const, text: `Agent ${id}` },
    { kind: "paragraph" as const, text: `agent ${code(id)}` },
    { kind: "table" as const, header: ["agent"], align: ["left" as const], rows: [[id]] },
  ];
  const md = toMarkdown(blocks);
  // Outside code spans the escapes' backslashes and the "[" are themselves escaped.
  const text = shown.replaceAll("\\", "\\\\").replace("[", "\\[");
  equal(md, `## Agent ${text}\n\nagent \`${shown}\`\n\n| agent |\n| --- |\n| ${text} |\n`);
  const html = toHtml(blocks, { title: id, svgs: {} });
  for (const char of ["\u202e", "\x1b", "\u2066", "\u2028", "\x85"]) {
    equal(html.includes(char), false, `U+${char.charCodeAt(0).toString(16)}`);
  }
  equal(html.includes(`<code>${shown}</code>`), true);
});

Deno.test("toMarkdown() never lets an <img onerror> payload out of its code span or text", () => {
  const payload = "x`` <img src=x onerror=alert(1)> ``y\n# heading";
  const md = toMarkdown([
    { kind: "paragraph", text: `agent ${code(payload)} and "${payload}"` },
  ]);
  // One line: the newline is escaped, so no heading or block can start.
  equal(md.split("\n").length, 2);
  // The span's fence (3) is longer than the payload's runs (2), so the span holds all of it.
  ok(md.startsWith("agent ```x`` <img src=x onerror=alert(1)> ``y\\n# heading``` and "), md);
  // Outside the span every < and ` is escaped: no raw HTML and no span can open there.
  const text = md.slice(md.indexOf("``` and ") + 8);
  equal(text, '"x\\`\\` \\<img src=x onerror=alert(1)\\> \\`\\`y\\\\n# heading"\n');
});
