/**
 * Figure 7: cost per resolved against resolved rate, with the Pareto frontier
 * and, when given, each agent's intervals and how often it stays on the
 * frontier when the tasks are resampled.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { paretoFrontier } from "../pareto_frontier.ts";
import type { PerResolvedUncertainty, RatioEstimate } from "../per_resolved_uncertainty.ts";
import type { AgentSummary } from "../summarize_agents.ts";
import { agentNames, compact, grouped, percent, quoted, tooltipId } from "./_format.ts";
import { baseConfig, PALETTE, textWidth, titleBlock, VEGA_LITE_SCHEMA } from "./_style.ts";

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
  /** Each agent's intervals and frontier probability, drawn as error bars and labels; default none. */
  uncertainty?: CostUncertainty;
}

/** The bootstrap uncertainty of the figure's points (see {@link costFrontierPlot}). */
export interface CostUncertainty {
  /** The per-resolved intervals and frontier probabilities (`perResolvedUncertainty`). */
  per_resolved: Pick<PerResolvedUncertainty, "rounds" | "seed" | "agents">;
  /**
   * Each agent's 95% interval of the resolved rate, the one its verdicts use
   * (`rateInterval`'s `rule`); an agent without one has no vertical bar.
   */
  rates: readonly RateBounds[];
}

/** One agent's 95% interval of the resolved rate. */
export interface RateBounds {
  /** The agent. */
  agent_id: string;
  lower: number;
  upper: number;
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
 * The top of the cost axis: `value` rounded up to a multiple of a 1, 2 or 5
 * step near a tenth of it (d3's `nice` with its default ten ticks), fixed here
 * so the labels can be laid out in pixels.
 */
function niceTop(value: number): number {
  const raw = value / 10;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw * (1 - 1e-12))!;
  return Number((Math.ceil(value / step - 1e-9) * step).toPrecision(12));
}

/** A label position relative to its point: text anchor and offset in pixels. */
interface Placement {
  name: string;
  align: "left" | "right" | "center";
  baseline: "bottom" | "top" | "middle";
  dx: number;
  dy: number;
}

/** Label positions in order of preference (right and above the point first). */
const PLACEMENTS: readonly Placement[] = [
  { name: "right-above", align: "left", baseline: "bottom", dx: 9, dy: -5 },
  { name: "right-below", align: "left", baseline: "top", dx: 9, dy: 5 },
  { name: "left-above", align: "right", baseline: "bottom", dx: -9, dy: -5 },
  { name: "left-below", align: "right", baseline: "top", dx: -9, dy: 5 },
  { name: "above", align: "center", baseline: "bottom", dx: 0, dy: -11 },
  { name: "below", align: "center", baseline: "top", dx: 0, dy: 11 },
  { name: "right", align: "left", baseline: "middle", dx: 12, dy: 0 },
  { name: "left", align: "right", baseline: "middle", dx: -12, dy: 0 },
];

const LABEL_FONT_SIZE = 11;
/** At most this many points are labelled; beyond it only the frontier's (tooltips name the rest). */
const LABELLED_AGENTS = 8;

/** The line height of a label, in pixels; the placement boxes use it too. */
const LINE_HEIGHT = LABEL_FONT_SIZE * 1.25;
/** Half the side of the box a point (size 140, stroke 2) covers, in pixels. */
const POINT_HALF = 8;

/** An axis-aligned box in pixels: left, top, right, bottom. */
type Box = [number, number, number, number];

function overlaps(a: Box, b: Box, pad = 0): boolean {
  return a[0] - pad < b[2] && b[0] < a[2] + pad && a[1] - pad < b[3] && b[1] < a[3] + pad;
}

function labelBox(x: number, y: number, width: number, p: Placement, lines = 1): Box {
  const height = LINE_HEIGHT * lines;
  const left = p.align === "left"
    ? x + p.dx
    : p.align === "right"
    ? x + p.dx - width
    : x - width / 2;
  const top = p.baseline === "bottom"
    ? y + p.dy - height
    : p.baseline === "top"
    ? y + p.dy
    : y - height / 2;
  return [left, top, left + width, top + height];
}

/**
 * Chooses a position for each label, in input order: the first of
 * {@link PLACEMENTS} with the lowest penalty, where crossing a frontier
 * segment, covering a point or an earlier label costs 100 each, leaving
 * the plot area 60 and crossing an error bar 30 (a thin bar under a label
 * stays readable). Deterministic; O(labels × (segments + bars + labels)).
 */
function placeLabels(
  labels: readonly { x: number; y: number; text: string | string[] }[],
  segments: readonly Box[],
  size: { width: number; height: number },
  bars: readonly Box[] = [],
): Placement[] {
  const taken: Box[] = [];
  const points: Box[] = labels.map(({ x, y }) => [
    x - POINT_HALF,
    y - POINT_HALF,
    x + POINT_HALF,
    y + POINT_HALF,
  ]);
  return labels.map(({ x, y, text }) => {
    const lines = typeof text === "string" ? [text] : text;
    const width = Math.max(...lines.map((line) => textWidth(line, LABEL_FONT_SIZE)));
    let best = PLACEMENTS[0];
    let bestBox = labelBox(x, y, width, best, lines.length);
    let bestCost = Infinity;
    PLACEMENTS.forEach((placement, rank) => {
      const box = labelBox(x, y, width, placement, lines.length);
      let cost = rank * 0.01;
      for (const segment of segments) if (overlaps(box, segment, 2)) cost += 100;
      for (const bar of bars) if (overlaps(box, bar, 1)) cost += 30;
      for (const point of points) if (overlaps(box, point)) cost += 100;
      for (const label of taken) if (overlaps(box, label, 1)) cost += 100;
      if (box[0] < 0 || box[1] < 0 || box[2] > size.width || box[3] > size.height) cost += 60;
      if (cost < bestCost) [best, bestBox, bestCost] = [placement, box, cost];
    });
    taken.push(bestBox);
    return best;
  });
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
 * nothing have no cost per resolved and are named in the subtitle. Each point
 * carries its label (rate and cost), placed deterministically: of eight
 * positions around the point (right and above first), the one that crosses
 * no frontier segment, covers no point or earlier label and stays inside the
 * plot, judged in pixels from the fixed size, the axis domains (the cost axis
 * ends at a round value above the dearest agent) and the font's metrics.
 * Each label row records its `placement`.
 *
 * With `uncertainty`, each agent carries error bars: vertically the 95%
 * interval of its rate that its verdicts use, horizontally the 95%
 * task-cluster bootstrap interval of its cost per resolved
 * (`perResolvedUncertainty`; dashed to the axis end when unbounded above:
 * more than 2.5% of the resamples resolved nothing), and a second label
 * line "on the frontier in NN% of task resamples", its frontier probability
 * (`paretoFrontierProbability`: each round redraws the tasks once for every
 * agent and recomputes the frontier). That share is a stability figure, how
 * often the agent stays on the frontier of these agents when the tasks are
 * redrawn, not the probability that it is the best agent; the subtitle says
 * so. The cost axis then also reaches the highest finite upper bound, the
 * labels avoid the bars as they avoid the frontier, and the subtitle states
 * the rounds, the seed and, per agent, the rounds whose resample resolved
 * nothing.
 *
 * Seed rule visualised: seed 001, "按单位成功成本排序，而不是只看通过率" (rank
 * by cost per resolved, money only through a frozen price table).
 *
 * @param agents per-agent summaries (`summarizeAgents`)
 * @param options title, size, uncertainty (intervals and frontier probabilities)
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
  const name = agentNames(agents.map((a) => a.agent_id));
  const measure = costMeasure(agents);
  const placed = agents.filter((a) => costOf(a, measure.kind) !== null && a.resolved_rate !== null);
  const unplaced = agents.filter((a) => !placed.includes(a) && a.resolved === 0).map((a) =>
    name(a.agent_id)
  );
  // Issue 25 item 3: an agent that resolved tasks but recorded no cost is "not recorded", never
  // "nothing resolved".
  const notRecorded = agents.filter((a) => !placed.includes(a) && a.resolved > 0).map((a) =>
    name(a.agent_id)
  );
  const frontier = paretoFrontier(placed, {
    cost: (a) => costOf(a, measure.kind),
    benefit: (a) => a.resolved_rate,
  });
  const currency = measure.kind === "money" ? agents[0].cost!.currency : "";
  const show = (v: number) =>
    measure.kind === "money" ? `${compact(v)} ${currency}` : `${grouped(v)} tokens`;
  const uncertaintyOf = (a: CostAgent) => {
    const u = options.uncertainty;
    if (u === undefined) return null;
    const entry = u.per_resolved.agents.find((e) => e.agent_id === a.agent_id);
    const estimate = measure.kind === "money"
      ? entry?.cost_per_resolved
      : entry?.tokens_per_resolved;
    return {
      rate: u.rates.find((r) => r.agent_id === a.agent_id) ?? null,
      cost: estimate === undefined || estimate.null_reason !== null ? null : estimate,
      frontier: entry?.frontier_probability ?? null,
    };
  };
  const points = placed.map((a) => {
    const cost = costOf(a, measure.kind)!;
    const u = uncertaintyOf(a);
    const first = `${name(a.agent_id)}: ${percent(a.resolved_rate!)} at ${show(cost)}`;
    return {
      agent: name(a.agent_id),
      agent_id: tooltipId(a.agent_id),
      counts: `${a.resolved} / ${a.scored}`,
      summary: first,
      cost,
      rate: a.resolved_rate,
      status: frontier.includes(a) ? FRONTIER : DOMINATED,
      text: u === null ? first : [
        first,
        u.frontier === null
          ? "no frontier share"
          : `on the frontier in ${share(u.frontier)} of task resamples`,
      ],
    };
  });
  const finiteUppers = placed.map((a) => uncertaintyOf(a)?.cost?.hi ?? null).filter((
    v,
  ): v is number => v !== null);
  const costs = [...points.map((p) => p.cost), ...finiteUppers];
  const costTop = niceTop(
    costs.length > 0 && Math.max(...costs) > 0 ? Math.max(...costs) * 1.05 : 1,
  );
  const staircase = frontier.map((a) => ({
    cost: costOf(a, measure.kind)!,
    rate: a.resolved_rate!,
  }));
  // Pixel geometry of the plot, to keep the labels off the frontier, the points and each other.
  const width = options.width ?? 520;
  const height = options.height ?? 340;
  const px = (cost: number) => (cost / costTop) * width;
  const py = (rate: number) => (1 - rate) * height;
  // The staircase steps after each point: across at its rate, then up to the next one.
  const segments: Box[] = staircase.slice(1).flatMap((next, i) => {
    const here = staircase[i];
    const [x0, y0, x1, y1] = [px(here.cost), py(here.rate), px(next.cost), py(next.rate)];
    return [
      [Math.min(x0, x1), y0, Math.max(x0, x1), y0],
      [x1, Math.min(y0, y1), x1, Math.max(y0, y1)],
    ] as Box[];
  });
  // Error bars: the rate interval at the agent's cost, the cost interval at its rate.
  const rateBars = placed.flatMap((a) => {
    const rate = uncertaintyOf(a)?.rate ?? null;
    if (rate === null) return [];
    return [{
      agent: name(a.agent_id),
      cost: costOf(a, measure.kind)!,
      lower: rate.lower,
      upper: rate.upper,
    }];
  });
  const costBars = placed.flatMap((a) => {
    const interval: RatioEstimate | null = uncertaintyOf(a)?.cost ?? null;
    if (interval === null || interval.lo === null) return [];
    const unbounded = interval.hi === null;
    return [{
      agent: name(a.agent_id),
      rate: a.resolved_rate!,
      lower: interval.lo,
      upper: unbounded ? costTop : interval.hi!,
      unbounded,
    }];
  });
  const barBoxes: Box[] = [
    ...rateBars.map((b): Box => [px(b.cost), py(b.upper), px(b.cost), py(b.lower)]),
    ...costBars.map((b): Box => [px(b.lower), py(b.rate), px(b.upper), py(b.rate)]),
  ];
  // Beyond LABELLED_AGENTS points the labels would cover each other (issue 25: 20 agents):
  // only the frontier's are labelled, the others named in their tooltips.
  const labelled = points.length <= LABELLED_AGENTS
    ? points
    : points.filter((p) => p.status === FRONTIER);
  const placements = placeLabels(
    labelled.map((p) => ({ x: px(p.cost), y: py(p.rate!), text: p.text })),
    segments,
    { width, height },
    barBoxes,
  );
  const labels = labelled.map((p, i) => ({
    agent: p.agent,
    cost: p.cost,
    rate: p.rate,
    text: p.text,
    placement: placements[i].name,
  }));
  const lines = options.uncertainty === undefined ? 1 : 2;
  const labelLayers = PLACEMENTS.filter((placement) =>
    labels.some((l) => l.placement === placement.name)
  ).map(({ name, align, baseline, dx, dy }) => ({
    data: { values: labels.filter((l) => l.placement === name) },
    mark: {
      type: "text" as const,
      align,
      baseline,
      dx,
      // vega sets a multi-line label's first line at the anchor: lift a bottom or middle
      // anchored one by its extra lines, so it fills the box the placement judged.
      dy: dy - (baseline === "top" ? 0 : baseline === "middle" ? 0.5 : 1) * (lines - 1) *
          LINE_HEIGHT,
      ...(lines > 1 ? { lineHeight: LINE_HEIGHT } : {}),
      fontSize: LABEL_FONT_SIZE,
      color: PALETTE.black,
    },
    encoding: {
      x: { field: "cost", type: "quantitative" as const },
      y: { field: "rate", type: "quantitative" as const },
      text: { field: "text", type: "nominal" as const },
    },
  }));
  const statuses = [FRONTIER, DOMINATED];
  const subtitle = [
    "Pareto frontier: agents no other agent beats on both cost per resolved (lower) and " +
    "resolved rate (higher).",
    measure.kind === "money"
      ? "Cost counts every scored attempt, failed ones included, priced through the frozen table."
      : "No frozen price table: cost is tokens, failed attempts included.",
    (frontier.length === 0
      ? "Frontier: none (no agent has both a cost and a rate)."
      : `Frontier: ${quoted(frontier.map((a) => name(a.agent_id)))}.`) +
    (unplaced.length > 0 ? ` Not shown (nothing resolved): ${quoted(unplaced)}.` : "") +
    (notRecorded.length > 0
      ? ` Not shown (${measure.kind === "money" ? "cost" : "tokens"} not recorded): ${
        quoted(notRecorded)
      }.`
      : ""),
    ...uncertaintyLines(options.uncertainty, placed, name),
    ...(labelled.length < points.length
      ? [
        `Labelled: the frontier's agents only (${points.length} points; hover a point for its ` +
        "agent, rate and cost).",
      ]
      : []),
  ];
  const barLayers = [
    ...(rateBars.length === 0 ? [] : [{
      data: { values: rateBars },
      mark: { type: "rule" as const, strokeWidth: 1.5, color: "#444444" },
      encoding: {
        x: { field: "cost", type: "quantitative" as const },
        y: { field: "lower", type: "quantitative" as const },
        y2: { field: "upper" },
      },
    }]),
    ...[false, true].flatMap((unbounded) => {
      const values = costBars.filter((b) => b.unbounded === unbounded);
      return values.length === 0 ? [] : [{
        data: { values },
        mark: {
          type: "rule" as const,
          strokeWidth: 1.5,
          color: "#444444",
          ...(unbounded ? { strokeDash: [4, 3] } : {}),
        },
        encoding: {
          x: { field: "lower", type: "quantitative" as const },
          x2: { field: "upper" },
          y: { field: "rate", type: "quantitative" as const },
        },
      }];
    }),
  ];
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: titleBlock(options.title ?? "Cost per resolved against resolved rate", subtitle),
    config: baseConfig(),
    width,
    height,
    layer: [
      ...barLayers,
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
            scale: { domain: [0, costTop], nice: false },
            axis: { title: measure.title, tickCount: 6 },
          },
          y: {
            field: "rate",
            type: "quantitative",
            scale: { domain: [0, 1] },
            axis: { title: "Resolved rate (% of scored episodes)", format: ".0%" },
          },
          tooltip: [
            { field: "agent_id", type: "nominal", title: "agent" },
            { field: "summary", type: "nominal", title: "rate at cost per resolved" },
            { field: "counts", type: "nominal", title: "resolved / scored" },
            { field: "status", type: "nominal", title: "frontier" },
          ],
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
      ...labelLayers,
    ],
  };
}

/**
 * A share of rounds in whole percents, never rounded to a certainty it is
 * not: above 0 but under 0.5% is `<1%`, under 1 but from 99.5% is `>99%`.
 */
function share(p: number): string {
  if (p > 0 && p < 0.005) return "<1%";
  if (p < 1 && p >= 0.995) return ">99%";
  return percent(p, 0);
}

/** The subtitle lines that explain the bars and the probabilities and count the empty rounds. */
function uncertaintyLines(
  uncertainty: CostUncertainty | undefined,
  placed: readonly CostAgent[],
  name: (id: string) => string,
): string[] {
  if (uncertainty === undefined) return [];
  const { rounds, seed, agents } = uncertainty.per_resolved;
  const empty = placed.flatMap((a) => {
    const u = agents.find((e) => e.agent_id === a.agent_id);
    const n = u?.frontier_rounds_without_resolved ?? 0;
    return n === 0 ? [] : [`${name(a.agent_id)} ${n}`];
  });
  return [
    "Bars: 95% intervals of the resolved rate (the one the verdicts use) and of cost per resolved " +
    `(task-cluster bootstrap, ${rounds} rounds, seed ${seed}); dashed: unbounded above.`,
    "On the frontier in NN% of task resamples: each round redraws the tasks once for every agent " +
    "and recomputes the frontier; a stability figure, not the chance that the agent is the best.",
    "Rounds in which an agent's resample resolved nothing (off the frontier): " +
    `${empty.length === 0 ? "none" : empty.join(", ")}.`,
  ];
}
