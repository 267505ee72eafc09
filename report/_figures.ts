/**
 * Which figures a report shows and the vega-lite spec of each, built by the
 * builders of `analysis/figures/` from the computed summary. Agents whose
 * numbers a rule withholds are left out of the capability figures; beside
 * each stop-reason bar the builder itself prints only the scores the
 * censoring policy allows.
 *
 * Private to `report/`.
 *
 * @module
 */
import type { WithheldCause } from "../analysis/agent_standing.ts";
import type { TopLevelSpec } from "vega-lite";
import { costFrontierPlot } from "../analysis/figures/cost_frontier_plot.ts";
import { efficiencyPlot } from "../analysis/figures/efficiency_plot.ts";
import { forestPlot } from "../analysis/figures/forest_plot.ts";
import { sprtCalibrationPlot } from "../analysis/figures/sprt_calibration_plot.ts";
import { sprtPathPlot } from "../analysis/figures/sprt_path_plot.ts";
import { stopReasonsPlot } from "../analysis/figures/stop_reasons_plot.ts";
import { sprtOperatingCharacteristic } from "../analysis/sprt/sprt_operating_characteristic.ts";
import type { SprtReplay } from "../analysis/sprt/replay_sprt.ts";
import { formatPercentExact } from "../analysis/format_number.ts";
import { integer, quotedList } from "./format.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import type { ReportSummary } from "./report_model.ts";

/** Intervals of the exact operating-characteristic curve's grid over [0, 1]. */
export const CALIBRATION_GRID_STEPS = 100;

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

/** A figure chosen for the report, before it is numbered. */
export interface FigureChoice {
  /** File stem under `figures/`. */
  name: string;
  title: string;
  caption: string;
  spec: TopLevelSpec;
}

/** What {@link figureSpecs} needs besides the summary. */
export interface FigureContext {
  /** The SPRT replays with their steps (the summary keeps only the totals). */
  replays: readonly SprtReplay[];
  /** Agents whose capability numbers may be stated. */
  statedAgents: ReadonlySet<string>;
}

/**
 * The report's figures, in reading order: forest plot of the pairs whose
 * agents may both be stated (issue 4's figure 1), tokens and seconds per
 * resolved (2), stop reasons of every agent (3, with the scores its
 * censoring claim allows, none when the ledger fails validation), cost
 * against resolved rate (7), and with an SPRT plan the exact
 * operating characteristic with the seeded Monte Carlo (5) and each stated
 * agent's SPRT path (4). Figures with nothing to draw are left out.
 *
 * @param summary the computed summary (without its figure list)
 * @param context the SPRT replays and the agents that may be stated
 * @returns the figures with their file stems, titles, captions and specs
 */
export function figureSpecs(
  summary: Omit<ReportSummary, "figures">,
  context: FigureContext,
): FigureChoice[] {
  const { replays, statedAgents } = context;
  const out: FigureChoice[] = [];
  const agents = summary.agents.filter((a) => statedAgents.has(a.agent_id));
  const left = summary.agents.filter((a) => !statedAgents.has(a.agent_id)).map((a) => a.agent_id);
  const leftOut = left.length === 0
    ? ""
    : ` Left out, because their numbers may not be stated: ${quotedList(left)}.`;
  const pairs = summary.comparisons.filter((c) =>
    statedAgents.has(c.a.agent_id) && statedAgents.has(c.b.agent_id)
  );
  if (pairs.length > 0) {
    out.push({
      name: "forest",
      title: "Resolved rate per agent with its 95% interval",
      caption: "Each point is an agent's resolved rate over its scored episodes; each bar its " +
        "percentile bootstrap 95% interval. The matrix marks every pair: overlapping " +
        "intervals give no rate winner; the tie-breaks of seed 001 then decide." + leftOut,
      spec: forestPlot(pairs),
    });
  }
  if (agents.some((a) => a.resolved > 0)) {
    out.push({
      name: "efficiency",
      title: "Tokens and seconds per resolved task",
      caption:
        `Lower is better. The shaded band reaches ${
          formatPercentExact(summary.parameters.tie_band.value)
        } above the lowest value: values inside it tie on that measure.` + leftOut,
      spec: efficiencyPlot(agents, { band: summary.parameters.tie_band.value }),
    });
  }
  if (summary.censoring.agents.length > 0) {
    out.push({
      name: "stop_reasons",
      title: "Stop reasons and censoring per agent",
      caption: "Scored episodes per agent by stop reason; everything but completed is " +
        "censored. Beside each bar: the censoring rate, the claim the policy allows and the " +
        "scores that claim lets the report state.",
      spec: stopReasonsPlot(
        summary.censoring,
        { scoresWithheld: scoresWithheld(summary) },
      ),
    });
  }
  if (agents.length > 0) {
    out.push({
      name: "cost_frontier",
      title: "Cost per resolved against resolved rate",
      caption: summary.inputs.price_table === null
        ? "No price table given: cost is tokens per resolved. Filled points lie on the " +
          "Pareto frontier (no other agent is cheaper and at least as good)." + leftOut
        : `Cost from the frozen price table "${summary.inputs.price_table.price_table_id}". ` +
          "Filled points lie on the Pareto frontier (no other agent is cheaper and at least " +
          "as good)." + leftOut,
      spec: costFrontierPlot(agents),
    });
  }
  if (summary.sprt !== null) {
    const { params, calibration } = summary.sprt;
    const curve = Array.from(
      { length: CALIBRATION_GRID_STEPS + 1 },
      (_, i) => sprtOperatingCharacteristic(params, i / CALIBRATION_GRID_STEPS),
    );
    out.push({
      name: "sprt_calibration",
      title: "SPRT operating characteristic and expected sample size",
      caption: "Exact probability of each final decision and of using the whole budget, and " +
        "the expected number of valid results, across true pass rates for the plan's " +
        `parameters; points: a seeded Monte Carlo (${integer(calibration.trials)} runs per rate, ` +
        `seed ${calibration.seed}) drawn over the exact curves.`,
      spec: sprtCalibrationPlot(curve, calibration),
    });
    const names = slugs(replays.map((r) => r.agent_id));
    for (const replay of replays.filter((r) => statedAgents.has(r.agent_id))) {
      out.push({
        name: `sprt_path_${names.get(replay.agent_id)}`,
        title: `SPRT path of "${displayId(replay.agent_id)}"`,
        caption: "Cumulative log-likelihood ratio after each attempt in the plan's task " +
          "order, against the adopt and drop boundaries; invalid attempts leave it unchanged.",
        spec: sprtPathPlot(replay),
      });
    }
  }
  return out;
}

/** The causes besides censoring that withhold an agent's scores in the stop-reasons figure. */
const FIGURE_WITHHELD: Partial<Record<WithheldCause, string>> = {
  validation: "the ledger does not validate against its plan",
  missing: "too many planned tasks have no row",
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
