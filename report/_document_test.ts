import { equal } from "node:assert/strict";
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
