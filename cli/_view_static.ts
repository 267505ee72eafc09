/**
 * `ledgerbench view --out DIR` (issue 25): the browser's pages written as
 * static files, to open with no server: `index.html` (every row; the
 * page's script filters them), `episode/<line>.html` for each row and
 * `compare/<line>-<line>.html` for each pair of two agents' episodes on one
 * task, both with a stored log, up to {@link MAX_STATIC_PAIRS} pairs (past
 * it the episode pages link to none and say so nowhere else: the server
 * builds any pair on demand). The same pure pages as the server's
 * (`viewer/`), with links between files (`staticLinks`).
 *
 * @module
 */
import { comparePage } from "../viewer/compare_page.ts";
import { episodePage } from "../viewer/episode_page.ts";
import { episodeTablePage, type LedgerView, type ViewRow } from "../viewer/episode_table_page.ts";
import { staticLinks } from "../viewer/links.ts";
import { VIEW_CSS, VIEW_JS } from "../viewer/assets.ts";
import type { LogPlace } from "./_episode_evidence.ts";
import { rowEvidence } from "./_view_server.ts";

/** The most side-by-side pages an export writes. */
export const MAX_STATIC_PAIRS = 5000;

/** What {@linkcode writeStaticView} wrote. */
export interface StaticView {
  episodes: number;
  pairs: number;
  /** True when more pairs existed than {@link MAX_STATIC_PAIRS}: none was written. */
  pairs_left_out: boolean;
}

/**
 * Writes the export into `dir` (created; files of the same names are
 * replaced). Pairs are the two orders of every two agents' episodes on one
 * task when both rows name a log (an imported row has nothing to set side
 * by side).
 *
 * Cost: one page per row plus one per pair; each log read once.
 *
 * @param dir the folder to write
 * @param ledger the rows
 * @param place where their logs are
 * @returns the counts written
 * @throws {Deno.errors.PermissionDenied} and other I/O errors of writing
 */
export async function writeStaticView(
  dir: string,
  ledger: LedgerView,
  place: LogPlace,
): Promise<StaticView> {
  const byTask = new Map<string, ViewRow[]>();
  for (const r of ledger.rows) byTask.set(r.row.task_id, [...(byTask.get(r.row.task_id) ?? []), r]);
  const pairs: [ViewRow, ViewRow][] = [];
  for (const rows of byTask.values()) {
    const logged = rows.filter((r) => r.row.episode_log_digest !== undefined);
    for (const a of logged) {
      for (const b of logged) if (a.row.agent_id !== b.row.agent_id) pairs.push([a, b]);
    }
  }
  const leftOut = pairs.length > MAX_STATIC_PAIRS;
  const kept = leftOut ? [] : pairs;
  const names = new Set(kept.map(([a, b]) => `${a.line}-${b.line}`));
  await Deno.mkdir(`${dir}/assets`, { recursive: true });
  await Deno.mkdir(`${dir}/episode`, { recursive: true });
  await Deno.writeTextFile(`${dir}/assets/view.css`, VIEW_CSS);
  await Deno.writeTextFile(`${dir}/assets/view.js`, VIEW_JS);
  await Deno.writeTextFile(
    `${dir}/index.html`,
    episodeTablePage(ledger, { filter: {}, page: 1, links: staticLinks(0, names) }),
  );
  const links = staticLinks(1, names);
  const evidence = new Map<number, Awaited<ReturnType<typeof rowEvidence>>>();
  const of = async (r: ViewRow) => {
    let found = evidence.get(r.line);
    if (found === undefined) {
      found = await rowEvidence(r, place);
      evidence.set(r.line, found);
    }
    return found;
  };
  for (const r of ledger.rows) {
    const page = episodePage(await of(r), byTask.get(r.row.task_id) ?? [], links);
    await Deno.writeTextFile(`${dir}/episode/${r.line}.html`, page);
  }
  if (kept.length > 0) await Deno.mkdir(`${dir}/compare`, { recursive: true });
  for (const [a, b] of kept) {
    const page = comparePage({
      task: a.row.task_id,
      left: a.row.agent_id,
      right: b.row.agent_id,
      leftEpisode: await of(a),
      rightEpisode: await of(b),
      agents: [],
      tasks: [],
    }, links);
    await Deno.writeTextFile(`${dir}/compare/${a.line}-${b.line}.html`, page);
  }
  return { episodes: ledger.rows.length, pairs: kept.length, pairs_left_out: leftOut };
}
