/**
 * Every figure of a ledger in one call: the analysis results are computed
 * with the project's functions and handed to the builders of this folder.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { episodeTokens, isScored } from "../classify_episode.ts";
import { censoringSummary } from "../censoring.ts";
import { comparisonMatrix } from "../compare_agents.ts";
import { pilotEstimate } from "../pilot_estimate.ts";
import type { Episode, Plan, PriceTable, SprtParams } from "../schema.ts";
import { calibrateSprt } from "../sprt/calibrate_sprt.ts";
import { replaySprt } from "../sprt/replay_sprt.ts";
import { sprtOperatingCharacteristic } from "../sprt/sprt_operating_characteristic.ts";
import { summarizeAgents } from "../summarize_agents.ts";
import { agentEpisodeSamples, agentRatioIntervals } from "../ratio_bootstrap.ts";
import { paretoFrontierProbability } from "../pareto_frontier.ts";
import { bootstrapRate } from "../bootstrap_rate.ts";
import { DEFAULT_BOOTSTRAP } from "../defaults.ts";
import { costFrontierPlot } from "./cost_frontier_plot.ts";
import { efficiencyPlot } from "./efficiency_plot.ts";
import { forestPlot } from "./forest_plot.ts";
import { pilotProjectionPlot } from "./pilot_projection_plot.ts";
import { sprtCalibrationPlot } from "./sprt_calibration_plot.ts";
import { sprtPathPlot } from "./sprt_path_plot.ts";
import { stopReasonsPlot } from "./stop_reasons_plot.ts";
import { displayId } from "../untrusted_text.ts";
import { DEFAULT_TIE_BAND } from "../defaults.ts";

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

/** One figure: a file-name-safe name, the builder that made it, and the spec. */
export interface NamedFigure {
  /** File-name-safe, unique within the list (e.g. `forest_plot`, `sprt_path_plot_agent-a`). */
  name: string;
  /** The builder function's name. */
  builder: string;
  /** The vega-lite spec. */
  spec: TopLevelSpec;
}

/** A file-name-safe form of an agent id: characters outside [A-Za-z0-9_.-] become "_". */
function slug(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, "_");
}

/**
 * Builds every figure a ledger supports, in the issue's order: forest plot
 * (two or more agents), tokens and seconds per resolved, stop reasons, one
 * SPRT path per agent, SPRT calibration, pilot projection, cost frontier.
 *
 * Inputs to each builder come from the analysis functions, with the plan's
 * settings when a plan is given (else the seeds' defaults):
 * - `summarizeAgents(rows, {priceTable})`;
 * - `comparisonMatrix(agents, {band: plan.tie_band, rounds/seed: plan.bootstrap})`;
 * - with the plan's bootstrap rounds and seed (default 2000, 7), per agent:
 *   `agentRatioIntervals` of tokens and seconds per resolved (error bars of
 *   the efficiency figure) and of cost per resolved in the cost figure's
 *   measure (money with a price table, else tokens), `bootstrapRate` of the resolved
 *   rate, and `paretoFrontierProbability` of the agents that resolved
 *   something (error bars and frontier probabilities of the cost figure);
 * - `censoringSummary(rows, {policy: plan.censoring})`;
 * - `replaySprt(rows, {agentId, params: plan SPRT params, order: plan task order})`;
 * - `sprtOperatingCharacteristic` on a grid over [0, 1] and `calibrateSprt`;
 * - `pilotEstimate(spend, {tasks, budget}, {central: "max"})` and `"mean"`.
 *
 * Pure: no I/O, no clock; the Monte Carlo is seeded. Cost: dominated by the
 * bootstrap (one per agent) and, when drawn, the calibration (O(rates ×
 * trials × E[N])).
 *
 * @param rows ledger rows, errata already applied
 * @param options plan, price table, pilot inputs, SPRT agents, calibration settings
 * @returns the figures, in order, with unique file-name-safe names
 * @throws {RangeError} when `rows` is empty
 * @throws {Error} when the rows do not match the price table (see `summarizeAgents`)
 * @example
 * ```ts
 * import { Episode } from "../schema.ts";
 * import { ledgerFigures } from "./ledger_figures.ts";
 * const base = { run_id: "r", seed: 7, tool_calls: 1, wall_ms: 1000, price_table_id: "p" };
 * const rows = [["a", true], ["a", false], ["b", true], ["b", true]].map(([agent, ok], i) =>
 *   Episode.parse({ ...base, agent_id: agent, task_id: `t${i % 2}`, resolved: ok,
 *     prompt_tokens: 100, completion_tokens: 10 })
 * );
 * const names = ledgerFigures(rows).map((f) => f.name);
 * if (names.join() !== "forest_plot,efficiency_plot,stop_reasons_plot,cost_frontier_plot") {
 *   throw new Error(names.join());
 * }
 * ```
 */
export function ledgerFigures(
  rows: readonly Episode[],
  options: LedgerFiguresOptions = {},
): NamedFigure[] {
  if (rows.length === 0) throw new RangeError("Cannot build figures: the ledger has no rows");
  const { plan, priceTable } = options;
  const figures: NamedFigure[] = [];
  const add = (name: string, builder: string, spec: TopLevelSpec) => {
    let unique = name;
    for (let k = 2; figures.some((f) => f.name === unique); k++) unique = `${name}_${k}`;
    figures.push({ name: unique, builder, spec });
  };
  const agents = summarizeAgents(rows, { priceTable });
  const band = plan?.tie_band ?? DEFAULT_TIE_BAND;
  if (agents.length >= 2) {
    const comparisons = comparisonMatrix(agents, {
      band,
      rounds: plan?.bootstrap.rounds,
      seed: plan?.bootstrap.seed,
    });
    add("forest_plot", "forestPlot", forestPlot(comparisons));
  }
  const bootstrap = {
    rounds: plan?.bootstrap.rounds ?? DEFAULT_BOOTSTRAP.rounds,
    seed: plan?.bootstrap.seed ?? DEFAULT_BOOTSTRAP.seed,
  };
  // Tokens, seconds and money of one agent are resampled with the same indices (same seed).
  const intervals = agentRatioIntervals(rows, { ...bootstrap, priceTable });
  add("efficiency_plot", "efficiencyPlot", efficiencyPlot(agents, { band, intervals }));
  add(
    "stop_reasons_plot",
    "stopReasonsPlot",
    stopReasonsPlot(censoringSummary(rows, { policy: plan?.censoring })),
  );
  const sprtParams: Partial<SprtParams> = plan?.stopping.kind === "sprt"
    ? plan.stopping.params
    : {};
  const bySprt = plan?.stopping.kind === "sprt";
  const sprtAgents = options.sprtAgents ?? (bySprt ? agents.map((a) => a.agent_id) : []);
  const order = plan?.tasks.map((t) => t.task_id);
  for (const agentId of sprtAgents) {
    const replay = replaySprt(rows, { agentId, params: sprtParams, order });
    add(`sprt_path_plot_${slug(displayId(agentId))}`, "sprtPathPlot", sprtPathPlot(replay));
  }
  const calibration = options.calibration ?? bySprt;
  if (calibration !== false) {
    const settings = calibration === true ? {} : calibration;
    const steps = settings.gridSteps ?? 100;
    const curve = Array.from(
      { length: steps + 1 },
      (_, i) => sprtOperatingCharacteristic(sprtParams, i / steps),
    );
    const result = calibrateSprt(sprtParams, {
      trials: settings.trials,
      seed: settings.seed,
      rates: settings.rates,
    });
    add("sprt_calibration_plot", "sprtCalibrationPlot", sprtCalibrationPlot(curve, result));
  }
  if (options.pilot !== undefined) {
    const { tasks, budget, safety } = options.pilot;
    // rows that did not record their tokens (imported) have no spend to project from
    const spend = options.pilot.spend ??
      rows.filter(isScored).map(episodeTokens).filter((t): t is number => t !== null);
    const target = { tasks, budget };
    const estimates = [
      pilotEstimate(spend, target, { safety, central: "max" }),
      pilotEstimate(spend, target, { safety, central: "mean" }),
    ];
    add(
      "pilot_projection_plot",
      "pilotProjectionPlot",
      pilotProjectionPlot(estimates, { pilotSpend: spend }),
    );
  }
  // The cost figure's measure: money when priced through the frozen table, else tokens.
  const costed = agentEpisodeSamples(rows, priceTable).flatMap((sample, i) => {
    const costs = priceTable === undefined ? sample.tokens : sample.cost;
    const interval = priceTable === undefined ? intervals[i].tpr : intervals[i].cost_per_resolved;
    return costs === null || interval === null || !sample.resolved.includes(true)
      ? []
      : [{ sample, costs, interval }];
  });
  const membership = paretoFrontierProbability(
    costed.map(({ sample, costs }) => ({
      agent_id: sample.agent_id,
      costs,
      resolved: sample.resolved,
    })),
    bootstrap,
  );
  const uncertainty = {
    ...bootstrap,
    agents: costed.map(({ sample, interval }, i) => {
      const rate = bootstrapRate(interval.resolved, interval.episodes, bootstrap);
      return {
        agent_id: sample.agent_id,
        rate: { lower: rate.lower, upper: rate.upper },
        cost: interval,
        frontier: membership.agents[i],
      };
    }),
  };
  add("cost_frontier_plot", "costFrontierPlot", costFrontierPlot(agents, { uncertainty }));
  return figures;
}
