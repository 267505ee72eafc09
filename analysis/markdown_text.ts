/**
 * Untrusted text placed in Markdown: as plain text or as a code span, so
 * that an id such as `instance_gravitational__teleport-…` keeps every
 * character when rendered and copied back.
 *
 * @module
 */
import { lineText } from "./untrusted_text.ts";

/**
 * Plain Markdown text: untrusted characters escaped by `lineText` (so an id
 * never breaks the line and starts a heading, a list or a fence), then every
 * ASCII punctuation that could open inline syntax (`` \ ` * _ [ ] < > | ``)
 * backslash-escaped (CommonMark 0.31.2, section 2.4: any ASCII punctuation
 * may be backslash-escaped, and renders as itself).
 *
 * @param text untrusted text
 * @returns the text as Markdown that renders as the text
 * @example
 * ```ts
 * import { markdownText } from "./markdown_text.ts";
 * // Without the escapes, "__teleport__" would render bold and lose its underscores.
 * if (markdownText("a__teleport__b") !== "a\\_\\_teleport\\_\\_b") throw new Error();
 * ```
 */
export function markdownText(text: string): string {
  return lineText(text).replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`);
}

/**
 * The longest run of backticks in `text` (0 when none): a fence one longer
 * cannot be closed by anything inside (CommonMark 0.31.2, sections 4.5 and 6.1).
 *
 * @param text the text to be fenced
 * @returns the length of its longest backtick run
 * @example
 * ```ts
 * import { longestBacktickRun } from "./markdown_text.ts";
 * if (longestBacktickRun("a `` b ` c") !== 2) throw new Error();
 * ```
 */
export function longestBacktickRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
}

/**
 * A code span (CommonMark 0.31.2, section 6.1): the text through `lineText`
 * (one line, no control or bidirectional character), between fences one
 * backtick longer than its longest backtick run, so nothing inside can close
 * the span; padded with a space on each side when it starts or ends with a
 * backtick, or with a space on both sides (the one space CommonMark strips).
 *
 * @param text untrusted text
 * @returns a code span showing the text verbatim
 * @example
 * ```ts
 * import { markdownCode } from "./markdown_text.ts";
 * if (markdownCode("a`b") !== "``a`b``") throw new Error();
 * ```
 */
export function markdownCode(text: string): string {
  const shown = lineText(text);
  const fence = "`".repeat(longestBacktickRun(shown) + 1);
  const pad = /^`|`$/.test(shown) || (/^ .* $/.test(shown) && shown.trim() !== "") ? " " : "";
  return `${fence}${pad}${shown}${pad}${fence}`;
}
