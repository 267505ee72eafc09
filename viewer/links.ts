/**
 * Where the browser's links go (issue 25): to the server's own paths
 * (`ledgerbench view`), or to the files of a static export (`view --out`).
 * Every link is relative and built here, its query percent-encoded
 * (`href`), so no value can make a scheme or leave its attribute. Pure.
 *
 * @module
 */
import { href } from "./_html.ts";
import { htmlEscape } from "../report/_document.ts";

/** An episode as a link names it: by its id (server) or its ledger line (files). */
export interface LinkedEpisode {
  row: { episode_id: string };
  line: number;
}

/** The links of one page. */
export interface Links {
  /** True for a static export: the table is one page the script filters, no server forms. */
  static: boolean;
  /** The prefix from this page to the browser's root (`""` or `"../"`), for the assets. */
  root: string;
  /** The table with a query (filters, page); a static export has one table page. */
  table(query?: Record<string, string | undefined>): string;
  /** One episode's page. */
  episode(episode: LinkedEpisode): string;
  /** Two episodes side by side; null when the export holds no such page. */
  compare(left: LinkedEpisode, right: LinkedEpisode): string | null;
}

/**
 * The server's links: `./?QUERY`, `episode?id=ID`, `compare?a=ID&b=ID`.
 *
 * @example
 * ```ts
 * import { SERVER_LINKS } from "./links.ts";
 * const link = SERVER_LINKS.episode({ row: { episode_id: "r/a/t/1" }, line: 3 });
 * if (link !== "episode?id=r%2Fa%2Ft%2F1") throw new Error(link);
 * ```
 */
export const SERVER_LINKS: Links = {
  static: false,
  root: "",
  table: (query = {}) => href("./", query),
  episode: (e) => href("episode", { id: e.row.episode_id }),
  compare: (a, b) => href("compare", { a: a.row.episode_id, b: b.row.episode_id }),
};

/**
 * A static export's links, from a page `depth` folders below its root:
 * `index.html`, `episode/<line>.html`, `compare/<line>-<line>.html` (only
 * for the pairs `pairs` holds, as `"<line>-<line>"`).
 *
 * @param depth 0 for `index.html`, 1 for the pages in `episode/` and `compare/`
 * @param pairs the side-by-side pages the export writes
 * @returns the links
 * @example
 * ```ts
 * import { staticLinks } from "./links.ts";
 * const links = staticLinks(1, new Set(["3-4"]));
 * const a = { row: { episode_id: "x" }, line: 3 };
 * const b = { row: { episode_id: "y" }, line: 4 };
 * if (links.compare(a, b) !== "../compare/3-4.html" || links.compare(b, a) !== null) throw new Error();
 * ```
 */
export function staticLinks(depth: 0 | 1, pairs: ReadonlySet<string>): Links {
  const root = depth === 0 ? "" : "../";
  return {
    static: true,
    root,
    table: () => htmlEscape(`${root}index.html`),
    episode: (e) => `${root}episode/${e.line}.html`,
    compare: (a, b) =>
      pairs.has(`${a.line}-${b.line}`) ? `${root}compare/${a.line}-${b.line}.html` : null,
  };
}
