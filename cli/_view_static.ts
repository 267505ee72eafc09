/**
 * `ledgerbench view --out DIR`: the browser's pages written as static
 * files, to open with no server, in a number of files bounded by the
 * ledger's rows over a hundred: `index.html` (the table's first page;
 * its script filters and pages from the row files), `data/rows-<k>.js`
 * (`STATIC_DATA_ROWS` rows each, `viewer/static_table.ts`),
 * `episode/<k>.html` (`EPISODES_PER_FILE` episodes each, `#line-<line>`)
 * and `compare/<line>-<line>.html` for each pair of two agents' episodes
 * on one task, both with a stored log, up to {@link MAX_STATIC_PAIRS}
 * pairs (past it the episode pages link to none: the server builds any
 * pair on demand). A ledger of more than {@link MAX_STATIC_ROWS} rows is
 * refused before anything is written: the server pages any size. The same
 * pure pages as the server's (`viewer/`), with links between files
 * (`staticLinks`).
 *
 * @module
 */
import { comparePage } from "../viewer/compare_page.ts";
import { episodeBody, type EpisodeEvidence, type Neighbour } from "../viewer/episode_page.ts";
import { episodeTablePage, type ViewRow } from "../viewer/episode_table_page.ts";
import { EPISODES_PER_FILE, STATIC_DATA_ROWS, staticLinks } from "../viewer/links.ts";
import { staticDataScript } from "../viewer/static_table.ts";
import { page } from "../viewer/_html.ts";
import { VIEW_CSS, VIEW_JS } from "../viewer/assets.ts";
import { formatGrouped } from "../analysis/format_number.ts";
import type { LogPlace } from "./_episode_evidence.ts";
import { rowEvidence } from "./_view_server.ts";
import type { ViewLedger } from "./_view_rows.ts";
import { InputError } from "./_command.ts";

/** The most side-by-side pages an export writes. */
export const MAX_STATIC_PAIRS = 5000;

/** The most rows an export writes (2,000 episode files, 20 data files). */
export const MAX_STATIC_ROWS = 200_000;

/** What {@linkcode writeStaticView} wrote. */
export interface StaticView {
  episodes: number;
  /** Files written in all (assets, table, data, episodes, pairs). */
  files: number;
  pairs: number;
  /** True when more pairs existed than {@link MAX_STATIC_PAIRS}: none was written. */
  pairs_left_out: boolean;
}

/**
 * The pairs of two agents' logged episodes on one task, both orders, keyed
 * by the left row: none when they number more than {@link MAX_STATIC_PAIRS}
 * (counted per task from its rows per agent, never listed then). Cost:
 * O(rows).
 */
function staticPairs(ledger: ViewLedger): { pairs: Map<number, Neighbour[]>; leftOut: boolean } {
  const index = ledger.index;
  const pairs = new Map<number, Neighbour[]>();
  let count = 0;
  for (let i = 0; i < index.size; i++) {
    const rows = index.taskRowsOf(i);
    if (rows[0] !== i) continue; // each task once, at its first row
    const logged = Array.from(rows).filter((r) => index.logged(r));
    const perAgent = new Map<string, number>();
    for (const r of logged) {
      perAgent.set(index.agentOf(r), (perAgent.get(index.agentOf(r)) ?? 0) + 1);
    }
    count += logged.length ** 2 - [...perAgent.values()].reduce((sum, c) => sum + c * c, 0);
    if (count > MAX_STATIC_PAIRS) return { pairs: new Map(), leftOut: true };
    for (const a of logged) {
      for (const b of logged) {
        if (index.agentOf(a) === index.agentOf(b)) continue;
        const list = pairs.get(a) ?? [];
        list.push({
          row: { episode_id: index.episodeId(b), agent_id: index.agentOf(b) },
          index: b,
          line: index.lineOf(b),
        });
        pairs.set(a, list);
      }
    }
  }
  return { pairs, leftOut: false };
}

/**
 * Writes the export into `dir` (created; files of the same names are
 * replaced). Pairs are the two orders of every two agents' episodes on one
 * task when both rows name a log (an imported row has nothing to set side
 * by side).
 *
 * Cost: one pass over the rows per kind of file, each row and each log
 * read once (a pair's two logs once more).
 *
 * @param dir the folder to write
 * @param ledger the ledger's index and rows
 * @param place where their logs are
 * @returns the counts written
 * @throws {InputError} for a ledger of more than {@link MAX_STATIC_ROWS} rows
 * @throws {Deno.errors.PermissionDenied} and other I/O errors of writing
 */
export async function writeStaticView(
  dir: string,
  ledger: ViewLedger,
  place: LogPlace,
): Promise<StaticView> {
  const index = ledger.index;
  if (index.size > MAX_STATIC_ROWS) {
    throw new InputError(
      `Option "--out": ${ledger.path} holds ${formatGrouped(index.size)} rows, more than the ${
        formatGrouped(MAX_STATIC_ROWS)
      } a static export writes: browse it with "ledgerbench view ${ledger.path}"`,
    );
  }
  const { pairs, leftOut } = staticPairs(ledger);
  const names = new Set<string>();
  for (const [a, list] of pairs) for (const b of list) names.add(`${index.lineOf(a)}-${b.line}`);
  let files = 0;
  const write = async (path: string, text: string) => {
    await Deno.writeTextFile(`${dir}/${path}`, text);
    files++;
  };
  for (const sub of ["assets", "data", "episode"]) {
    await Deno.mkdir(`${dir}/${sub}`, { recursive: true });
  }
  await write("assets/view.css", VIEW_CSS);
  await write("assets/view.js", VIEW_JS);
  await write(
    "index.html",
    episodeTablePage(ledger, { filter: {}, page: 1, links: staticLinks(0, names) }),
  );
  for (let from = 0; from < index.size; from += STATIC_DATA_ROWS) {
    const rows = [];
    for (let i = from; i < Math.min(index.size, from + STATIC_DATA_ROWS); i++) {
      rows.push(index.tableRow(i));
    }
    await write(
      `data/rows-${from / STATIC_DATA_ROWS}.js`,
      staticDataScript(from / STATIC_DATA_ROWS, rows),
    );
  }
  const links = staticLinks(1, names);
  // The logs a pair shows, read once for its two episodes' files and its page.
  const paired = new Map<number, EpisodeEvidence>();
  const evidence = async (r: ViewRow) => {
    const found = paired.get(r.index) ?? await rowEvidence(r, place);
    if (pairs.has(r.index)) paired.set(r.index, found);
    return found;
  };
  for (let from = 0; from < index.size; from += EPISODES_PER_FILE) {
    const rows = await ledger.rows(from, Math.min(index.size, from + EPISODES_PER_FILE));
    const articles: string[] = [];
    for (const r of rows) {
      articles.push(
        `<article class="episode" id="line-${r.line}">${
          episodeBody(await evidence(r), pairs.get(r.index) ?? [], links)
        }</article>`,
      );
    }
    await write(
      `episode/${from / EPISODES_PER_FILE}.html`,
      page({
        root: links.root,
        static: true,
        title: `Episodes ${from + 1} to ${from + rows.length} of ${ledger.path}`,
        body: articles.join("\n"),
      }),
    );
  }
  if (pairs.size > 0) await Deno.mkdir(`${dir}/compare`, { recursive: true });
  for (const [a, list] of pairs) {
    const left = paired.get(a)!;
    for (const b of list) {
      const right = paired.get(b.index)!;
      await write(
        `compare/${left.line}-${right.line}.html`,
        comparePage({
          task: left.row.task_id,
          left: left.row.agent_id,
          right: right.row.agent_id,
          leftEpisode: left,
          rightEpisode: right,
          agents: [],
        }, links),
      );
    }
  }
  return { episodes: index.size, files, pairs: names.size, pairs_left_out: leftOut };
}
