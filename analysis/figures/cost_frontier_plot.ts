/**
 * Figure 7: cost per resolved against resolved rate, with the Pareto frontier.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { paretoFrontier } from "../pareto_frontier.ts";
import type { AgentSummary } from "../summarize_agents.ts";
import { compact, grouped, percent, quoted } from "./_format.ts";
import { baseConfig, PALETTE, titleBlock, VEGA_LITE_SCHEMA } from "./_style.ts";

/** The columns of an {@link AgentSummary} the figure reads. */
export type CostAgent = Pick<
  AgentSummary,
  "agent_id" | "scored" | "resolved" | "resolved_rate" | "tpr" | "cost"
>;

/** Options for {@link costFrontierPlot}. */
export interface CostFrontierPlotOptions {
  /** Figure title; default "Cost per resolved against resolved rate". */
  title?: string;
  /** Plot width in pixels; default 520. */
  width?: number;
  /** Plot height in pixels; default 340. */
  height?: number;
}

/** Which measure of cost the figure uses. */
interface CostMeasure {
  /** `"money"` when every agent was priced through the frozen table, else `"tokens"`. */
  kind: "money" | "tokens";
  /** Axis title, with the unit and the price table. */
  title: string;
}

const FRONTIER = "on the Pareto frontier";
const DOMINATED = "dominated (another agent is cheaper and at least as good)";

/**
 * The cost measure: money per resolved from the frozen price table when every
 * agent carries a priced `cost`, else tokens per resolved.
 */
function costMeasure(agents: readonly CostAgent[]): CostMeasure {
  const priced = agents.length > 0 && agents.every((a) => a.cost !== null);
  if (priced) {
    const { currency, price_table_id } = agents[0].cost!;
    return {
      kind: "money",
      title: `Cost per resolved (${currency}, frozen price table "${price_table_id}")`,
    };
  }
  return {
    kind: "tokens",
    title: "Tokens per resolved (no price table: prompt + completion tokens)",
  };
}

function costOf(agent: CostAgent, kind: "money" | "tokens"): number | null {
  return kind === "money" ? agent.cost?.cost_per_resolved ?? null : agent.tpr;
}

/**
 * Cost per resolved against resolved rate, one point per agent, with the
 * Pareto frontier (lower cost, higher rate) drawn as a staircase.
 *
 * What it shows: x = cost per resolved, in money from the frozen price table
 * when every agent was priced (`summarizeAgents` with `priceTable`), else
 * tokens per resolved (the axis title says which); y = resolved rate. Points
 * on the frontier ({@link paretoFrontier}: no other agent has a lower or equal
 * cost and a higher or equal rate, one strictly) are filled diamonds joined by
 * a dashed staircase; dominated agents are open circles. Agents that resolved
 * nothing have no cost per resolved and are named in the subtitle.
 *
 * Seed rule visualised: seed 001, "按单位成功成本排序，而不是只看通过率" (rank
 * by cost per resolved, money only through a frozen price table).
 *
 * @param agents per-agent summaries (`summarizeAgents`)
 * @param options title, size
 * @returns a vega-lite spec with inlined data and fixed sizes
 * @throws {RangeError} when `agents` is empty
 * @example
 * ```ts
 * import { costFrontierPlot } from "./cost_frontier_plot.ts";
 * const spec = costFrontierPlot([
 *   { agent_id: "a", scored: 4, resolved: 3, resolved_rate: 0.75, tpr: 23300 / 3, cost: null },
 *   { agent_id: "b", scored: 4, resolved: 2, resolved_rate: 0.5, tpr: 3750, cost: null },
 * ]);
 * if (!JSON.stringify(spec).includes("Tokens per resolved")) throw new Error("axis");
 * ```
 */
export function costFrontierPlot(
  agents: readonly CostAgent[],
  options: CostFrontierPlotOptions = {},
): TopLevelSpec {
  if (agents.length === 0) {
    throw new RangeError("Cannot build cost frontier plot: no agents");
  }
  const measure = costMeasure(agents);
  const placed = agents.filter((a) => costOf(a, measure.kind) !== null && a.resolved_rate !== null);
  const unplaced = agents.filter((a) => !placed.includes(a)).map((a) => a.agent_id);
  const frontier = paretoFrontier(placed, {
    cost: (a) => costOf(a, measure.kind),
    benefit: (a) => a.resolved_rate,
  });
  const currency = measure.kind === "money" ? agents[0].cost!.currency : "";
  const show = (v: number) =>
    measure.kind === "money" ? `${compact(v)} ${currency}` : `${grouped(v)} tokens`;
  const points = placed.map((a) => {
    const cost = costOf(a, measure.kind)!;
    return {
      agent: a.agent_id,
      cost,
      rate: a.resolved_rate,
      status: frontier.includes(a) ? FRONTIER : DOMINATED,
      text: `${a.agent_id}: ${percent(a.resolved_rate!)} at ${show(cost)}`,
    };
  });
  const costs = points.map((p) => p.cost);
  const costTop = costs.length > 0 && Math.max(...costs) > 0 ? Math.max(...costs) * 1.05 : 1;
  const staircase = frontier.map((a) => ({ cost: costOf(a, measure.kind), rate: a.resolved_rate }));
  const statuses = [FRONTIER, DOMINATED];
  const subtitle = [
    "Pareto frontier: agents no other agent beats on both cost per resolved (lower) and " +
    "resolved rate (higher).",
    measure.kind === "money"
      ? "Cost counts every scored attempt, failed ones included, priced through the frozen table."
      : "No frozen price table: cost is tokens, failed attempts included.",
    `Frontier: ${quoted(frontier.map((a) => a.agent_id))}.` +
    (unplaced.length > 0 ? ` Not shown (nothing resolved): ${quoted(unplaced)}.` : ""),
  ];
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: titleBlock(options.title ?? "Cost per resolved against resolved rate", subtitle),
    config: baseConfig(),
    width: options.width ?? 520,
    height: options.height ?? 340,
    layer: [
      {
        data: { values: staircase },
        mark: {
          type: "line",
          interpolate: "step-after",
          strokeDash: [6, 4],
          strokeWidth: 2,
          color: PALETTE.black,
        },
        encoding: {
          x: { field: "cost", type: "quantitative", sort: null },
          y: { field: "rate", type: "quantitative" },
        },
      },
      {
        data: { values: points },
        mark: { type: "point", size: 140, strokeWidth: 2, opacity: 1 },
        encoding: {
          x: {
            field: "cost",
            type: "quantitative",
            // An explicit domain: an empty plot (nothing resolved) still has an axis.
            scale: { domain: [0, costTop], nice: true },
            axis: { title: measure.title, tickCount: 6 },
          },
          y: {
            field: "rate",
            type: "quantitative",
            scale: { domain: [0, 1] },
            axis: { title: "Resolved rate (% of scored episodes)", format: ".0%" },
          },
          shape: {
            field: "status",
            type: "nominal",
            scale: { domain: statuses, range: ["diamond", "circle"] },
            legend: { title: "Agent", orient: "bottom", direction: "vertical" },
          },
          color: {
            field: "status",
            type: "nominal",
            scale: { domain: statuses, range: [PALETTE.black, PALETTE.blue] },
            legend: { title: "Agent", orient: "bottom", direction: "vertical" },
          },
          fill: {
            field: "status",
            type: "nominal",
            scale: { domain: statuses, range: [PALETTE.black, "#FFFFFF"] },
            legend: { title: "Agent", orient: "bottom", direction: "vertical" },
          },
        },
      },
      {
        data: { values: points },
        mark: { type: "text", align: "left", dx: 10, dy: -10, fontSize: 11, color: PALETTE.black },
        encoding: {
          x: { field: "cost", type: "quantitative" },
          y: { field: "rate", type: "quantitative" },
          text: { field: "text", type: "nominal" },
        },
      },
    ],
  };
}
