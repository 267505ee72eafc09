/**
 * The episode browser's first page: the ledger's episodes as a
 * filterable table (agent, task, outcome, stop reason, invalid reason,
 * tokens, wall time, model calls), a page of {@link PAGE_SIZE} rows at a
 * time from the ledger's index (`episode_index.ts`), so a page's size and
 * cost do not grow with the ledger: the agents, outcomes and reasons are
 * choices (they are few), the task a search box (a ledger may hold a
 * hundred thousand tasks). Filters are a plain GET form: they work with
 * no script. Pure.
 *
 * @module
 */
import type { Episode } from "../analysis/schema/records.ts";
import type { AppliedErratum } from "../analysis/errata.ts";
import { formatGrouped } from "../analysis/format_number.ts";
import { distinctShortIds } from "../analysis/untrusted_text.ts";
import { type EpisodeFilter, FILTER_NAMES, outcomeOf, OUTCOMES } from "./episode_filter.ts";
import type { EpisodeIndex, TableRow } from "./episode_index.ts";
import { idSpan, page, selectField, text } from "./_html.ts";
import { type Links, SERVER_LINKS, STATIC_DATA_ROWS } from "./links.ts";

/** Rows a page of the table shows. */
export const PAGE_SIZE = 100;

/** What the table pages are built from. */
export interface LedgerView {
  /** The ledger's path as given, and its SHA-256. */
  path: string;
  sha256: string;
  /** Every row's table fields, in file order (after errata, with the corrections that changed them). */
  index: EpisodeIndex;
  /** The errata file applied on top of the rows, if any. */
  errata?: { path: string; sha256: string; applied: number };
}

/** A row as the browser shows it: after errata, with the corrections applied to it. */
export interface ViewRow {
  row: Episode;
  /** Its row number in the index (0-based, file order) and its ledger line (1-based). */
  index: number;
  line: number;
  /** The errata that changed the row, in errata order (absent or empty: none). */
  corrections?: readonly AppliedErratum[];
}

/** "not recorded" stands for a null, never 0 (issue 11). */
export const NOT_RECORDED = "not recorded";

/**
 * The tokens an episode used: prompt plus completion, grouped; "not
 * recorded" when either is null (an imported row without counts).
 *
 * @param row the ledger row
 * @returns the cell's text
 * @example
 * ```ts
 * import { tokensCell } from "./episode_table_page.ts";
 * if (tokensCell({ prompt_tokens: 1200, completion_tokens: 34 }) !== "1,234") throw new Error();
 * if (tokensCell({ prompt_tokens: null, completion_tokens: null }) !== "not recorded") throw new Error();
 * ```
 */
export function tokensCell(row: Pick<Episode, "prompt_tokens" | "completion_tokens">): string {
  if (row.prompt_tokens === null || row.completion_tokens === null) return NOT_RECORDED;
  return formatGrouped(row.prompt_tokens + row.completion_tokens);
}

/**
 * An episode's wall time in seconds with two decimals; "not recorded" for a null.
 *
 * @param row the ledger row
 * @returns the cell's text
 * @example
 * ```ts
 * import { wallCell } from "./episode_table_page.ts";
 * if (wallCell({ wall_ms: 1234 }) !== "1.23 s" || wallCell({ wall_ms: null }) !== "not recorded") {
 *   throw new Error();
 * }
 * ```
 */
export function wallCell(row: Pick<Episode, "wall_ms">): string {
  return row.wall_ms === null
    ? NOT_RECORDED
    : `${formatGrouped(row.wall_ms / 1000, { digits: 2 })} s`;
}

/**
 * A table cell's text for a count, grouped; "not recorded" for a null.
 *
 * @param value the number or null
 * @returns the cell's text
 * @example
 * ```ts
 * import { countCell } from "./episode_table_page.ts";
 * if (countCell(1234) !== "1,234" || countCell(null) !== "not recorded") throw new Error();
 * ```
 */
export function countCell(value: number | null): string {
  return value === null ? NOT_RECORDED : formatGrouped(value);
}

/**
 * One row of the table, every string escaped.
 *
 * @param shown the row's table fields
 * @param links where its episode link goes
 * @param ids each id column's shortened forms (`distinctShortIds` over the page)
 * @returns the `<tr>` element
 */
function tableRowHtml(
  { row, line, index, corrections }: TableRow,
  links: Links,
  ids: { episode: Map<string, string>; agent: Map<string, string>; task: Map<string, string> },
): string {
  const outcome = outcomeOf(row);
  const corrected = corrections === undefined || corrections.length === 0
    ? ""
    : ` <span class="corrected" title="${
      text(corrections.map((c) => `erratum ${c.erratum_id} (${c.kind})`).join("; "))
    }">corrected</span>`;
  return `<tr data-line="${line}">
<td><a href="${links.episode({ row, line, index })}">${
    idSpan(row.episode_id, ids.episode.get(row.episode_id))
  }</a></td>
<td>${idSpan(row.agent_id, ids.agent.get(row.agent_id))}</td>
<td>${idSpan(row.task_id, ids.task.get(row.task_id))}</td>
<td class="outcome ${outcome}">${outcome}${corrected}</td>
<td>${text(row.stop_reason)}</td>
<td>${row.invalid_reason === null ? "" : text(row.invalid_reason)}</td>
<td class="num">${countCell(row.tokens)}</td>
<td class="num">${wallCell(row)}</td>
<td class="num">${countCell(row.model_calls)}</td>
</tr>`;
}

/**
 * Rows of the table as HTML: each id column's ids shortened together, so
 * no two different ids of the rows look alike.
 *
 * @param rows the rows' table fields
 * @param links where their episode links go
 * @returns the `<tr>` elements
 */
export function tableRowsHtml(rows: readonly TableRow[], links: Links): string {
  const column = (pick: (row: TableRow["row"]) => string) => {
    const ids = rows.map((r) => pick(r.row));
    const forms = distinctShortIds(ids);
    return new Map(ids.map((id, k) => [id, forms[k]]));
  };
  const ids = {
    episode: column((row) => row.episode_id),
    agent: column((row) => row.agent_id),
    task: column((row) => row.task_id),
  };
  return rows.map((r) => tableRowHtml(r, links, ids)).join("\n");
}

/**
 * The table page: the filter form (the agents, outcomes, stop and invalid
 * reasons as choices; the task as a search box: its id contains the text),
 * the matching rows' page `pageNumber` (1-based, clamped to the last page),
 * links to the pages before and after, and a form for the side-by-side
 * view of two agents on one task. A static export's table
 * (`links.static`) is the first page of every row, its form and pager
 * worked by the page's script from the export's row files.
 *
 * Cost: one index query (`EpisodeIndex.query`) and {@link PAGE_SIZE}
 * rows, whatever the ledger's size; no list of every task.
 *
 * @param ledger the ledger's path, digest and index
 * @param options the filters and the page wanted, and where links go (default: the server)
 * @returns the page's HTML
 */
export function episodeTablePage(
  ledger: LedgerView,
  options: { filter: EpisodeFilter; page: number; links?: Links },
): string {
  const links = options.links ?? SERVER_LINKS;
  const filter = links.static ? {} : options.filter;
  const index = ledger.index;
  const found = index.query(filter, options.page, PAGE_SIZE);
  const auto = !links.static;
  const agents = index.agents();
  const form = `<form method="get" action="${links.table()}" class="filters" id="filters"${
    links.static
      ? ` data-static data-rows="${index.size}" data-chunk="${STATIC_DATA_ROWS}" data-page="${PAGE_SIZE}"`
      : ""
  }>
${selectField("agent", "Agent", agents, { chosen: filter.agent, autosubmit: auto })}
<label>Task id contains <input type="search" name="task" value="${
    text(filter.task ?? "")
  }" size="16"></label>
${selectField("outcome", "Outcome", OUTCOMES, { chosen: filter.outcome, autosubmit: auto })}
${
    selectField("stop", "Stop reason", index.stopReasons(), {
      chosen: filter.stop,
      autosubmit: auto,
    })
  }
${
    selectField("invalid", "Invalid reason", index.invalidReasons(), {
      chosen: filter.invalid,
      autosubmit: auto,
    })
  }
<button type="submit">Filter</button> <a href="${links.table()}">Clear</a>
</form>`;
  const body = tableRowsHtml(found.rows.map((i) => index.tableRow(i)), links);
  const filterQuery = Object.fromEntries(FILTER_NAMES.map((name) => [name, filter[name]]));
  const pageLink = (n: number, label: string) =>
    `<a href="${links.table({ ...filterQuery, page: n === 1 ? undefined : String(n) })}" rel="${
      n < found.page ? "prev" : "next"
    }">${label}</a>`;
  const pager = `<p class="pager">Page ${found.page} of ${formatGrouped(found.pages)}${
    found.page > 1 ? ` · ${pageLink(found.page - 1, "previous")}` : ""
  }${found.page < found.pages ? ` · ${pageLink(found.page + 1, "next")}` : ""}</p>`;
  const compareForm = links.static
    ? "<p>Open an episode to see it side by side with another agent's on its task.</p>"
    : `<form method="get" action="compare" class="filters" id="compare-form">
<label>Task id <input type="text" name="task" size="16" required></label>
${selectField("left", "Left agent", agents, { chosen: filter.agent, none: "choose" })}
${selectField("right", "Right agent", agents, { none: "choose" })}
<button type="submit">Side by side</button>
</form>`;
  return page({
    root: links.root,
    static: links.static,
    title: `Episodes: ${ledger.path}`,
    body: `<h1>Episodes of ${text(ledger.path)}</h1>
<p class="meta">SHA-256 ${ledger.sha256} · ${formatGrouped(index.size)} rows${
      ledger.errata === undefined
        ? ""
        : ` · errata ${text(ledger.errata.path)} applied (${ledger.errata.applied} correction${
          ledger.errata.applied === 1 ? "" : "s"
        }, SHA-256 ${ledger.errata.sha256})`
    } · <span id="match-count">${formatGrouped(found.total)}</span> match</p>
${form}
${pager}
<table id="episodes">
<thead><tr><th>Episode</th><th>Agent</th><th>Task</th><th>Outcome</th><th>Stop reason</th><th>Invalid reason</th><th>Tokens</th><th>Wall time</th><th>Model calls</th></tr></thead>
<tbody>
${body}
</tbody>
</table>
<p id="no-match"${found.rows.length === 0 ? "" : " hidden"}>No episode matches these filters.</p>
${pager}
<h2>Two agents on one task</h2>
${compareForm}`,
  });
}
