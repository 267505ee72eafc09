/**
 * Figure 2: tokens per resolved and seconds per resolved per agent, with the
 * tie band of seed 001's rule drawn around the lowest value and, when given,
 * each agent's task-cluster bootstrap interval as an error bar.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { withinTieBand } from "../compare_agents.ts";
import type { AgentSummary } from "../summarize_agents.ts";
import type { PerResolvedUncertainty, RatioEstimate } from "../per_resolved_uncertainty.ts";
import { formatPercentExact } from "../format_number.ts";
import { agentNames, compact, grouped, tooltipId } from "./_format.ts";
import { baseConfig, PALETTE, textWidth, titleBlock, VEGA_LITE_SCHEMA } from "./_style.ts";
import { figureOrder } from "../leaderboard.ts";
import { DEFAULT_TIE_BAND } from "../defaults.ts";

/** The columns of an {@link AgentSummary} the figure reads. */
export type EfficiencyAgent =
  & Pick<AgentSummary, "agent_id" | "resolved" | "scored" | "tpr" | "spr">
  & Partial<Pick<AgentSummary, "tokens" | "wall_seconds">>;

/** Options for {@link efficiencyPlot}. */
export interface EfficiencyPlotOptions {
  /** Relative tie band; default 0.10 (seed 001; use the comparison's `band`). */
  band?: number;
  /** Figure title; default "Tokens and seconds per resolved task". */
  title?: string;
  /** The agents' order (the report's leaderboard); default by resolved rate (`figureOrder`). */
  order?: readonly string[];
  /** Width of each panel in pixels; default 280 (two panels and 48-character labels within 984 px). */
  width?: number;
  /**
   * Per-agent intervals of TPR and SPR (`perResolvedUncertainty`), drawn as
   * error bars; default none (points only).
   */
  uncertainty?: Pick<PerResolvedUncertainty, "rounds" | "seed" | "agents">;
}

/** Point classes, as the legend names them. */
const LOWEST = "lowest value";
const WITHIN = "within the band of the lowest (tie on this measure)";
const OUTSIDE = "outside the band";
const SHAPE: Record<string, string> = {
  [LOWEST]: "diamond",
  [WITHIN]: "square",
  [OUTSIDE]: "circle",
};
const COLOUR: Record<string, string> = {
  [LOWEST]: PALETTE.black,
  [WITHIN]: PALETTE.orange,
  [OUTSIDE]: PALETTE.blue,
};

type Panel = Extract<TopLevelSpec, { hconcat: unknown }>["hconcat"][number];

function panel(
  agents: readonly EfficiencyAgent[],
  field: "tpr" | "spr",
  band: number,
  width: number,
  first: boolean,
  uncertainty: EfficiencyPlotOptions["uncertainty"],
): Panel {
  const name = agentNames(agents.map((a) => a.agent_id));
  const label = (a: EfficiencyAgent) => `${name(a.agent_id)} (${a.resolved}/${a.scored})`;
  const values = agents.map((a) => a[field]).filter((v): v is number => v !== null);
  const lowest = values.length === 0 ? null : Math.min(...values);
  const lowestAgent = agents.find((a) => a[field] === lowest);
  const bandName = `band: lowest to lowest + ${formatPercentExact(band)}`;
  const show = (v: number) => field === "tpr" ? grouped(v) : compact(v);
  const intervalOf = (a: EfficiencyAgent): RatioEstimate | null => {
    const entry = uncertainty?.agents.find((u) => u.agent_id === a.agent_id);
    const estimate = field === "tpr" ? entry?.tokens_per_resolved : entry?.seconds_per_resolved;
    return estimate === undefined || estimate.null_reason !== null ? null : estimate;
  };
  const points = agents.map((a) => {
    const v = a[field];
    if (v === null || lowest === null) {
      return {
        agent: label(a),
        agent_id: tooltipId(a.agent_id),
        counts: `${a.resolved} / ${a.scored}`,
        value: null,
        anchor: null,
        align: "left",
        status: null,
        text: null,
      };
    }
    // Seed 001's tie test against the lowest value, decided exactly as compareAgents decides it.
    const within = withinTieBand(a, lowestAgent!, field, band) === true;
    const status = v === lowest ? LOWEST : within ? WITHIN : OUTSIDE;
    const i = intervalOf(a);
    // The interval in numbers beside the value, so it reads without the axis.
    const range = i === null || i.lo === null
      ? ""
      : ` [${show(i.lo)}, ${i.hi === null ? "unbounded" : show(i.hi)}]`;
    return {
      agent: label(a),
      agent_id: tooltipId(a.agent_id),
      counts: `${a.resolved} / ${a.scored}`,
      value: v,
      anchor: i?.lo ?? v,
      align: "left",
      status,
      text: show(v) + range,
    };
  });
  // An agent without the figure: nothing resolved, or not recorded (never drawn as 0; issue 25
  // item 3: an agent that resolved tasks is never "nothing resolved").
  const missing = agents.filter((a) => a[field] === null).map((a) => ({
    agent: label(a),
    agent_id: tooltipId(a.agent_id),
    text: a.resolved === 0
      ? `no ${field === "tpr" ? "tokens" : "seconds"} per resolved: nothing resolved`
      : field === "tpr"
      ? "tokens not recorded"
      : "wall times not recorded",
  }));
  const statuses = [LOWEST, WITHIN, OUTSIDE];
  const labels = agents.map(label);
  const y = { field: "agent", type: "nominal", sort: labels } as const;
  const uppers = agents.map((a) => intervalOf(a)?.hi ?? null).filter((v): v is number =>
    v !== null
  );
  const top = values.length === 0 ? 1 : Math.max(...values, ...uppers, lowest! * (1 + band));
  const axisEnd = top * 1.12;
  // A label that would run past the panel's right edge ends at its bar's upper end instead.
  for (const p of points) {
    if (p.text === null || p.anchor === null) continue;
    if ((p.anchor / axisEnd) * width + textWidth(p.text, 11) <= width) continue;
    const agent = agents.find((a) => label(a) === p.agent)!;
    p.anchor = Math.min(intervalOf(agent)?.hi ?? axisEnd, axisEnd);
    p.align = "right";
  }
  // Error bars: lower to upper; an interval unbounded above runs dashed to the axis end.
  const bars = agents.flatMap((a) => {
    const i = intervalOf(a);
    if (i === null || i.lo === null) return [];
    const unbounded = i.hi === null;
    return [{ agent: label(a), lo: i.lo, hi: unbounded ? axisEnd : i.hi!, unbounded }];
  });
  const title = field === "tpr"
    ? "Tokens per resolved (prompt + completion tokens)"
    : "Seconds per resolved (wall-clock s)";
  const layers: Extract<Panel, { layer: unknown }>["layer"] = [];
  if (lowest !== null) {
    layers.push({
      data: { values: [{ lo: lowest, hi: lowest * (1 + band), name: bandName }] },
      mark: { type: "rect", opacity: 0.35 },
      encoding: {
        x: { field: "lo", type: "quantitative" },
        x2: { field: "hi" },
        fill: {
          field: "name",
          type: "nominal",
          scale: { range: [PALETTE.orange] },
          legend: { title: "Tie band (seed 001)", orient: "bottom", direction: "vertical" },
        },
      },
    });
  }
  for (const unbounded of [false, true]) {
    const values = bars.filter((b) => b.unbounded === unbounded);
    if (values.length === 0) continue;
    layers.push({
      data: { values },
      mark: {
        type: "rule",
        strokeWidth: 2,
        color: PALETTE.black,
        ...(unbounded ? { strokeDash: [4, 3] } : {}),
      },
      encoding: { y, x: { field: "lo", type: "quantitative" }, x2: { field: "hi" } },
    });
  }
  layers.push(
    {
      data: { values: points },
      mark: {
        type: "point",
        filled: true,
        opacity: 1,
        size: 120,
        strokeWidth: 1,
        stroke: PALETTE.black,
      },
      encoding: {
        tooltip: [
          { field: "agent_id", type: "nominal", title: "agent" },
          {
            field: "text",
            type: "nominal",
            title: field === "tpr" ? "tokens per resolved [95%]" : "seconds per resolved [95%]",
          },
          { field: "counts", type: "nominal", title: "resolved / scored" },
          { field: "status", type: "nominal", title: "tie band" },
        ],
        y: {
          ...y,
          title: first ? "Agent (resolved/scored)" : null,
          axis: first ? { labelFontSize: 12 } : { labels: false, ticks: false },
        },
        x: {
          field: "value",
          type: "quantitative",
          scale: { domain: [0, axisEnd], nice: false },
          axis: { title, tickCount: 5 },
        },
        shape: {
          field: "status",
          type: "nominal",
          scale: { domain: statuses, range: statuses.map((s) => SHAPE[s]) },
          legend: { title: "Value", orient: "bottom", direction: "vertical" },
        },
        color: {
          field: "status",
          type: "nominal",
          scale: { domain: statuses, range: statuses.map((s) => COLOUR[s]) },
          legend: { title: "Value", orient: "bottom", direction: "vertical" },
        },
      },
    },
  );
  if (bars.length === 0) {
    layers.push({
      data: { values: points },
      mark: { type: "text", align: "left", dx: 10, fontSize: 11, color: PALETTE.black },
      encoding: {
        y,
        x: { field: "value", type: "quantitative" },
        text: { field: "text", type: "nominal" },
      },
    });
  }
  // With error bars the value and its interval sit above the bar, from its lower end (or,
  // where that would leave the panel, up to its upper end).
  for (const align of bars.length === 0 ? [] : ["left", "right"] as const) {
    const values = points.filter((p) => p.text !== null && p.align === align);
    if (values.length === 0) continue;
    layers.push({
      data: { values },
      mark: { type: "text", align, dy: -14, fontSize: 11, color: PALETTE.black },
      encoding: {
        y,
        x: { field: "anchor", type: "quantitative" },
        text: { field: "text", type: "nominal" },
      },
    });
  }
  if (missing.length > 0) {
    layers.push({
      data: { values: missing },
      mark: {
        type: "text",
        align: "left",
        dx: 4,
        fontSize: 11,
        fontStyle: "italic",
        color: "#444444",
      },
      encoding: {
        y,
        x: { datum: 0, type: "quantitative" },
        text: { field: "text", type: "nominal" },
        tooltip: [
          { field: "agent_id", type: "nominal", title: "agent" },
          { field: "text", type: "nominal", title: "why no value" },
        ],
      },
    });
  }
  return {
    width,
    height: 40 * agents.length,
    layer: layers,
  };
}

/**
 * Tokens per resolved and seconds per resolved, side by side, with the tie
 * band of seed 001's rule.
 *
 * What it shows: one row per agent, by resolved rate, highest first, then id
 * (`byRateDescending`, issue 25), labelled `id (resolved/scored)`; tooltips
 * give the full id, the value with its interval and the counts; an agent
 * that resolved tasks but recorded no tokens (or times) reads "tokens not
 * recorded", never "nothing resolved" (issue 25 item 3). Left: tokens per resolved (TPR = all
 * prompt + completion tokens of scored episodes, failed attempts included,
 * over resolved). Right: seconds per resolved (SPR, wall clock). The shaded
 * band runs from the lowest value to lowest × (1 + band): an agent inside it
 * is within the band of the best on that measure, where seed 001 declares no
 * winner on it (diamond: lowest; square: inside the band; circle: outside).
 * An agent that resolved nothing, or whose scored attempts did not record the
 * figure, has no TPR or SPR and is named as such (never drawn at 0).
 * With `uncertainty`, each agent carries its 95% percentile bootstrap interval
 * (`perResolvedUncertainty`: each round draws the agent's tasks with
 * replacement, each with all its attempts) as a bar, the value and the
 * interval printed above the point (`7,767 [3,250, 32,300]`); an interval
 * unbounded above (more than 2.5% of the resamples resolved nothing) is
 * dashed to the axis end, and the subtitle states, per agent, how many
 * rounds had no resolved episode.
 *
 * Seed rule visualised: seed 001, "第四步：效率决胜" (fewer tokens per resolved
 * wins unless the two are within 10%, then seconds per resolved with the same
 * band, else a tie), which applies when the rate intervals overlap.
 *
 * @param agents per-agent summaries (`summarizeAgents`)
 * @param options tie band (default 0.10), title, panel width, uncertainty (`perResolvedUncertainty`)
 * @returns a vega-lite spec with inlined data and fixed sizes
 * @throws {RangeError} when `agents` is empty or `band` is negative or not finite
 * @example
 * ```ts
 * import { efficiencyPlot } from "./efficiency_plot.ts";
 * const spec = efficiencyPlot([
 *   { agent_id: "a", scored: 4, resolved: 3, tpr: 23300 / 3, spr: 43 },
 *   { agent_id: "b", scored: 4, resolved: 2, tpr: 3750, spr: 8.5 },
 * ]);
 * if (!JSON.stringify(spec).includes("7,767")) throw new Error("label missing");
 * ```
 */
export function efficiencyPlot(
  given: readonly EfficiencyAgent[],
  options: EfficiencyPlotOptions = {},
): TopLevelSpec {
  let agents = given;
  if (agents.length === 0) {
    throw new RangeError("Cannot build efficiency plot: no agents");
  }
  const band = options.band ?? DEFAULT_TIE_BAND;
  if (!(Number.isFinite(band) && band >= 0)) {
    throw new RangeError(
      `Cannot build efficiency plot: "band" must be a non-negative number, got "${band}"`,
    );
  }
  const width = options.width ?? 280;
  // Rows by resolved rate, highest first (issue 25: alphabetical at 14 agents).
  const byId = new Map(agents.map((a) => [a.agent_id, a]));
  agents = figureOrder(
    agents.map((a) => ({
      agent_id: a.agent_id,
      sort_rate: a.scored === 0 ? null : a.resolved / a.scored,
    })),
    options.order,
  ).map((id) => byId.get(id)!);
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: titleBlock(options.title ?? "Tokens and seconds per resolved task", [
      "Seed-001 tie-break when rate intervals overlap: fewer tokens per resolved wins unless " +
      `within ${formatPercentExact(band)};`,
      `then seconds per resolved with the same band; else a tie. Shaded: within ${
        formatPercentExact(band)
      } of the lowest value.`,
      "Failed attempts count in the numerators; invalid attempts do not. Lower is better.",
      ...intervalLines(agents, options.uncertainty),
    ]),
    config: baseConfig(),
    hconcat: [
      panel(agents, "tpr", band, width, true, options.uncertainty),
      panel(agents, "spr", band, width, false, options.uncertainty),
    ],
    resolve: { scale: { x: "independent" } },
  };
}

/** The subtitle lines that explain the error bars and count the rounds without a ratio. */
function intervalLines(
  agents: readonly EfficiencyAgent[],
  uncertainty: EfficiencyPlotOptions["uncertainty"],
): string[] {
  if (uncertainty === undefined) return [];
  const shown = agents.flatMap((a) => {
    const entry = uncertainty.agents.find((u) => u.agent_id === a.agent_id);
    const estimate = [entry?.tokens_per_resolved, entry?.seconds_per_resolved].find((e) =>
      e !== undefined && e.null_reason === null
    );
    return estimate === undefined ? [] : [{ agent: a, estimate }];
  });
  if (shown.length === 0) return [];
  const { rounds, seed } = uncertainty;
  const name = agentNames(agents.map((a) => a.agent_id));
  const empty = shown.filter((s) => s.estimate.rounds_without_resolved! > 0).map((s) =>
    `${name(s.agent.agent_id)} ${s.estimate.rounds_without_resolved} of ${rounds}`
  );
  return [
    "Bars and [brackets]: 95% percentile bootstrap interval; each round redraws the agent's " +
    `tasks with replacement, each with all its attempts (${rounds} rounds, seed ${seed}).`,
    "Dashed to the axis end: unbounded above. Rounds whose resample resolved nothing (no ratio, " +
    `counted as unbounded): ${empty.length === 0 ? "none." : `${empty.join(", ")}.`}`,
  ];
}
