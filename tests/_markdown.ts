/**
 * What the documentation tests read from Markdown: the guides' files
 * (README.md and docs/*.md), their fenced code blocks with the info string's
 * markers, their links and the anchors their headings make (CommonMark's
 * fences, GitHub's heading ids).
 *
 * @module
 */

/** The repository root, as a path ending in `/`. */
export const DOCS_ROOT = new URL("..", import.meta.url).pathname;

/**
 * The documentation the tests hold to their rules: README.md and every
 * Markdown file of docs/, relative to the root, sorted.
 *
 * @returns the paths
 */
export async function docFiles(): Promise<string[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(`${DOCS_ROOT}docs`)) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  return files.sort();
}

/** One fenced code block of a Markdown file. */
export interface FencedBlock {
  /** The file, relative to the root. */
  file: string;
  /** The 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`sh`, `json`, `text`...), "" when none. */
  lang: string;
  /** The info string's other words: `key=value`, `key="a value"`, or a bare `key` (value ""). */
  attributes: Record<string, string>;
  /** The block's content, each line ending in a newline. */
  text: string;
}

/**
 * The fenced code blocks of `markdown` (CommonMark: a fence of three or more
 * backticks or tildes, closed by a fence of the same character at least as
 * long; an unclosed block runs to the end), with each info string read as a
 * language and attributes.
 *
 * @param markdown the file's text
 * @param file its path, recorded in each block
 * @returns the blocks, in order
 * @throws {Error} on an info string it cannot read (an unclosed quote), naming the file and line
 * @example
 * ```ts
 * import { fencedBlocks } from "./_markdown.ts";
 * const fence = "`".repeat(3);
 * const markdown = `${fence}sh needs=docker reason="a b"\nls\n${fence}\n`;
 * const [block] = fencedBlocks(markdown, "x.md");
 * if (block.lang !== "sh" || block.attributes.reason !== "a b" || block.text !== "ls\n") {
 *   throw new Error("misread");
 * }
 * ```
 */
export function fencedBlocks(markdown: string, file: string): FencedBlock[] {
  const lines = markdown.split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (open === null) continue;
    const [, fence, info] = open;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length; i++) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[i]);
      if (close !== null && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(`${lines[i]}\n`);
    }
    const [lang, attributes] = readInfo(info.trim(), `${file}:${start + 1}`);
    blocks.push({ file, line: start + 1, lang, attributes, text: body.join("") });
  }
  return blocks;
}

/** An info string's first word and its `key=value` words. */
function readInfo(info: string, where: string): [string, Record<string, string>] {
  const lang = /^\S*/.exec(info)![0];
  const rest = info.slice(lang.length);
  const attributes: Record<string, string> = {};
  let read = 0;
  for (const word of rest.matchAll(/\s+([^\s="]+)(?:=(?:"([^"]*)"|([^\s"]+)))?/g)) {
    if (word.index !== read) break;
    attributes[word[1]] = word[2] ?? word[3] ?? "";
    read = word.index + word[0].length;
  }
  if (rest.slice(read).trim() !== "") {
    throw new Error(`${where}: cannot read the info string "${info}"`);
  }
  return [lang, attributes];
}

/** One inline link or image of a Markdown file, outside code. */
export interface MarkdownLink {
  /** The 1-based line it is on. */
  line: number;
  /** Its destination as written. */
  target: string;
}

/**
 * The inline links (`[text](target)`) of `markdown`, outside fenced code
 * blocks and code spans, and its reference definitions (`[label]: target`).
 *
 * @param markdown the file's text
 * @returns the links, in order
 * @example
 * ```ts
 * import { markdownLinks } from "./_markdown.ts";
 * const fence = "`".repeat(3);
 * const links = markdownLinks(`See [a](a.md#x) and \`[b](b.md)\`.\n${fence}\n[c](c.md)\n${fence}\n`);
 * if (links.length !== 1 || links[0].target !== "a.md#x") throw new Error("misread");
 * ```
 */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  outsideFences(markdown, (text, line) => {
    const prose = text.replace(/(`+)[^`]*?\1/g, "");
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line, target: match[1] });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (definition !== null) links.push({ line, target: definition[1] });
  });
  return links;
}

/**
 * The anchors GitHub gives the headings of `markdown` (outside fenced code):
 * the heading's text lower-cased, with code-span backticks, link syntax and
 * every character but letters, digits, spaces, `-` and `_` removed, spaces
 * turned into `-`; a repeated anchor gets `-1`, `-2`...
 *
 * @param markdown the file's text
 * @returns the set of anchors
 * @example
 * ```ts
 * import { headingAnchors } from "./_markdown.ts";
 * const anchors = headingAnchors("# A task's own `environment`\n## Notes\n## Notes\n");
 * if (!anchors.has("a-tasks-own-environment") || !anchors.has("notes-1")) throw new Error();
 * ```
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  outsideFences(markdown, (text) => {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading === null) return;
    const base = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  });
  return anchors;
}

/** Calls `visit` with each line of `markdown` that is not inside a fenced code block. */
function outsideFences(markdown: string, visit: (text: string, line: number) => void): void {
  let fence: string | null = null;
  markdown.split("\n").forEach((text, i) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === null && marker !== undefined) {
      fence = marker;
    } else if (
      fence !== null && marker !== undefined && marker[0] === fence[0] &&
      marker.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(text)
    ) {
      fence = null;
    } else if (fence === null) {
      visit(text, i + 1);
    }
  });
}
