/**
 * Reading what a report is computed from, through the inputs layer: the
 * ledger (strict, streaming, with each row's line), the errata, the plan
 * (checked against its published hash) and the price table, each with its
 * path as given and its SHA-256.
 *
 * @module
 */
import { loadErrata } from "../inputs/errata.ts";
import { loadLedgerTable } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { loadTaskList, type TaskListSource } from "../inputs/task_list.ts";
import { loadPriceTable } from "../inputs/price_table.ts";
import type { ReportInputs } from "./report_model.ts";

/** The files a report reads; paths are kept exactly as given. */
export interface ReportPaths {
  ledger: string;
  plan?: string | null;
  errata?: string | null;
  priceTable?: string | null;
  /** A task list (issue 11): the denominator when there is no plan. */
  taskList?: string | null;
  /** How the task list was chosen (`chooseTaskList`); recorded in summary.json. */
  taskListSource?: TaskListSource;
}

/**
 * Reads the inputs of a report: the ledger strictly (`loadLedgerTable`: every line
 * must parse and fit the schema, ids unique, hash chain intact, not empty),
 * keeping each row's line for validation findings; the errata, the plan
 * (`loadPlan`, which checks the `<plan>.sha256` beside it when there is
 * one), the price table and the task list when given. Paths are recorded as given, never
 * made absolute, so two runs from the same directory record the same bytes.
 * Cost: one streaming pass per file; the rows are held as columns.
 *
 * @param paths the ledger and the optional plan, errata and price table
 * @returns the inputs for `buildReport`
 * @throws {LedgerError} on the first problem in any file (codes as the loaders give them)
 * @example
 * ```ts
 * import { loadReportInputs } from "./load_report_inputs.ts";
 * const ledger = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;
 * const inputs = await loadReportInputs({ ledger });
 * // Seed 001's sample: 8 rows on lines 1..8, no plan, errata or price table.
 * if (inputs.ledger.rows.length !== 8 || inputs.ledger.row_lines.at(7) !== 8) throw new Error();
 * ```
 */
export async function loadReportInputs(paths: ReportPaths): Promise<ReportInputs> {
  return {
    ledger: await loadLedgerTable(paths.ledger),
    errata: paths.errata == null ? null : await loadErrata(paths.errata),
    plan: paths.plan == null ? null : await loadPlan(paths.plan),
    priceTable: paths.priceTable == null ? null : await loadPriceTable(paths.priceTable),
    taskList: paths.taskList == null ? null : await loadTaskList(paths.taskList),
    ...(paths.taskListSource === undefined ? {} : { taskListSource: paths.taskListSource }),
  };
}
