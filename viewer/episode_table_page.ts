/**
 * The episode browser's first page (issue 25): the ledger's episodes as a
 * filterable table (agent, task, outcome, stop reason, invalid reason,
 * tokens, wall time, model calls), a page of {@link PAGE_SIZE} rows at a
 * time, so a ledger of 10,000 rows (the SWE-Bench Pro table has 9,729)
 * sends 100. Filters are a plain GET form: they work with no script. Pure.
 *
 * @module
 */
import type { Episode } from "../analysis/schema/records.ts";
import type { AppliedErratum } from "../analysis/errata.ts";
import { formatGrouped } from "../analysis/format_number.ts";
import { distinctShortIds } from "../analysis/untrusted_text.ts";
import {
  type EpisodeFilter,
  FILTER_NAMES,
  matchesFilter,
  outcomeOf,
  OUTCOMES,
} from "./episode_filter.ts";
import { idSpan, page, text } from "./_html.ts";
import { type Links, SERVER_LINKS } from "./links.ts";

/** Rows a page of the table shows. */
export const PAGE_SIZE = 100;

/** What the table pages are built from. */
export interface LedgerView {
  /** The ledger's path as given, and its SHA-256. */
  path: string;
  sha256: string;
  /** Every row, in file order, with its line (after errata, with the corrections that changed it). */
  rows: readonly ViewRow[];
  /** The errata file applied on top of the rows, if any. */
  errata?: { path: string; sha256: string; applied: number };
}

/** A row as the browser shows it: after errata, with the corrections applied to it. */
export interface ViewRow {
  row: Episode;
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

/** Distinct values, sorted (UTF-16 order, as the analysis sorts ids). */
function distinct(values: Iterable<string | null>): string[] {
  return [...new Set([...values].filter((v): v is string => v !== null))].sort();
}

function select(
  name: string,
  label: string,
  values: readonly string[],
  chosen?: string,
  autosubmit = true,
  none = "all",
): string {
  const options = values.map((value) =>
    `<option value="${text(value)}"${value === chosen ? " selected" : ""}>${text(value)}</option>`
  ).join("");
  return `<label>${label} <select name="${name}"${
    autosubmit ? " data-autosubmit" : ""
  }><option value="">${none}</option>${options}</select></label>`;
}

/**
 * The table page: the filter form (every value the ledger holds), the
 * matching rows' page `pageNumber` (1-based, clamped to the last page),
 * links to the pages before and after, and a form for the side-by-side
 * view of two agents on one task. A static export's table (`links.static`)
 * is one page of every row, each carrying its values as `data-` attributes
 * that the page's script filters by, with no pager and no server form.
 *
 * Cost: O(rows) to filter and list the values; a served page holds at
 * most {@link PAGE_SIZE} rows.
 *
 * @param ledger the ledger's path, digest and rows
 * @param options the filters and the page wanted, and where links go (default: the server)
 * @returns the page's HTML
 */
export function episodeTablePage(
  ledger: LedgerView,
  options: { filter: EpisodeFilter; page: number; links?: Links },
): string {
  const { filter } = options;
  const links = options.links ?? SERVER_LINKS;
  const rows = ledger.rows.map((r) => r.row);
  const matching = links.static
    ? ledger.rows
    : ledger.rows.filter((r) => matchesFilter(r.row, filter));
  const pages = links.static ? 1 : Math.max(1, Math.ceil(matching.length / PAGE_SIZE));
  const current = Math.min(Math.max(1, Math.floor(options.page)), pages);
  const shown = links.static
    ? matching
    : matching.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE);
  const auto = !links.static;
  const agents = distinct(rows.map((r) => r.agent_id));
  const tasks = distinct(rows.map((r) => r.task_id));
  const form = `<form method="get" action="${links.table()}" class="filters" id="filters"${
    links.static ? " data-static" : ""
  }>
${select("agent", "Agent", agents, filter.agent, auto)}
${select("task", "Task", tasks, filter.task, auto)}
${select("outcome", "Outcome", OUTCOMES, filter.outcome, auto)}
${select("stop", "Stop reason", distinct(rows.map((r) => r.stop_reason)), filter.stop, auto)}
${
    select(
      "invalid",
      "Invalid reason",
      distinct(rows.map((r) => r.invalid_reason)),
      filter.invalid,
      auto,
    )
  }
<button type="submit">Filter</button> <a href="${links.table()}">Clear</a>
</form>`;
  // Each id column's ids shortened together: no two different ids of the page look alike.
  const idColumn = (pick: (row: Episode) => string) => {
    const ids = shown.map((r) => pick(r.row));
    const forms = distinctShortIds(ids);
    return new Map(ids.map((id, k) => [id, forms[k]]));
  };
  const episodeIds = idColumn((row) => row.episode_id);
  const agentIds = idColumn((row) => row.agent_id);
  const taskIds = idColumn((row) => row.task_id);
  const body = shown.map(({ row, line, corrections }) => {
    const outcome = outcomeOf(row);
    const corrected = corrections === undefined || corrections.length === 0
      ? ""
      : ` <span class="corrected" title="${
        text(corrections.map((c) => `erratum ${c.erratum_id} (${c.kind})`).join("; "))
      }">corrected</span>`;
    const data = links.static
      ? ` data-agent="${text(row.agent_id)}" data-task="${
        text(row.task_id)
      }" data-outcome="${outcome}"` +
        ` data-stop="${text(row.stop_reason)}" data-invalid="${text(row.invalid_reason ?? "")}"`
      : "";
    return `<tr data-line="${line}"${data}>
<td><a href="${links.episode({ row, line })}">${
      idSpan(row.episode_id, episodeIds.get(row.episode_id))
    }</a></td>
<td>${idSpan(row.agent_id, agentIds.get(row.agent_id))}</td>
<td>${idSpan(row.task_id, taskIds.get(row.task_id))}</td>
<td class="outcome ${outcome}">${outcome}${corrected}</td>
<td>${text(row.stop_reason)}</td>
<td>${row.invalid_reason === null ? "" : text(row.invalid_reason)}</td>
<td class="num">${tokensCell(row)}</td>
<td class="num">${wallCell(row)}</td>
<td class="num">${row.model_calls === null ? NOT_RECORDED : formatGrouped(row.model_calls)}</td>
</tr>`;
  }).join("\n");
  const filterQuery = Object.fromEntries(FILTER_NAMES.map((name) => [name, filter[name]]));
  const pageLink = (n: number, label: string) =>
    `<a href="${links.table({ ...filterQuery, page: n === 1 ? undefined : String(n) })}" rel="${
      n < current ? "prev" : "next"
    }">${label}</a>`;
  const pager = links.static
    ? ""
    : `<p class="pager">Page ${current} of ${pages}${
      current > 1 ? ` · ${pageLink(current - 1, "previous")}` : ""
    }${current < pages ? ` · ${pageLink(current + 1, "next")}` : ""}</p>`;
  const compareForm = links.static
    ? "<p>Open an episode to see it side by side with another agent's on its task.</p>"
    : `<form method="get" action="compare" class="filters" id="compare-form">
${select("task", "Task", tasks, filter.task, false, "choose")}
${select("left", "Left agent", agents, filter.agent, false, "choose")}
${select("right", "Right agent", agents, undefined, false, "choose")}
<button type="submit">Side by side</button>
</form>`;
  return page({
    root: links.root,
    static: links.static,
    title: `Episodes: ${ledger.path}`,
    body: `<h1>Episodes of ${text(ledger.path)}</h1>
<p class="meta">SHA-256 ${ledger.sha256} · ${formatGrouped(ledger.rows.length)} rows${
      ledger.errata === undefined
        ? ""
        : ` · errata ${text(ledger.errata.path)} applied (${ledger.errata.applied} correction${
          ledger.errata.applied === 1 ? "" : "s"
        }, SHA-256 ${ledger.errata.sha256})`
    } · <span id="match-count">${formatGrouped(matching.length)}</span> match</p>
${form}
${pager}
<table id="episodes">
<thead><tr><th>Episode</th><th>Agent</th><th>Task</th><th>Outcome</th><th>Stop reason</th><th>Invalid reason</th><th>Tokens</th><th>Wall time</th><th>Model calls</th></tr></thead>
<tbody>
${body}
</tbody>
</table>
${shown.length === 0 ? "<p>No episode matches these filters.</p>" : ""}
${pager}
<h2>Two agents on one task</h2>
${compareForm}`,
  });
}
