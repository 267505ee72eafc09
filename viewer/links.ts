/**
 * Where the browser's links go: to the server's own paths
 * (`ledgerbench view`), or to the files of a static export (`view --out`).
 * Every link is relative and built here, its query percent-encoded
 * (`href`), so no value can make a scheme or leave its attribute. Pure.
 *
 * @module
 */
import { href } from "./_html.ts";

/** An episode as a link names it: by its id (server), or its row number and line (files). */
export interface LinkedEpisode {
  row: { episode_id: string };
  /** Its row number (0-based, file order) and ledger line (1-based). */
  index: number;
  line: number;
}

/** Episodes a static export's file holds: rows `k × 100` to `k × 100 + 99` in `episode/<k>.html`. */
export const EPISODES_PER_FILE = 100;

/**
 * Rows a static export's table data file holds (`data/rows-<k>.js`,
 * `static_table.ts`): a whole number of table pages.
 */
export const STATIC_DATA_ROWS = 10_000;

/** The links of one page. */
export interface Links {
  /** True for a static export: the table's script filters and pages, no server forms. */
  static: boolean;
  /** The prefix from this page to the browser's root (`""` or `"../"`), for the assets. */
  root: string;
  /** The table with a query (filters, page). */
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
 * const link = SERVER_LINKS.episode({ row: { episode_id: "r/a/t/1" }, index: 2, line: 3 });
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
 * `index.html` (its query read by the page's script),
 * `episode/<k>.html#line-<line>` ({@link EPISODES_PER_FILE} episodes a
 * file), `compare/<line>-<line>.html` (only for the pairs `pairs` holds, as
 * `"<line>-<line>"`).
 *
 * @param depth 0 for `index.html`, 1 for the pages in `episode/` and `compare/`
 * @param pairs the side-by-side pages the export writes
 * @returns the links
 * @example
 * ```ts
 * import { staticLinks } from "./links.ts";
 * const links = staticLinks(1, new Set(["3-4"]));
 * const a = { row: { episode_id: "x" }, index: 2, line: 3 };
 * const b = { row: { episode_id: "y" }, index: 3, line: 4 };
 * if (links.compare(a, b) !== "../compare/3-4.html" || links.compare(b, a) !== null) throw new Error();
 * if (links.episode(a) !== "../episode/0.html#line-3") throw new Error();
 * ```
 */
export function staticLinks(depth: 0 | 1, pairs: ReadonlySet<string>): Links {
  const root = depth === 0 ? "" : "../";
  return {
    static: true,
    root,
    table: (query = {}) => href(`${root}index.html`, query),
    episode: (e) => `${root}episode/${Math.floor(e.index / EPISODES_PER_FILE)}.html#line-${e.line}`,
    compare: (a, b) =>
      pairs.has(`${a.line}-${b.line}`) ? `${root}compare/${a.line}-${b.line}.html` : null,
  };
}
