/**
 * The HTML building blocks of the episode browser's pages: every
 * untrusted string goes through one of these, by the report's rule
 * (`analysis/untrusted_text.ts` for the characters, `report/_document.ts`'s
 * `htmlEscape` for the markup), and every page carries the browser's
 * Content-Security-Policy, so that even an escaping slip runs nothing.
 *
 * @module
 */
import { displayId, lineText, terminalText } from "../analysis/untrusted_text.ts";
import { htmlEscape } from "../report/_document.ts";

/**
 * The policy of every page, as the `<meta>` element carries it: nothing by
 * default; styles, scripts and images from the page's own origin only (no
 * inline script or style, no `eval`), forms sent only to the page's
 * origin, no `<base>`.
 */
const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
  "form-action 'self'; base-uri 'none'";

/**
 * The policy the server sends as a header: the page's, and no framing by
 * another page (`frame-ancestors`, which a `<meta>` element cannot carry).
 */
export const CONTENT_SECURITY_POLICY = `${PAGE_POLICY}; frame-ancestors 'none'`;

/**
 * Untrusted text for one line of a page (a cell, a heading): unsafe
 * characters as escapes (`lineText`), then `& < > "` as entities.
 *
 * @param value untrusted text
 * @returns HTML text, safe in element content and in double-quoted attributes
 * @example
 * ```ts
 * import { text } from "./_html.ts";
 * if (text('<img src=x onerror="a()">\n') !== "&lt;img src=x onerror=&quot;a()&quot;&gt;\\n") {
 *   throw new Error();
 * }
 * ```
 */
export function text(value: string): string {
  return htmlEscape(lineText(value));
}

/**
 * Untrusted text of several lines (a log tail, a message) for a `<pre>`:
 * as {@link text}, but line feeds and tabs kept (`terminalText`).
 *
 * @param value untrusted text
 * @returns HTML text
 */
export function block(value: string): string {
  return htmlEscape(terminalText(value));
}

/**
 * An id as the report shows it: shortened keeping its real tail
 * (`displayId`, or the form `distinctShortIds` gave it among the ids shown
 * beside it), with the whole id (escaped) in a `title` attribute.
 *
 * @param id untrusted id
 * @param shown its shortened form (default `displayId(id)`)
 * @returns a `<span>` with the shown id and its title
 */
export function idSpan(id: string, shown: string = displayId(id)): string {
  return `<span class="id" title="${text(id)}">${htmlEscape(shown)}</span>`;
}

/** Options of {@link selectField}. */
export interface SelectFieldOptions {
  /** The chosen value, marked `selected`. */
  chosen?: string;
  /** Whether the page's script submits the form on a change (`data-autosubmit`). */
  autosubmit?: boolean;
  /** The label of the empty first option (default "all"). */
  none?: string;
}

/**
 * A `<select>` of untrusted values: each option shows the value as
 * {@link text} shows it (controls made visible) and submits the value
 * itself, escaped only for the attribute (`&`, `<`, `>`, `"`), so that
 * choosing an id the page shows with a visible escape still finds its rows.
 *
 * @param name the form field's name
 * @param label the label's text (trusted)
 * @param values the untrusted values
 * @param options the chosen value, autosubmit, the empty option's label
 * @returns the labelled `<select>`
 * @example
 * ```ts
 * import { selectField } from "./_html.ts";
 * const html = selectField("agent", "Agent", ["a\u001bb"]);
 * if (!html.includes('value="a\u001bb"') || !html.includes(">a\\x1bb<")) throw new Error(html);
 * ```
 */
export function selectField(
  name: string,
  label: string,
  values: readonly string[],
  options: SelectFieldOptions = {},
): string {
  const items = values.map((value) =>
    `<option value="${htmlEscape(value)}"${value === options.chosen ? " selected" : ""}>${
      text(value)
    }</option>`
  ).join("");
  return `<label>${label} <select name="${name}"${
    options.autosubmit === true ? " data-autosubmit" : ""
  }><option value="">${options.none ?? "all"}</option>${items}</select></label>`;
}

/**
 * A link's `href` within the browser: a path of the server's own plus a
 * query whose values are percent-encoded (`URLSearchParams`), so no value
 * can make a scheme (`javascript:`) or leave the attribute.
 *
 * @param path the server's path, e.g. `"episode"`
 * @param query the query's names and values (undefined values are left out)
 * @returns the escaped relative URL
 * @example
 * ```ts
 * import { href } from "./_html.ts";
 * if (href("episode", { id: 'javascript:alert("x")' }) !== "episode?id=javascript%3Aalert%28%22x%22%29") {
 *   throw new Error(href("episode", { id: 'javascript:alert("x")' }));
 * }
 * ```
 */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") params.set(name, value);
  }
  const search = params.toString().replaceAll("(", "%28").replaceAll(")", "%29");
  return htmlEscape(search === "" ? path : `${path}?${search}`);
}

/** What a page holds besides its body. */
export interface PageShell {
  /** The page's title (untrusted parts already in it are escaped here). */
  title: string;
  /** The body's HTML. */
  body: string;
  /** The prefix from the page to the browser's root (`""` or `"../"`); default `""`. */
  root?: string;
  /** A static export's page: no link to the server's side-by-side form. */
  static?: boolean;
}

/**
 * A whole page: the policy in a `<meta>` element, the browser's own
 * stylesheet and script (`assets/`), no referrer, the navigation bar.
 *
 * @param shell the title and the body
 * @returns the document
 */
export function page(shell: PageShell): string {
  const root = shell.root ?? "";
  const nav = shell.static === true
    ? `<a href="${root}index.html">Episodes</a>`
    : `<a href="./">Episodes</a> · <a href="compare">Side by side</a>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${PAGE_POLICY}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text(shell.title)}</title>
<link rel="stylesheet" href="${root}assets/view.css">
<script src="${root}assets/view.js" defer></script>
</head>
<body>
<nav>${nav}</nav>
<main>
${shell.body}
</main>
</body>
</html>
`;
}
