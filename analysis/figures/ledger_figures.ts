/**
 * Every figure of a ledger in one call: the analysis results are computed
 * with the project's functions and handed to the one figure assembly
 * ({@link assembleFigures}) the report uses too.
 *
 * @module
 */
import { episodeTokens, isScored } from "../classify_episode.ts";
import { censoringSummary } from "../censoring.ts";
import { comparisonMatrix } from "../compare_agents.ts";
import { pilotEstimate } from "../pilot_estimate.ts";
import type { Plan, PriceTable, SprtParams } from "../schema/records.ts";
import type { EpisodeRows } from "../episode_table.ts";
import { calibrateSprt } from "../sprt/calibrate_sprt.ts";
import { replaySprt } from "../sprt/replay_sprt.ts";
import { summarizeAgents } from "../summarize_agents.ts";
import { perResolvedUncertainty } from "../per_resolved_uncertainty.ts";
import { rateInterval } from "../rate_interval.ts";
import { DEFAULT_BOOTSTRAP, DEFAULT_INTERVAL_METHOD, DEFAULT_TIE_BAND } from "../defaults.ts";
import { type AssembledFigure, assembleFigures, type NamedFigure } from "./assemble_figures.ts";

/** The pilot projection's inputs (seed 003). */
export interface LedgerFiguresPilot {
  /** Episodes the planned matrix will run. */
  tasks: number;
  /** Budget in tokens. */
  budget: number;
  /** Safety factor; default 1.25. */
  safety?: number;
  /** Spend per pilot episode; default: prompt + completion tokens of every scored row. */
  spend?: readonly number[];
}

/** The calibration's settings (seed 002). */
export interface LedgerFiguresCalibration {
  /** Monte Carlo trials per rate; default 20,000. */
  trials?: number;
  /** Monte Carlo seed; default 7. */
  seed?: number | string;
  /** True rates of the Monte Carlo points; default 0.30 to 0.70 by 0.10. */
  rates?: readonly number[];
  /** Number of intervals of the exact curve's grid over [0, 1]; default 100. */
  gridSteps?: number;
}

/** Options for {@link ledgerFigures}. */
export interface LedgerFiguresOptions {
  /** The frozen plan: tie band, bootstrap, censoring policy, SPRT parameters and task order. */
  plan?: Plan;
  /** The frozen price table: the cost figure then uses money instead of tokens. */
  priceTable?: PriceTable;
  /** Draw the pilot projection (figure 6) with these inputs. */
  pilot?: LedgerFiguresPilot;
  /** Agents whose SPRT path is drawn; default every agent when the plan stops by SPRT, else none. */
  sprtAgents?: readonly string[];
  /** Draw the SPRT calibration (figure 5); default: when the plan stops by SPRT. */
  calibration?: LedgerFiguresCalibration | boolean;
}

export type { NamedFigure };

/**
 * Builds every figure a ledger supports, through {@link assembleFigures} (the
 * report's order, file stems, titles and captions): forest plot (two or more
 * agents), tokens and seconds per resolved, stop reasons, cost frontier, SPRT
 * calibration, one SPRT path per agent, pilot projection.
 *
 * Inputs to the assembly come from the analysis functions, with the plan's
 * settings when a plan is given (else the seeds' defaults):
 * - `summarizeAgents(rows, {priceTable})`;
 * - `comparisonMatrix(agents, {band: plan.tie_band, rounds/seed: plan.bootstrap,
 *   method: plan.interval_method})`, and each agent's `rateInterval` rule
 *   (the vertical bars of the cost figure);
 * - `perResolvedUncertainty(rows, {rounds/seed: plan.bootstrap, priceTable})`:
 *   the task-cluster intervals of tokens, seconds and cost per resolved and
 *   the task-paired frontier probabilities, over every agent;
 * - `censoringSummary(rows, {policy: plan.censoring})`;
 * - `replaySprt(rows, {agentId, params: plan SPRT params, order: plan task order})`;
 * - `calibrateSprt` (its exact curve on a grid over [0, 1]);
 * - `pilotEstimate(spend, {tasks, budget}, {central: "max"})` and `"mean"`.
 *
 * Pure: no I/O, no clock; the bootstraps and the Monte Carlo are seeded.
 * Cost: dominated by the bootstraps (O(R × tasks × agents)) and, when drawn,
 * the calibration (O(rates × trials × E[N])).
 *
 * @param rows ledger rows, errata already applied
 * @param options plan, price table, pilot inputs, SPRT agents, calibration settings
 * @returns the figures, in order, with unique file-name-safe names
 * @throws {RangeError} when `rows` is empty
 * @throws {Error} when the rows do not match the price table (see `summarizeAgents`)
 * @example
 * ```ts
 * import { Episode } from "../schema/records.ts";
 * import { ledgerFigures } from "./ledger_figures.ts";
 * const base = { run_id: "r", seed: 7, tool_calls: 1, wall_ms: 1000, price_table_id: "p" };
 * const rows = [["a", true], ["a", false], ["b", true], ["b", true]].map(([agent, ok], i) =>
 *   Episode.parse({ ...base, agent_id: agent, task_id: `t${i % 2}`, resolved: ok,
 *     prompt_tokens: 100, completion_tokens: 10 })
 * );
 * const names = ledgerFigures(rows).map((f) => f.name);
 * if (names.join() !== "forest,efficiency,stop_reasons,cost_frontier") {
 *   throw new Error(names.join());
 * }
 * ```
 */
export function ledgerFigures(
  rows: EpisodeRows,
  options: LedgerFiguresOptions = {},
): AssembledFigure[] {
  if (rows.length === 0) throw new RangeError("Cannot build figures: the ledger has no rows");
  const { plan, priceTable } = options;
  const agents = summarizeAgents(rows, { priceTable });
  const band = plan?.tie_band ?? DEFAULT_TIE_BAND;
  const method = plan?.interval_method ?? DEFAULT_INTERVAL_METHOD;
  const bootstrap = {
    rounds: plan?.bootstrap.rounds ?? DEFAULT_BOOTSTRAP.rounds,
    seed: plan?.bootstrap.seed ?? DEFAULT_BOOTSTRAP.seed,
  };
  const comparisons = agents.length >= 2
    ? comparisonMatrix(agents, { band, method, ...bootstrap })
    : [];
  const rateIntervals = agents.flatMap((a) => {
    const rule = rateInterval(a.resolved, a.scored, { method, ...bootstrap }).rule;
    return rule === null ? [] : [{ agent_id: a.agent_id, lower: rule.lower, upper: rule.upper }];
  });
  const sprtParams: Partial<SprtParams> = plan?.stopping.kind === "sprt"
    ? plan.stopping.params
    : {};
  const bySprt = plan?.stopping.kind === "sprt";
  const sprtAgents = options.sprtAgents ?? (bySprt ? agents.map((a) => a.agent_id) : []);
  const order = plan?.tasks.map((t) => t.task_id);
  const replays = sprtAgents.map((agentId) =>
    replaySprt(rows, { agentId, params: sprtParams, order })
  );
  const calibrationOption = options.calibration ?? bySprt;
  const settings = typeof calibrationOption === "object" ? calibrationOption : {};
  const calibration = calibrationOption === false ? null : calibrateSprt(sprtParams, {
    trials: settings.trials,
    seed: settings.seed,
    rates: settings.rates,
  });
  let pilot = null;
  if (options.pilot !== undefined) {
    const { tasks, budget, safety } = options.pilot;
    // rows that did not record their tokens (imported) have no spend to project from
    const spend = options.pilot.spend ??
      Iterator.from(rows).filter(isScored).map(episodeTokens)
        .filter((t): t is number => t !== null).toArray();
    const target = { tasks, budget };
    pilot = {
      spend,
      estimates: [
        pilotEstimate(spend, target, { safety, central: "max" }),
        pilotEstimate(spend, target, { safety, central: "mean" }),
      ],
    };
  }
  return assembleFigures({
    agents,
    comparisons,
    censoring: censoringSummary(rows, { policy: plan?.censoring }),
    band,
    uncertainty: perResolvedUncertainty(rows, { ...bootstrap, priceTable }),
    rateIntervals,
    priceTableId: priceTable?.price_table_id ?? null,
    sprt: replays.length === 0 && calibration === null ? null : {
      params: sprtParams,
      calibration,
      gridSteps: settings.gridSteps ?? 100,
      replays,
    },
    pilot,
  });
}
