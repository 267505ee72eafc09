/**
 * Figure 1: forest plot of each agent's resolved rate with its percentile
 * bootstrap interval, beside the pairwise matrix of seed 001's rule.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { Comparison, ComparisonSide } from "../compare_agents.ts";
import { formatPercentExact } from "../format_number.ts";
import { agentNames, percent, tooltipId } from "./_format.ts";
import { baseConfig, PALETTE, titleBlock, VEGA_LITE_SCHEMA } from "./_style.ts";
import { RULE_SHORT, verdictSentence, verdictSummary } from "./_verdict.ts";
import { figureOrder } from "../leaderboard.ts";

/** Options for {@link forestPlot}. */
export interface ForestPlotOptions {
  /** Figure title; default "Resolved rate per agent". */
  title?: string;
  /** Width of the forest panel in pixels; default 460. */
  width?: number;
  /** Pairs listed one sentence each in the subtitle before switching to a summary; default 3. */
  maxSentences?: number;
  /** The agents' order (the report's leaderboard); default by resolved rate (`figureOrder`). */
  order?: readonly string[];
}

/** One panel of a concatenated figure. */
type Panel = Extract<TopLevelSpec, { hconcat: unknown }>["hconcat"][number];

/** Interval kinds, as the legend names them. */
const BOOTSTRAP = "percentile bootstrap 95%";
const WILSON = "Wilson 95% (bootstrap collapsed to a point)";
/** The plan's other interval methods (issue 13), each drawn solid. */
const METHOD_KIND: Record<string, string> = {
  wilson: "Wilson 95%",
  "clopper-pearson": "Clopper-Pearson 95%",
};

/** Cell states of the pairwise matrix, as the legend names them. */
const OVERLAP = "overlap: no rate winner";
const SEPARATED = "separated: rate winner";
const UNRANKED = "not ranked: nothing resolved";
/** Light fills, distinct in greyscale too (the cell text says the same). */
const STATE_FILL: Record<string, string> = {
  [OVERLAP]: "#F3D9A4",
  [SEPARATED]: "#BFDDF2",
  [UNRANKED]: PALETTE.lightGrey,
};

/** The agents of the pairs, by resolved rate descending, then id (`byRateDescending`, issue 25). */
function sides(comparisons: readonly Comparison[], order?: readonly string[]): ComparisonSide[] {
  const byId = new Map<string, ComparisonSide>();
  for (const c of comparisons) {
    for (const s of [c.a, c.b]) if (!byId.has(s.agent_id)) byId.set(s.agent_id, s);
  }
  return figureOrder(
    [...byId.values()].map((s) => ({ agent_id: s.agent_id, sort_rate: s.rate })),
    order,
  )
    .map((id) => byId.get(id)!);
}

/** More agents than this: the pairs as a compact matrix of symbols, columns numbered as the rows. */
const SPELLED_OUT_AGENTS = 3;

function agentLabel(s: ComparisonSide, name: string, number?: number): string {
  return `${number === undefined ? "" : `${number}. `}${name} (${s.resolved}/${s.scored})`;
}

/** What every interval row's tooltip shows: the full id, the rate and interval, the counts. */
const INTERVAL_TOOLTIP = [
  { field: "agent_id", type: "nominal", title: "agent" },
  { field: "text", type: "nominal", title: "resolved rate [95% interval]" },
  { field: "counts", type: "nominal", title: "resolved / scored" },
  { field: "interval", type: "nominal", title: "interval" },
] as const;

function intervalRow(s: ComparisonSide, method: Comparison["interval_method"], label: string) {
  const who = { agent_id: tooltipId(s.agent_id), counts: `${s.resolved} / ${s.scored}` };
  return { ...who, ...intervalFields(s, method, label) };
}

function intervalFields(s: ComparisonSide, method: Comparison["interval_method"], label: string) {
  if (s.rate === null || s.interval === null) {
    return {
      agent: label,
      rate: null,
      lower: null,
      upper: null,
      interval: BOOTSTRAP,
      text: "nothing scored",
      text_x: 0,
    };
  }
  const boot = `${percent(s.rate)} [${percent(s.interval.lower)}, ${percent(s.interval.upper)}]`;
  if (METHOD_KIND[method] !== undefined) {
    return {
      agent: label,
      rate: s.rate,
      lower: s.interval.lower,
      upper: s.interval.upper,
      interval: METHOD_KIND[method],
      text: boot,
      text_x: s.interval.lower,
    };
  }
  if (s.wilson !== null) {
    return {
      agent: label,
      rate: s.rate,
      lower: s.wilson.lower,
      upper: s.wilson.upper,
      interval: WILSON,
      text: `${percent(s.rate)}, Wilson [${percent(s.wilson.lower)}, ${percent(s.wilson.upper)}]`,
      text_x: s.wilson.lower,
    };
  }
  // Under the default method's coverage warning the Wilson interval is printed beside it.
  const warning = s.coverage_warning;
  return {
    agent: label,
    rate: s.rate,
    lower: s.interval.lower,
    upper: s.interval.upper,
    interval: BOOTSTRAP,
    text: warning === null
      ? boot
      : `${boot}; few episodes: Wilson [${percent(warning.wilson.lower)}, ${
        percent(warning.wilson.upper)
      }]`,
    text_x: s.interval.lower,
  };
}

/** The compact matrix's symbol for the row agent against the column agent (module legend). */
function compactSymbol(c: Comparison, row: string): string {
  if (c.rule === "no_resolved") return "∅";
  if (c.winner === null) return "=";
  const won = c.winner === row;
  if (c.rule === "rate_interval") return won ? "▲" : "▼";
  return won ? "△" : "▽";
}

function cellRow(c: Comparison, name: (id: string) => string) {
  const state = c.intervals_overlap === true
    ? OVERLAP
    : c.intervals_overlap === false
    ? SEPARATED
    : UNRANKED;
  let lines: string[];
  if (c.rule === "no_resolved") {
    lines = ["not ranked", c.failed.map(name).join(" and "), "resolved nothing"];
  } else if (c.rule === "tie") {
    lines = ["overlap", "tie", "within the band"];
  } else {
    lines = [
      state === OVERLAP ? "overlap" : "separated",
      `winner: ${name(c.winner ?? "")}`,
      `by ${RULE_SHORT[c.rule]}`,
    ];
  }
  return { state, text: lines.join("\n"), verdict: verdictSentence(c) };
}

/**
 * Forest plot of resolved rates with their bootstrap intervals, and the matrix
 * of every pair under seed 001's rule.
 *
 * What it shows: per agent (rows by resolved rate, highest first, then id:
 * `byRateDescending`; labelled `id (resolved/scored)`, numbered from four agents on),
 * the resolved rate as a point and its percentile bootstrap 95% interval as a
 * solid bar, as computed by `compareAgents`/`comparisonMatrix`; when the
 * bootstrap interval collapsed to a point (0% or 100%), the Wilson 95% interval
 * is drawn dashed instead, and where the bootstrap covers poorly (small n, few
 * successes or failures: `coverage_warning`) the label gives the Wilson
 * interval beside it; under the plan's `wilson` or `clopper-pearson` method
 * that interval is drawn and named (issue 13). The right panel marks each pair: intervals overlap
 * (no rate winner), separated (rate winner), or not ranked (an agent resolved
 * nothing), with the winner and the step that decided; from four agents on it
 * is a compact matrix of every ordered pair, a symbol per cell read from the
 * row agent's side and columns numbered as the rows, so the figure grows by
 * 30 px per agent instead of a spelled-out cell (issue 25: 3,624 px wide at
 * 14 agents). Tooltips give each agent's full id, rate, interval and counts,
 * and each pair's verdict sentence. The subtitle states the
 * verdicts (one sentence per pair up to `maxSentences`, then a summary).
 *
 * Seed rule visualised: seed 001, "区间重叠时拒绝宣布赢家" (no winner when the
 * 95% intervals overlap), then tokens per resolved, seconds per resolved, tie.
 *
 * @param comparisons the pairs from `comparisonMatrix` (or one `compareAgents` verdict in an array)
 * @param options title, panel width, subtitle length
 * @returns a vega-lite spec with inlined data and fixed sizes
 * @throws {RangeError} when `comparisons` is empty (a forest plot needs two agents)
 * @example
 * ```ts
 * import { compareAgents } from "../compare_agents.ts";
 * import { forestPlot } from "./forest_plot.ts";
 * const a = { agent_id: "a", scored: 4, resolved: 3, tpr: 23300 / 3, spr: 43 };
 * const b = { agent_id: "b", scored: 4, resolved: 2, tpr: 3750, spr: 8.5 };
 * const spec = forestPlot([compareAgents(a, b)]);
 * if (!JSON.stringify(spec).includes("no rate winner")) throw new Error("verdict missing");
 * ```
 */
export function forestPlot(
  comparisons: readonly Comparison[],
  options: ForestPlotOptions = {},
): TopLevelSpec {
  if (comparisons.length === 0) {
    throw new RangeError("Cannot build forest plot: need at least one comparison (two agents)");
  }
  const agents = sides(comparisons, options.order);
  const compact = agents.length > SPELLED_OUT_AGENTS;
  const name = agentNames(agents.map((s) => s.agent_id));
  const labelOf = new Map(
    agents.map((
      s,
      i,
    ) => [s.agent_id, agentLabel(s, name(s.agent_id), compact ? i + 1 : undefined)]),
  );
  const labels = agents.map((s) => labelOf.get(s.agent_id)!);
  const first = comparisons[0];
  const maxSentences = options.maxSentences ?? 3;
  const verdicts = comparisons.length <= maxSentences
    ? comparisons.map(verdictSentence)
    : [verdictSummary(comparisons)];
  const rowStep = compact ? 34 : 46;
  const rows = agents.map((s) => intervalRow(s, first.interval_method, labelOf.get(s.agent_id)!));
  const kinds = [BOOTSTRAP, WILSON, ...Object.values(METHOD_KIND)].filter((k) =>
    rows.some((r) => r.interval === k)
  );
  const cells = comparisons.map((c) => cellRow(c, name));
  const states = [OVERLAP, SEPARATED, UNRANKED].filter((s) => cells.some((c) => c.state === s));
  const forest: Panel = {
    width: options.width ?? 460,
    height: rowStep * labels.length,
    data: { values: rows },
    encoding: {
      y: {
        field: "agent",
        type: "nominal",
        sort: labels,
        title: options.order === undefined
          ? "Agent (resolved/scored), by resolved rate"
          : "Agent (resolved/scored), in leaderboard order",
        axis: { labelFontSize: 12, labelLimit: 400 },
      },
      tooltip: [...INTERVAL_TOOLTIP],
    },
    layer: [
      {
        mark: { type: "rule", strokeWidth: 3, color: PALETTE.blue },
        encoding: {
          opacity: PICKED,
          x: {
            field: "lower",
            type: "quantitative",
            scale: { domain: [0, 1] },
            axis: {
              format: ".0%",
              values: [0, 0.2, 0.4, 0.6, 0.8, 1],
              title: "Resolved rate (% of scored episodes)",
            },
          },
          x2: { field: "upper" },
          strokeDash: {
            field: "interval",
            type: "nominal",
            scale: {
              domain: kinds,
              range: kinds.map((k) => k === WILSON ? [6, 4] : [1, 0]),
            },
            legend: {
              title: "Interval",
              orient: "bottom",
              direction: "vertical",
              symbolType: "stroke",
              symbolSize: 500,
            },
          },
        },
      },
      {
        mark: { type: "point", filled: true, size: 110, shape: "diamond", color: PALETTE.black },
        // Click an agent (shift-click for more) to pick it out here and in the matrix; an empty
        // pick shows every agent, so the static SVG and PNG are unchanged (issue 25 item 5).
        params: [{ name: PICK, select: { type: "point", fields: ["agent_id"], on: "click" } }],
        encoding: { x: { field: "rate", type: "quantitative" }, opacity: PICKED },
      },
      {
        mark: {
          type: "text",
          dy: compact ? -11 : -15,
          dx: 2,
          align: "left",
          fontSize: 11,
          color: PALETTE.black,
        },
        encoding: {
          x: { field: "text_x", type: "quantitative" },
          text: { field: "text", type: "nominal" },
        },
      },
    ],
  };
  const matrix = compact
    ? compactMatrix(comparisons, labelOf, agents.map((s) => s.agent_id), states, name)
    : spelledOutMatrix(comparisons, labelOf, labels, cells, states);
  const panels = [forest, matrix];
  const legend = compact
    ? [
      "Matrix, read across (columns numbered as the rows): ▲ / ▼ the row's agent has the " +
      "higher / lower rate, intervals separated; △ / ▽ it wins / loses on a tie-break; = no " +
      "winner; ∅ an agent resolved nothing.",
    ]
    : [];
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: titleBlock(options.title ?? "Resolved rate per agent", [
      first.interval_method === "percentile-bootstrap"
        ? `Point: resolved rate; bar: percentile bootstrap 95% interval (R = ${first.rounds}, ` +
          `seed ${first.seed}).`
        : `Point: resolved rate; bar: the plan's ${first.interval_method} 95% interval.`,
      "Seed-001 rule: overlapping intervals give no rate winner; then tokens per resolved, " +
      `seconds per resolved (band ${formatPercentExact(first.band)}), else a tie.`,
      ...verdicts.map((v) => `${v}.`),
      ...legend,
    ]),
    config: baseConfig(),
    // Side by side for up to three agents; the matrix goes below for more.
    ...(labels.length <= SPELLED_OUT_AGENTS ? { hconcat: panels } : { vconcat: panels }),
    resolve: { legend: { strokeDash: "independent", fill: "independent" } },
  };
}

/** The matrix of two or three agents: one cell per pair, its verdict spelled out (lower triangle). */
function spelledOutMatrix(
  comparisons: readonly Comparison[],
  labelOf: ReadonlyMap<string, string>,
  labels: readonly string[],
  cells: ReturnType<typeof cellRow>[],
  states: readonly string[],
): Panel {
  const position = new Map(labels.map((l, i) => [l, i]));
  const label = (s: ComparisonSide) => labelOf.get(s.agent_id)!;
  // Each pair once, the agent listed first (higher rate) on x, the other on y.
  const values = comparisons.map((c, i) => {
    const [x, y] = [label(c.a), label(c.b)].sort((p, q) => position.get(p)! - position.get(q)!);
    return { ...cells[i], a: x, b: y };
  });
  const longest = Math.max(
    ...labels.map((l) => l.length),
    ...cells.flatMap((c) => c.text.split("\n").map((line) => line.length)),
  );
  // About 6.6 px per character at 11 px DejaVu Sans, plus padding.
  const cellWidth = Math.max(120, Math.ceil(6.6 * longest) + 16);
  const cellHeight = 58;
  const others = labels.length - 1;
  return {
    width: cellWidth * others,
    height: cellHeight * others,
    data: { values },
    encoding: {
      x: {
        field: "a",
        type: "nominal",
        sort: labels.slice(0, -1),
        title: "Agent",
        axis: { labelAngle: 0, orient: "top" },
      },
      y: { field: "b", type: "nominal", sort: labels.slice(1), title: "Compared with" },
      tooltip: { field: "verdict", type: "nominal", title: "seed 001" },
    },
    layer: [
      {
        mark: { type: "rect", stroke: "#FFFFFF", strokeWidth: 2 },
        encoding: {
          fill: {
            field: "state",
            type: "nominal",
            scale: { domain: [...states], range: states.map((state) => STATE_FILL[state]) },
            legend: { title: "Pair of intervals", orient: "bottom", direction: "vertical" },
          },
        },
      },
      {
        mark: {
          type: "text",
          lineBreak: "\n",
          baseline: "middle",
          dy: -13,
          fontSize: 11,
          color: PALETTE.black,
        },
        encoding: { text: { field: "text", type: "nominal" } },
      },
    ],
  };
}

/** The selection of agents a reader clicks in the forest panel (vega-lite point selection). */
const PICK = "picked_agents";

/** Opacity under {@link PICK}: full for a picked agent (or when none is picked), faint otherwise. */
const PICKED = { condition: { param: PICK, value: 1 }, value: 0.2 } as const;

/** Pixels per cell of the compact matrix. */
const COMPACT_CELL = 30;

/**
 * The matrix of four or more agents (issue 25: spelled-out cells made the
 * figure 3,624 px wide at 14 agents): every ordered pair, rows labelled as
 * the forest's, columns numbered as the rows, each cell a symbol of seed
 * 001's verdict from the row agent's side, the fill its intervals' state,
 * the sentence in the tooltip. Width and height grow by {@link COMPACT_CELL}
 * per agent.
 */
function compactMatrix(
  comparisons: readonly Comparison[],
  labelOf: ReadonlyMap<string, string>,
  order: readonly string[],
  states: readonly string[],
  name: (id: string) => string,
): Panel {
  const number = new Map(order.map((id, i) => [id, String(i + 1)]));
  const values = comparisons.flatMap((c) => {
    const cell = cellRow(c, name);
    return [[c.a, c.b], [c.b, c.a]].map(([row, column]) => ({
      row: labelOf.get(row.agent_id)!,
      column: number.get(column.agent_id)!,
      symbol: compactSymbol(c, row.agent_id),
      state: cell.state,
      verdict: cell.verdict,
      agent_id: tooltipId(row.agent_id),
      against: tooltipId(column.agent_id),
    }));
  });
  return {
    width: COMPACT_CELL * order.length,
    height: COMPACT_CELL * order.length,
    data: { values },
    encoding: {
      x: {
        field: "column",
        type: "nominal",
        sort: order.map((id) => number.get(id)!),
        title: "Against agent number",
        axis: { labelAngle: 0, orient: "top", labelFontSize: 11 },
      },
      y: {
        field: "row",
        type: "nominal",
        sort: order.map((id) => labelOf.get(id)!),
        title: "Agent",
        axis: { labelFontSize: 12, labelLimit: 400 },
      },
      tooltip: [
        { field: "agent_id", type: "nominal", title: "agent" },
        { field: "against", type: "nominal", title: "against" },
        { field: "verdict", type: "nominal", title: "seed 001" },
      ],
    },
    layer: [
      {
        mark: { type: "rect", stroke: "#FFFFFF", strokeWidth: 2 },
        encoding: {
          opacity: PICKED,
          fill: {
            field: "state",
            type: "nominal",
            scale: { domain: [...states], range: states.map((state) => STATE_FILL[state]) },
            legend: { title: "Pair of intervals", orient: "bottom", direction: "vertical" },
          },
        },
      },
      {
        mark: { type: "text", baseline: "middle", fontSize: 13, color: PALETTE.black },
        encoding: { text: { field: "symbol", type: "nominal" } },
      },
    ],
  };
}
