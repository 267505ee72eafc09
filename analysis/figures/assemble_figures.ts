/**
 * The one figure assembly (issue 23): which figures a set of analysis results
 * supports, in which order, under which file stem, title and caption, and
 * each builder's inputs. The report (`report/_figures.ts`, from its summary)
 * and {@link ledgerFigures} (from a ledger's rows, for the notebooks and the
 * golden specs) both call it, so the two cannot drift apart.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { AgentSummary } from "../summarize_agents.ts";
import type { CensoringSummary } from "../censoring.ts";
import type { Comparison } from "../compare_agents.ts";
import type { PerResolvedUncertainty } from "../per_resolved_uncertainty.ts";
import type { PilotEstimate } from "../pilot_estimate.ts";
import type { SprtParamsInput } from "../sprt/sprt_params.ts";
import type { SprtCalibration } from "../sprt/calibrate_sprt.ts";
import type { SprtReplay } from "../sprt/replay_sprt.ts";
import { sprtOperatingCharacteristic } from "../sprt/sprt_operating_characteristic.ts";
import { formatGrouped, formatPercentExact } from "../format_number.ts";
import { displayId } from "../untrusted_text.ts";
import { costFrontierPlot, type RateBounds } from "./cost_frontier_plot.ts";
import { efficiencyPlot } from "./efficiency_plot.ts";
import { forestPlot } from "./forest_plot.ts";
import { pilotProjectionPlot } from "./pilot_projection_plot.ts";
import { sprtCalibrationPlot } from "./sprt_calibration_plot.ts";
import { sprtPathPlot } from "./sprt_path_plot.ts";
import { stopReasonsPlot } from "./stop_reasons_plot.ts";

/** The analysis results the figures are drawn from. */
export interface FigureSetInputs {
  /** Every agent (`summarizeAgents`), in the order the figures list them. */
  agents: readonly AgentSummary[];
  /** Seed 001's comparison of every pair (`comparisonMatrix`). */
  comparisons: readonly Comparison[];
  /** Censoring per agent (`censoringSummary`). */
  censoring: CensoringSummary;
  /** The relative tie band of the comparisons. */
  band: number;
  /**
   * The per-resolved intervals and frontier probabilities
   * (`perResolvedUncertainty`, its frontier over the agents that may be stated).
   */
  uncertainty: PerResolvedUncertainty;
  /** Each agent's 95% interval of the resolved rate that its verdicts use (`rateInterval`'s rule). */
  rateIntervals: readonly RateBounds[];
  /** The frozen price table's id; null: cost is tokens. */
  priceTableId: string | null;
  /** Agents whose capability numbers may be stated; default every agent. */
  statedAgents?: ReadonlySet<string>;
  /**
   * The order of every per-agent figure (the report's leaderboard, issue 25);
   * default each figure by the rate it draws (`figureOrder`).
   */
  order?: readonly string[];
  /** Agents whose scores the stop-reasons figure must not print, with the reason. */
  scoresWithheld?: ReadonlyMap<string, string>;
  /** Agents whose stop-reasons scores are replaced by these words (`StopReasonsPlotOptions`). */
  scoresInstead?: ReadonlyMap<string, string>;
  /** SPRT figures: the calibration (figure 5, when not null) and the paths of these replays (4). */
  sprt?: {
    /** The plan's SPRT parameters, for the exact curve. */
    params: SprtParamsInput;
    /** The seeded calibration; null: no calibration figure. */
    calibration: SprtCalibration | null;
    /** Intervals of the exact curve's grid over [0, 1]. */
    gridSteps: number;
    /** The replays whose paths are drawn (stated agents only). */
    replays: readonly SprtReplay[];
  } | null;
  /** The pilot projection (figure 6): the two estimates and the pilot's spend per episode. */
  pilot?: { estimates: readonly PilotEstimate[]; spend: readonly number[] } | null;
}

/** One figure: a file-name-safe name, the builder that made it, and the spec. */
export interface NamedFigure {
  /** File stem, unique within its list (`forest`, `sprt_path_agent-a`). */
  name: string;
  /** The builder function's name. */
  builder: string;
  /** The vega-lite spec. */
  spec: TopLevelSpec;
}

/** One figure of the set, with its title and caption; plain data. */
export interface AssembledFigure extends NamedFigure {
  /** The figure's title as the report prints it. */
  title: string;
  /** What the figure shows, one paragraph. */
  caption: string;
}

/**
 * File stems from ids: `agent-01` → `agent-01`, of the id as `displayId` shows it (so at most
 * 48 characters); other characters become `-`; ids that collide get `-2`, `-3`...
 */
function slugs(ids: readonly string[]): Map<string, string> {
  const used = new Set<string>();
  const out = new Map<string, string>();
  for (const id of ids) {
    const base =
      displayId(id).toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[-.]+|-+$/g, "") ||
      "agent";
    let slug = base;
    for (let k = 2; used.has(slug); k++) slug = `${base}-${k}`;
    used.add(slug);
    out.set(id, slug);
  }
  return out;
}

/** `"a"`, `"a" and "b"`, `"a", "b" and "c"`: ids as `displayId` shows them. */
function quotedList(ids: readonly string[]): string {
  const q = ids.map((id) => `"${displayId(id)}"`);
  if (q.length <= 1) return q.join("");
  return `${q.slice(0, -1).join(", ")} and ${q[q.length - 1]}`;
}

/**
 * The figures the results support, in reading order: forest plot of the
 * pairs whose agents may both be stated (figure 1 of issue 4), tokens and
 * seconds per resolved with their task-cluster intervals (2), stop reasons
 * of every agent (3, with the scores its claim allows), cost against
 * resolved rate with the intervals and each agent's frontier probability
 * (7), the SPRT's exact operating characteristic with the seeded Monte
 * Carlo (5) and each replay's SPRT path (4), and the pilot projection (6).
 * Figures with nothing to draw are left out: no pair, no stated agent that
 * resolved something and recorded tokens or times (efficiency), no stated
 * agent with a cost per resolved (or tokens per resolved) and a rate (cost
 * frontier; issue 25: an empty plot under "Frontier: ."), no agent, no
 * calibration, no replay, no pilot; the report says why in a sentence.
 * Agents whose numbers may not be stated are left out of the capability
 * figures, and the captions name them.
 *
 * Pure: no I/O, no clock, no randomness (the inputs carry the seeded
 * results). Cost: that of the builders, O(agents²) for the forest plot and
 * O(grid steps × n_cap²) for the exact SPRT curve.
 *
 * @param inputs the analysis results
 * @returns the figures with their file stems, builders, titles, captions and specs
 * @example
 * ```ts
 * import { assembleFigures } from "./assemble_figures.ts";
 * import { Episode } from "../schema/records.ts";
 * import { summarizeAgents } from "../summarize_agents.ts";
 * import { censoringSummary } from "../censoring.ts";
 * import { perResolvedUncertainty } from "../per_resolved_uncertainty.ts";
 * const rows = [true, false].map((resolved, i) => Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: `t${i}`, seed: 7, resolved, prompt_tokens: 100,
 *   completion_tokens: 10, tool_calls: 1, wall_ms: 1000, price_table_id: "p",
 * }));
 * const figures = assembleFigures({
 *   agents: summarizeAgents(rows), comparisons: [], censoring: censoringSummary(rows),
 *   band: 0.1, uncertainty: perResolvedUncertainty(rows, { rounds: 100 }),
 *   rateIntervals: [], priceTableId: null,
 * });
 * if (figures.map((f) => f.name).join() !== "efficiency,stop_reasons,cost_frontier") {
 *   throw new Error(figures.map((f) => f.name).join());
 * }
 * ```
 */
export function assembleFigures(inputs: FigureSetInputs): AssembledFigure[] {
  const all = inputs.agents;
  const stated = inputs.statedAgents ?? new Set(all.map((a) => a.agent_id));
  const out: AssembledFigure[] = [];
  const agents = all.filter((a) => stated.has(a.agent_id));
  const left = all.filter((a) => !stated.has(a.agent_id)).map((a) => a.agent_id);
  const leftOut = left.length === 0
    ? ""
    : ` Left out, because their numbers may not be stated: ${quotedList(left)}.`;
  const { rounds, seed } = inputs.uncertainty;
  const pairs = inputs.comparisons.filter((c) =>
    stated.has(c.a.agent_id) && stated.has(c.b.agent_id)
  );
  if (pairs.length > 0) {
    out.push({
      name: "forest",
      builder: "forestPlot",
      title: "Resolved rate per agent with its 95% interval",
      caption: "Each point is an agent's resolved rate over its scored episodes; each bar its " +
        "percentile bootstrap 95% interval. The matrix marks every pair: overlapping " +
        "intervals give no rate winner; the tie-breaks of seed 001 then decide." + leftOut,
      spec: forestPlot(pairs, { order: inputs.order }),
    });
  }
  // Issue 25 item 3: no figure of empty panels when no stated agent recorded tokens or times.
  if (agents.some((a) => a.resolved > 0 && (a.tpr !== null || a.spr !== null))) {
    out.push({
      name: "efficiency",
      builder: "efficiencyPlot",
      title: "Tokens and seconds per resolved task",
      caption:
        `Lower is better. The shaded band reaches ${
          formatPercentExact(inputs.band)
        } above the lowest value: values inside it tie on that measure. Each bar, and the ` +
        "bracket beside the value, is the 95% percentile bootstrap interval of the ratio, " +
        "each round redrawing the agent's tasks with all its attempts at each " +
        `(${rounds} rounds, seed ${seed}).` + leftOut,
      spec: efficiencyPlot(agents, {
        band: inputs.band,
        uncertainty: inputs.uncertainty,
        order: inputs.order,
      }),
    });
  }
  if (inputs.censoring.agents.length > 0) {
    out.push({
      name: "stop_reasons",
      builder: "stopReasonsPlot",
      title: "Stop reasons and censoring per agent",
      caption: "Scored episodes per agent by stop reason; everything but completed is " +
        "censored. Beside each bar: the censoring rate, the claim the policy allows and the " +
        "scores that claim lets the report state.",
      spec: stopReasonsPlot(inputs.censoring, {
        scoresWithheld: new Map(inputs.scoresWithheld ?? []),
        scoresInstead: new Map(inputs.scoresInstead ?? []),
        order: inputs.order,
      }),
    });
  }
  // Issue 25 item 3: no empty plot under "Frontier: ." when no stated agent has a cost.
  if (
    agents.some((a) => a.resolved_rate !== null && (a.cost?.cost_per_resolved ?? a.tpr) !== null)
  ) {
    const frontier = "Filled points lie on the Pareto frontier (no other agent is cheaper and at " +
      "least as good). Beside each point: the share of task resamples (the same draw of tasks " +
      `for every agent, ${rounds} rounds, seed ${seed}) in which it stays on the frontier, a ` +
      "stability figure, not the chance that it is the best agent.";
    out.push({
      name: "cost_frontier",
      builder: "costFrontierPlot",
      title: "Cost per resolved against resolved rate",
      caption: (inputs.priceTableId === null
        ? "No price table given: cost is tokens per resolved. "
        : `Cost from the frozen price table "${displayId(inputs.priceTableId)}". `) +
        frontier +
        leftOut,
      spec: costFrontierPlot(agents, {
        uncertainty: { per_resolved: inputs.uncertainty, rates: inputs.rateIntervals },
      }),
    });
  }
  const sprt = inputs.sprt ?? null;
  if (sprt !== null && sprt.calibration !== null) {
    const { calibration, gridSteps, params } = sprt;
    const curve = Array.from(
      { length: gridSteps + 1 },
      (_, i) => sprtOperatingCharacteristic(params, i / gridSteps),
    );
    out.push({
      name: "sprt_calibration",
      builder: "sprtCalibrationPlot",
      title: "SPRT operating characteristic and expected sample size",
      caption: "Exact probability of each final decision and of using the whole budget, and " +
        "the expected number of valid results, across true pass rates for the plan's " +
        `parameters; points: a seeded Monte Carlo (${formatGrouped(calibration.trials)} runs ` +
        `per rate, seed ${calibration.seed}) drawn over the exact curves.`,
      spec: sprtCalibrationPlot(curve, calibration),
    });
  }
  if (sprt !== null) {
    const names = slugs(sprt.replays.map((r) => r.agent_id));
    for (const replay of sprt.replays.filter((r) => stated.has(r.agent_id))) {
      out.push({
        name: `sprt_path_${names.get(replay.agent_id)}`,
        builder: "sprtPathPlot",
        title: `SPRT path of "${displayId(replay.agent_id)}"`,
        caption: "Cumulative log-likelihood ratio after each attempt in the plan's task " +
          "order, against the adopt and drop boundaries; invalid attempts leave it unchanged.",
        spec: sprtPathPlot(replay),
      });
    }
  }
  const pilot = inputs.pilot ?? null;
  if (pilot !== null && pilot.estimates.length > 0) {
    out.push({
      name: "pilot_projection",
      builder: "pilotProjectionPlot",
      title: "Pilot projection against the budget",
      caption: "The plan's projected spend from the pilot's largest and mean episode, times " +
        "the planned episodes and the safety factor, against the budget (seed 003).",
      spec: pilotProjectionPlot(pilot.estimates, { pilotSpend: pilot.spend }),
    });
  }
  return out;
}
