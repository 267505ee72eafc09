/**
 * The one view of a ledger every figure is computed from (issue 23: the rows
 * that count were assembled in `cli/_load.ts`, `report/build_report.ts` and
 * five notebooks, and four notebooks kept the rows of an uncalibrated judge,
 * so on such a ledger they showed other numbers than the CLI and the
 * report). The commands, the report and the notebooks all call
 * {@link ledgerView}.
 *
 * @module
 */
import { applyErrata, type ErrataApplication, type ErrataFile } from "./errata.ts";
import {
  type JudgeFigures,
  judgeFigures,
  judgeLeftOut,
  type LeftOutTask,
} from "./judge/judge_rows.ts";
import { priceTableMix } from "./price_table_mix.ts";
import type { EpisodeRows } from "./episode_table.ts";

/** A ledger as every figure sees it. */
export interface LedgerView {
  /** Every row after errata, in ledger order: what the judge's figures and the price check read. */
  corrected: EpisodeRows;
  /**
   * The rows formal scores count: the corrected rows without those whose
   * LLM judge was not calibrated (`judgeLeftOut`; seed 000: the tasks that
   * depend on the judge are not scored for now).
   */
  rows: EpisodeRows;
  /** The tasks whose rows are left out of {@link LedgerView.rows}, in the order of their first row. */
  left_out: LeftOutTask[];
  /** The judge's figures over every corrected row; null when no row carries a judge record. */
  judge: JudgeFigures | null;
  /** What the errata changed; null without errata. */
  errata: ErrataApplication | null;
  /** The warning when the corrected rows name several price tables (`priceTableMix`); else null. */
  price_mix: string | null;
}

/**
 * The view of a ledger's rows: the errata applied on top of them (seed 000:
 * never rewriting the ledger), then the rows of an uncalibrated LLM judge
 * left out of formal scores with their tasks listed (issue 14), the judge's
 * own figures over every corrected row, and the price-table check. Pure;
 * O(rows + errata).
 *
 * @param recorded the ledger's rows as recorded, in ledger order
 * @param errata the errata file; null without one
 * @param options `lenient`: errata that cannot apply are listed in `errata.problems` instead of thrown
 * @returns the view
 * @throws {LedgerError} when an erratum cannot apply and `lenient` is not set
 * @example
 * ```ts
 * import { ledgerView } from "./ledger_view.ts";
 * import { Episode } from "./schema/records.ts";
 * const row = Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t", seed: 1, resolved: true, prompt_tokens: 1,
 *   completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p",
 * });
 * const view = ledgerView([row], null);
 * if (view.rows.length !== 1 || view.judge !== null || view.left_out.length !== 0) throw new Error();
 * ```
 */
export function ledgerView(
  recorded: EpisodeRows,
  errata: ErrataFile | null,
  options: { lenient?: boolean } = {},
): LedgerView {
  const application = errata === null ? null : applyErrata(recorded, errata, options);
  const corrected = application === null ? recorded : application.rows;
  const figures = judgeFigures(corrected);
  const { counted, leftOut } = judgeLeftOut(corrected);
  return {
    corrected,
    rows: counted,
    left_out: leftOut,
    judge: figures.rows === 0 ? null : figures,
    errata: application,
    price_mix: priceTableMix(corrected),
  };
}
