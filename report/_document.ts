/**
 * The report as a list of blocks (headings, paragraphs, lists, tables,
 * figures), rendered once to Markdown and once to self-contained HTML, so the
 * two files always say the same thing.
 *
 * Inline text is plain; {@link code} marks a code span with two private
 * control characters that each renderer turns into its own syntax.
 *
 * Private to `report/`.
 *
 * @module
 */
import { lineText } from "../analysis/untrusted_text.ts";
import { longestBacktickRun, markdownCode, markdownText } from "../analysis/markdown_text.ts";

const CODE_OPEN = "\u0001";
const CODE_CLOSE = "\u0002";

/**
 * Marks a code span inside block text (`` `x` `` in Markdown, `<code>x</code>` in HTML).
 *
 * @param text the code (marker characters inside it are dropped)
 * @returns the text between the two private markers
 */
export function code(text: string): string {
  return CODE_OPEN + text.replaceAll(CODE_OPEN, "").replaceAll(CODE_CLOSE, "") + CODE_CLOSE;
}

/**
 * Block text without code-span markers, for JSON and plain-text output.
 *
 * @param text block text
 * @returns the text with the markers removed
 */
export function plainText(text: string): string {
  return text.replaceAll(CODE_OPEN, "").replaceAll(CODE_CLOSE, "");
}

/** A figure as the document places it. */
export interface FigureBlock {
  kind: "figure";
  /** File stem under `figures/` (`forest` → `figures/forest.svg`). */
  name: string;
  /** Figure number in reading order, from 1. */
  number: number;
  title: string;
  /** What the reader should take from it. */
  caption: string;
}

/** One block of the report. */
export type Block =
  | { kind: "heading"; level: 1 | 2 | 3; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "note"; text: string }
  | { kind: "list"; items: string[] }
  | { kind: "table"; header: string[]; align: ("left" | "right" | "center")[]; rows: string[][] }
  | { kind: "code"; text: string }
  /** The table of contents: every level-2 and level-3 heading after it, linked (issue 25). */
  | { kind: "toc" }
  | FigureBlock;

/**
 * The headings a table of contents lists: every level-2 and level-3
 * heading of the blocks given (the renderers pass those after the `toc`
 * block), in order, each with its anchor ({@link anchor},
 * the `id` of the HTML heading and, for the headings the report uses —
 * letters, digits, spaces and parentheses — the anchor GitHub gives the
 * Markdown heading). O(blocks).
 *
 * @param blocks the document
 * @returns the headings, with level, text and anchor
 */
export function tocEntries(
  blocks: readonly Block[],
): { level: 2 | 3; text: string; anchor: string }[] {
  return blocks.flatMap((block) =>
    block.kind === "heading" && block.level !== 1
      ? [{ level: block.level, text: block.text, anchor: anchor(block.text) }]
      : []
  );
}

/**
 * Path of a figure file relative to the report directory.
 *
 * @param name the figure's file stem
 * @param ext `svg` or `png`
 * @returns `figures/<name>.<ext>`
 */
export function figurePath(name: string, ext: "svg" | "png"): string {
  return `figures/${name}.${ext}`;
}

// ---------------------------------------------------------------- Markdown

/**
 * A fenced code block (CommonMark 0.31.2, section 4.5): a backtick fence at
 * least three long and longer than any backtick run of the content, so no
 * line of the content can close it. The content is shell words from
 * `shellQuote`, which never hold a raw line break or control character.
 */
function mdFence(text: string, info: string): string {
  const fence = "`".repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

function mdInline(text: string): string {
  let out = "";
  let rest = text;
  for (;;) {
    const open = rest.indexOf(CODE_OPEN);
    const close = open === -1 ? -1 : rest.indexOf(CODE_CLOSE, open);
    if (close === -1) return out + markdownText(rest);
    out += markdownText(rest.slice(0, open)) + markdownCode(rest.slice(open + 1, close));
    rest = rest.slice(close + 1);
  }
}

/**
 * Renders blocks as GitHub-flavoured Markdown; figures link their SVG (shown
 * inline by code hosts) and their PNG. Text outside code spans has
 * `\ * _ [ ] < > |` escaped. O(size of the text).
 *
 * @param blocks the document
 * @returns the Markdown, blocks separated by a blank line, ending with one newline
 */
export function toMarkdown(blocks: readonly Block[]): string {
  const parts = blocks.map((block, i) => {
    switch (block.kind) {
      case "heading":
        return `${"#".repeat(block.level)} ${mdInline(block.text)}`;
      case "paragraph":
        return mdInline(block.text);
      case "note":
        return `> ${mdInline(block.text)}`;
      case "list":
        return block.items.map((item) => `- ${mdInline(item)}`).join("\n");
      case "table": {
        const head = `| ${block.header.map(mdInline).join(" | ")} |`;
        const rule = `|${
          block.align.map((a) => a === "right" ? " ---: " : a === "center" ? " :---: " : " --- ")
            .join("|")
        }|`;
        const rows = block.rows.map((row) => `| ${row.map(mdInline).join(" | ")} |`);
        return [head, rule, ...rows].join("\n");
      }
      case "code":
        return mdFence(block.text, "sh");
      case "toc":
        return tocEntries(blocks.slice(i + 1)).map((e) =>
          `${e.level === 3 ? "  " : ""}- [${mdInline(e.text)}](#${e.anchor})`
        ).join("\n");
      case "figure":
        return `![Figure ${block.number}. ${markdownText(block.title)}](${
          figurePath(block.name, "svg")
        })\n\n*Figure ${block.number}. ${mdInline(block.title)}.* ${mdInline(block.caption)} ` +
          `([SVG](${figurePath(block.name, "svg")}), [PNG](${figurePath(block.name, "png")}))`;
    }
  });
  return parts.join("\n\n") + "\n";
}

// ---------------------------------------------------------------- HTML

/**
 * Escapes text for HTML element content and double-quoted attributes.
 *
 * @param text any text
 * @returns the text with `& < > "` as entities
 */
export function htmlEscape(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;",
  );
}

function htmlInline(text: string): string {
  let out = "";
  let rest = text;
  for (;;) {
    const open = rest.indexOf(CODE_OPEN);
    const close = open === -1 ? -1 : rest.indexOf(CODE_CLOSE, open);
    if (close === -1) return out + htmlEscape(lineText(rest));
    out += htmlEscape(lineText(rest.slice(0, open))) +
      `<code>${htmlEscape(lineText(rest.slice(open + 1, close)))}</code>`;
    rest = rest.slice(close + 1);
  }
}

/**
 * A lower-case anchor from heading text: runs of letters and digits joined by `-`.
 *
 * @param text heading text
 * @returns the anchor, without leading or trailing `-`
 */
export function anchor(text: string): string {
  return plainText(text).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

/**
 * Prefixes every `id` of an SVG document, and every reference to one
 * (`url(#id)`, `href="#id"`), so several SVGs can sit in one HTML page without
 * their clip paths and gradients colliding. References to ids the document
 * does not define are left alone. O(size of the SVG).
 *
 * @param svg an SVG document
 * @param prefix prepended to each id (e.g. `forest-`)
 * @returns the document with scoped ids
 */
export function scopeSvgIds(svg: string, prefix: string): string {
  const ids = new Set([...svg.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
  if (ids.size === 0) return svg;
  const scoped = (id: string) => ids.has(id) ? `${prefix}${id}` : id;
  return svg
    .replace(/(\sid=")([^"]+)(")/g, (_, a, id, b) => `${a}${scoped(id)}${b}`)
    .replace(/url\(#([^)]+)\)/g, (_, id) => `url(#${scoped(id)})`)
    .replace(/(href=")#([^"]+)(")/g, (_, a, id, b) => `${a}#${scoped(id)}${b}`);
}

/** The table of contents as nested lists: level-3 entries inside their level-2 entry. */
function tocHtml(entries: { level: 2 | 3; text: string; anchor: string }[]): string {
  let out = "<ul>";
  let open = false;
  entries.forEach((e, n) => {
    const link = `<a href="#${htmlEscape(e.anchor)}">${htmlInline(e.text)}</a>`;
    if (e.level === 2) {
      if (n > 0) out += open ? "</ul></li>" : "</li>";
      open = false;
      out += `\n<li>${link}`;
    } else {
      if (!open) out += "<ul>";
      open = true;
      out += `<li>${link}</li>`;
    }
  });
  if (entries.length > 0) out += open ? "</ul></li>" : "</li>";
  return out + "\n</ul>";
}

/** The HTML page's main column: its maximum width and side padding, in CSS px. */
const MAIN_MAX_WIDTH = 1040;
const MAIN_SIDE_PADDING = 28;

/**
 * The widest a figure is shown in report.html, in CSS px: the main column's
 * maximum width less its side padding. An SVG wider than this is scaled
 * down to it (`max-width: 100%`), and its text with it; the figure builders
 * keep their SVGs within it so no text shows below 10 px (issue 25 item 2:
 * the forest plot was scaled to about 29%, its text to about 3 px).
 */
export const FIGURE_MAX_WIDTH = MAIN_MAX_WIDTH - 2 * MAIN_SIDE_PADDING;

const STYLE = `
body { margin: 0; background: #fff; color: #1a1a1a;
  font: 16px/1.5 "DejaVu Sans", Verdana, sans-serif; }
main { max-width: ${MAIN_MAX_WIDTH}px; margin: 0 auto; padding: 24px ${MAIN_SIDE_PADDING}px 64px; }
h1 { font-size: 1.7em; margin: 0.2em 0 0.6em; }
h2 { font-size: 1.3em; margin: 1.8em 0 0.5em; padding-bottom: 0.2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.1em; margin: 1.4em 0 0.4em; }
code { font: 0.9em "DejaVu Sans Mono", monospace; background: #f2f2f2; padding: 0 0.2em; }
pre { background: #f2f2f2; padding: 10px 12px; overflow-x: auto; }
pre code { background: none; padding: 0; }
blockquote { margin: 1em 0; padding: 8px 14px; border-left: 4px solid #555; background: #f6f6f6; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 3px 8px; vertical-align: top; }
th { background: #eee; text-align: left; }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
td.r { white-space: nowrap; }
td.c, th.c { text-align: center; }
figure { margin: 1.2em 0; }
figure svg { max-width: 100%; height: auto; display: block; }
nav#contents ul { margin: 0.3em 0; }
nav#contents > ul { columns: 2; }
figcaption { font-size: 0.9em; margin-top: 0.4em; }
`.trim();

/** What {@link toHtml} needs besides the blocks. */
export interface HtmlPage {
  /** The page title. */
  title: string;
  /** SVG text per figure name. */
  svgs: Readonly<Record<string, string>>;
}

/**
 * Renders blocks as one self-contained HTML page: inline CSS, every figure's
 * SVG inlined (ids scoped per figure), no script, no external resource. A
 * Content-Security-Policy of `default-src 'none'` makes the browser refuse any
 * fetch the page might still attempt.
 *
 * @param blocks the document
 * @param page the page `title` and `svgs`, the SVG text per figure name (every figure block
 *   must have one)
 * @throws {Error} when a figure has no SVG
 */
export function toHtml(blocks: readonly Block[], page: HtmlPage): string {
  const { title, svgs } = page;
  const body = blocks.map((block, i) => {
    switch (block.kind) {
      case "heading":
        return `<h${block.level} id="${anchor(block.text)}">${
          htmlInline(block.text)
        }</h${block.level}>`;
      case "paragraph":
        return `<p>${htmlInline(block.text)}</p>`;
      case "note":
        return `<blockquote><p>${htmlInline(block.text)}</p></blockquote>`;
      case "list":
        return `<ul>\n${
          block.items.map((item) => `<li>${htmlInline(item)}</li>`).join("\n")
        }\n</ul>`;
      case "table": {
        const cls = (i: number) =>
          block.align[i] === "right"
            ? ' class="r"'
            : block.align[i] === "center"
            ? ' class="c"'
            : "";
        const head = block.header.map((h, i) => `<th${cls(i)}>${htmlInline(h)}</th>`).join("");
        const rows = block.rows.map((row) =>
          `<tr>${row.map((c, i) => `<td${cls(i)}>${htmlInline(c)}</td>`).join("")}</tr>`
        );
        return `<table>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${
          rows.join("\n")
        }\n</tbody>\n</table>`;
      }
      case "code":
        return `<pre><code>${htmlEscape(block.text)}</code></pre>`;
      case "toc":
        return `<nav id="contents">\n${tocHtml(tocEntries(blocks.slice(i + 1)))}\n</nav>`;
      case "figure": {
        if (!Object.hasOwn(svgs, block.name)) {
          throw new Error(`Cannot write HTML: figure "${block.name}" has no rendered SVG`);
        }
        const svg = scopeSvgIds(svgs[block.name].trim(), `${block.name}-`);
        return `<figure id="figure-${block.name}">\n${svg}\n<figcaption><strong>Figure ${block.number}. ${
          htmlInline(block.title)
        }.</strong> ${htmlInline(block.caption)}</figcaption>\n</figure>`;
      }
    }
  });
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${htmlEscape(lineText(plainText(title)))}</title>
<style>
${STYLE}
</style>
</head>
<body>
<main>
${body.join("\n")}
</main>
</body>
</html>
`;
}
