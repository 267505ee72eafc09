/**
 * Figure 6: the pilot's spend projection against the budget.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { PilotEstimate } from "../pilot_estimate.ts";
import { grouped } from "./_format.ts";
import { baseConfig, PALETTE, titleBlock, VEGA_LITE_SCHEMA } from "./_style.ts";

/** Options for {@link pilotProjectionPlot}. */
export interface PilotProjectionPlotOptions {
  /** Spend per pilot episode, to draw the pilot's spread under the projection. */
  pilotSpend?: readonly number[];
  /** Unit of spend, for axis titles and labels; default "tokens". */
  unit?: string;
  /** Figure title; default "Pilot projection against the budget". */
  title?: string;
  /** Width of the panels in pixels; default 520. */
  width?: number;
}

type Panel = Extract<TopLevelSpec, { vconcat: unknown }>["vconcat"][number];

const FITS = "fits the budget";
const OVER = "over the budget: shrink the plan";

function rowName(e: PilotEstimate): string {
  return `pilot ${e.central} × ${e.tasks} × ${e.safety}`;
}

/**
 * The projected spend of a planned matrix, per central value, against the
 * budget; optionally above the pilot episodes it was projected from.
 *
 * What it shows: one bar per estimate (from `pilotEstimate`, e.g. with
 * `central: "max"` and `"mean"`), labelled `pilot <central> × <tasks> ×
 * <safety>`, of length projected = unit × tasks × safety; the budget is a
 * dashed vertical line. A bar that fits is light blue with its headroom
 * printed; a bar over the budget is vermillion, labelled "over by ...".
 * With `pilotSpend`, a lower panel shows each pilot episode's spend as a
 * point, with the pilot maximum and mean marked, so a reader sees how far the
 * long right tail drives the conservative projection.
 *
 * Seed rule visualised: seed 003, the pilot estimator ("projects from either
 * the pilot mean or the pilot maximum, applies a safety factor, and refuses to
 * schedule a matrix that cannot finish inside the declared budget").
 *
 * @param estimates one or more estimates of the same plan (same budget)
 * @param options pilot spends, unit, title, width
 * @returns a vega-lite spec with inlined data and fixed sizes
 * @throws {RangeError} when `estimates` is empty or their budgets differ
 * @example
 * ```ts
 * import { pilotEstimate } from "../pilot_estimate.ts";
 * import { pilotProjectionPlot } from "./pilot_projection_plot.ts";
 * const pilot = [2700, 7300, 9500, 3800];
 * const target = { tasks: 28, budget: 300_000 };
 * const spec = pilotProjectionPlot(
 *   [pilotEstimate(pilot, target), pilotEstimate(pilot, target, { central: "mean" })],
 *   { pilotSpend: pilot },
 * );
 * if (!JSON.stringify(spec).includes("over by 32,500")) throw new Error("label missing");
 * ```
 */
export function pilotProjectionPlot(
  estimates: readonly PilotEstimate[],
  options: PilotProjectionPlotOptions = {},
): TopLevelSpec {
  if (estimates.length === 0) {
    throw new RangeError("Cannot build pilot projection plot: no estimates");
  }
  const budget = estimates[0].budget_tokens;
  const other = estimates.find((e) => e.budget_tokens !== budget);
  if (other !== undefined) {
    throw new RangeError(
      `Cannot build pilot projection plot: budgets differ ("${budget}" and "${other.budget_tokens}")`,
    );
  }
  const unit = options.unit ?? "tokens";
  const width = options.width ?? 520;
  const bars = estimates.map((e) => ({
    name: rowName(e),
    projected: e.projected_tokens,
    label_x: Math.max(e.projected_tokens, e.budget_tokens),
    status: e.fits ? FITS : OVER,
    text: e.fits
      ? `${grouped(e.projected_tokens)}: fits, headroom ${grouped(e.headroom)}`
      : `${grouped(e.projected_tokens)}: over by ${grouped(-e.headroom)}`,
  }));
  const top = Math.max(budget, ...estimates.map((e) => e.projected_tokens)) * 1.05;
  const budgetRow = [{ budget, text: `budget ${grouped(budget)} ${unit}` }];
  const statuses = [FITS, OVER].filter((s) => bars.some((b) => b.status === s));
  const names = bars.map((b) => b.name);
  const projection: Panel = {
    width,
    height: 52 * bars.length,
    layer: [
      {
        data: { values: bars },
        mark: { type: "bar", height: 26, stroke: PALETTE.black, strokeWidth: 1 },
        encoding: {
          y: {
            field: "name",
            type: "nominal",
            sort: names,
            title: "Projection",
            axis: { labelFontSize: 12 },
          },
          x: {
            field: "projected",
            type: "quantitative",
            scale: { domain: [0, top], nice: false },
            axis: { title: `Projected spend of the plan (${unit})`, tickCount: 5 },
          },
          fill: {
            field: "status",
            type: "nominal",
            scale: {
              domain: statuses,
              range: statuses.map((s) => s === FITS ? PALETTE.sky : PALETTE.vermillion),
            },
            legend: { title: "Verdict", orient: "bottom", direction: "horizontal" },
          },
        },
      },
      {
        data: { values: budgetRow },
        mark: { type: "rule", strokeDash: [8, 4], strokeWidth: 2.5, color: PALETTE.black },
        encoding: { x: { field: "budget", type: "quantitative" } },
      },
      {
        // Right of both the bar and the budget line, so neither cuts the label.
        data: { values: bars },
        mark: {
          type: "text",
          align: "left",
          baseline: "middle",
          dx: 8,
          fontSize: 11,
          color: PALETTE.black,
        },
        encoding: {
          y: { field: "name", type: "nominal", sort: names },
          x: { field: "label_x", type: "quantitative" },
          text: { field: "text", type: "nominal" },
        },
      },
      {
        data: { values: budgetRow },
        mark: {
          type: "text",
          align: "right",
          baseline: "bottom",
          dx: -4,
          y: -4,
          fontSize: 11,
          fontWeight: "bold",
          color: PALETTE.black,
        },
        encoding: {
          x: { field: "budget", type: "quantitative" },
          text: { field: "text", type: "nominal" },
        },
      },
    ],
  };
  const first = estimates[0];
  const subtitle = [
    `Seed-003 pilot estimator: projected = pilot unit (max or mean per episode) × ${first.tasks} ` +
    `planned episodes × safety ${first.safety}; a plan that does not fit is refused, not truncated.`,
    ...estimates.map((e) =>
      `${rowName(e)}: unit ${grouped(e.unit_tokens)} ${unit} from ${e.pilot_size} pilot ` +
      `episodes, projected ${grouped(e.projected_tokens)} ${unit}: ${
        e.fits ? "fits" : "does not fit"
      }.`
    ),
  ];
  const panels: Panel[] = [projection];
  const spend = options.pilotSpend;
  if (spend !== undefined && spend.length > 0) {
    const maxUnit = estimates.find((e) => e.central === "max")?.unit_tokens;
    const meanUnit = estimates.find((e) => e.central === "mean")?.unit_tokens;
    const markers = [
      ...(maxUnit === undefined ? [] : [{ value: maxUnit, name: "pilot max" }]),
      ...(meanUnit === undefined ? [] : [{ value: meanUnit, name: "pilot mean" }]),
    ];
    const spendTop = Math.max(...spend, ...markers.map((m) => m.value)) * 1.08;
    panels.push({
      width,
      height: 70,
      layer: [
        {
          data: { values: spend.map((value, i) => ({ value, episode: i + 1 })) },
          mark: {
            type: "point",
            shape: "circle",
            size: 60,
            filled: false,
            strokeWidth: 1.5,
            color: PALETTE.blue,
          },
          encoding: {
            x: {
              field: "value",
              type: "quantitative",
              scale: { domain: [0, spendTop], nice: false },
              axis: {
                title: `Spend per pilot episode (${unit}; ${spend.length} episodes)`,
                tickCount: 5,
              },
            },
          },
        },
        {
          data: { values: markers },
          mark: { type: "rule", strokeWidth: 2 },
          encoding: {
            x: { field: "value", type: "quantitative" },
            strokeDash: {
              field: "name",
              type: "nominal",
              scale: { domain: ["pilot max", "pilot mean"], range: [[1, 0], [4, 3]] },
              legend: {
                title: "Pilot unit",
                orient: "bottom",
                direction: "horizontal",
                symbolType: "stroke",
                symbolSize: 500,
              },
            },
            color: { value: PALETTE.black },
          },
        },
      ],
    });
  }
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: titleBlock(options.title ?? "Pilot projection against the budget", subtitle),
    config: baseConfig(),
    vconcat: panels,
  };
}
