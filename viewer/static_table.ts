/**
 * A static export's table data (`view --out`): the rows' cells in files of
 * `STATIC_DATA_ROWS` rows (`links.ts`), `data/rows-<k>.js`, each one call of
 * `ledgerbenchRows(k, rows)` that the table's script loads (a script, since
 * a page opened from `file://` may not fetch a file; the page's policy
 * allows scripts of its own origin). The cells are the server's: the same
 * shortened ids, numbers and "not recorded"; every string is plain text
 * that the script puts in the page as text (`textContent`), never as
 * markup, and a JSON string in the file. Pure.
 *
 * @module
 */
import { lineText } from "../analysis/untrusted_text.ts";
import { distinctShortIds } from "../analysis/untrusted_text.ts";
import { outcomeOf } from "./episode_filter.ts";
import type { TableRow } from "./episode_index.ts";
import { countCell, PAGE_SIZE, wallCell } from "./episode_table_page.ts";
import { EPISODES_PER_FILE } from "./links.ts";

/**
 * One data file: the rows' cells, in order `line, episode file, episode id,
 * shown, agent, shown, task, shown, outcome, corrections, stop reason,
 * invalid reason, tokens, wall time, model calls`; ids shortened together
 * a table page at a time, as the server's pages shorten them.
 *
 * @param k the file's number
 * @param rows the file's rows (from row `k × STATIC_DATA_ROWS`), in file order
 * @returns the script's text
 * @example
 * ```ts
 * import { staticDataScript } from "./static_table.ts";
 * const script = staticDataScript(0, []);
 * if (script !== "ledgerbenchRows(0,[]);\n") throw new Error(script);
 * ```
 */
export function staticDataScript(k: number, rows: readonly TableRow[]): string {
  const cells: (string | number)[][] = [];
  for (let from = 0; from < rows.length; from += PAGE_SIZE) {
    const page = rows.slice(from, from + PAGE_SIZE);
    const episodes = distinctShortIds(page.map((r) => r.row.episode_id));
    const agents = distinctShortIds(page.map((r) => r.row.agent_id));
    const tasks = distinctShortIds(page.map((r) => r.row.task_id));
    page.forEach(({ row, line, index, corrections }, j) => {
      cells.push([
        line,
        Math.floor(index / EPISODES_PER_FILE),
        lineText(row.episode_id),
        episodes[j],
        lineText(row.agent_id),
        agents[j],
        lineText(row.task_id),
        tasks[j],
        outcomeOf(row),
        lineText((corrections ?? []).map((c) => `erratum ${c.erratum_id} (${c.kind})`).join("; ")),
        lineText(row.stop_reason),
        lineText(row.invalid_reason ?? ""),
        countCell(row.tokens),
        wallCell(row),
        countCell(row.model_calls),
      ]);
    });
  }
  return `ledgerbenchRows(${k},${JSON.stringify(cells)});\n`;
}
