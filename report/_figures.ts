/**
 * Which figures a report shows and the vega-lite spec of each: the report's
 * summary handed to the one figure assembly of `analysis/figures/`
 * (`assembleFigures`, which `ledgerFigures` calls too). Agents whose numbers
 * a rule withholds are left out of the capability figures; beside each
 * stop-reason bar the builder itself prints only the scores the censoring
 * policy allows.
 *
 * Private to `report/`.
 *
 * @module
 */
import type { WithheldCause } from "../analysis/agent_standing.ts";
import { type AssembledFigure, assembleFigures } from "../analysis/figures/assemble_figures.ts";
import type { SprtReplay } from "../analysis/sprt/replay_sprt.ts";
import type { ReportSummary } from "./report_model.ts";
import { percent } from "./format.ts";
import { SCORE_WORDS } from "../analysis/score_words.ts";

/** Intervals of the exact operating-characteristic curve's grid over [0, 1]. */
export const CALIBRATION_GRID_STEPS = 100;

/** A figure chosen for the report, before it is numbered. */
export type FigureChoice = AssembledFigure;

/** What {@link figureSpecs} needs besides the summary. */
export interface FigureContext {
  /** The SPRT replays with their steps (the summary keeps only the totals). */
  replays: readonly SprtReplay[];
  /** Agents whose capability numbers may be stated. */
  statedAgents: ReadonlySet<string>;
}

/**
 * The report's figures, in reading order (`assembleFigures`): forest plot of
 * the pairs whose agents may both be stated, tokens and seconds per resolved
 * with their task-cluster intervals (`summary.per_resolved`), stop reasons of
 * every agent (with the scores its claim allows, none when the ledger fails
 * validation), cost against resolved rate with each stated agent's rate
 * interval (`summary.intervals`), cost interval and frontier probability,
 * and with an SPRT plan the exact operating characteristic with the seeded
 * Monte Carlo and each stated agent's SPRT path. Figures with nothing to
 * draw are left out.
 *
 * @param summary the computed summary (without its figure list)
 * @param context the SPRT replays and the agents that may be stated
 * @returns the figures with their file stems, titles, captions and specs
 */
export function figureSpecs(
  summary: Omit<ReportSummary, "figures">,
  context: FigureContext,
): FigureChoice[] {
  return assembleFigures({
    agents: summary.agents,
    comparisons: summary.comparisons,
    censoring: summary.censoring,
    band: summary.parameters.tie_band.value,
    uncertainty: summary.per_resolved,
    rateIntervals: summary.intervals.flatMap((i) =>
      i.rule === null ? [] : [{ agent_id: i.agent_id, lower: i.rule.lower, upper: i.rule.upper }]
    ),
    priceTableId: summary.inputs.price_table?.price_table_id ?? null,
    statedAgents: context.statedAgents,
    scoresWithheld: scoresWithheld(summary),
    scoresInstead: scoresInstead(summary),
    order: summary.leaderboard.map((place) => place.agent_id),
    sprt: summary.sprt === null ? null : {
      params: summary.sprt.params,
      calibration: summary.sprt.calibration,
      gridSteps: CALIBRATION_GRID_STEPS,
      replays: context.replays,
    },
  });
}

/** The causes besides censoring that withhold an agent's scores in the stop-reasons figure. */
const FIGURE_WITHHELD: Partial<Record<WithheldCause, string>> = {
  validation: "the ledger does not validate against its plan",
  missing: "too many planned tasks have no row",
  invalid: "too many attempts are invalid",
  judge_faults: "too many judged rows are judge faults",
};

/** Each agent whose standing withholds its scores for a cause the figure cannot see. */
function scoresWithheld(summary: Omit<ReportSummary, "figures">): Map<string, string> {
  const withheld = new Map<string, string>();
  for (const standing of summary.standings) {
    const reason = standing.withheld === null ? undefined : FIGURE_WITHHELD[standing.withheld];
    if (reason !== undefined) withheld.set(standing.agent_id, reason);
  }
  return withheld;
}

/**
 * The words in place of an agent's censoring-band scores when its claim over
 * every rate (missing tasks, invalid attempts) is "both scores, labelled"
 * while its censoring alone would allow a headline (issue 25 item 3): the
 * score over planned tasks as the lower bound the leaderboard gives.
 */
function scoresInstead(summary: Omit<ReportSummary, "figures">): Map<string, string> {
  const out = new Map<string, string>();
  const censoring = new Map(summary.censoring.agents.map((row) => [row.agent_id, row]));
  const coverage = new Map((summary.coverage ?? []).map((row) => [row.agent_id, row]));
  for (const standing of summary.standings) {
    const row = censoring.get(standing.agent_id);
    if (standing.withheld !== null || row === undefined || standing.claim === row.claim) continue;
    if (standing.claim !== "both_labelled") continue;
    const planned = coverage.get(standing.agent_id);
    out.set(
      standing.agent_id,
      planned === undefined || planned.score_planned === null
        ? `labelled: ${SCORE_WORDS.scored} ${percent(row.score_all_tasks)} (lower bound)`
        : `labelled: ${SCORE_WORDS.planned} ${percent(planned.score_planned)} (lower bound)`,
    );
  }
  return out;
}
