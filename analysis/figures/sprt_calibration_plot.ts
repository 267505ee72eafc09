/**
 * Figure 5: the SPRT's operating characteristic and expected sample size
 * across true pass rates: exact curves with Monte Carlo points over them.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { SprtCalibration } from "../sprt/calibrate_sprt.ts";
import type { SprtOperatingPoint } from "../sprt/sprt_operating_characteristic.ts";
import { decimal, grouped } from "./_format.ts";
import { baseConfig, DASHES, PALETTE, SHAPES, titleBlock, VEGA_LITE_SCHEMA } from "./_style.ts";

/** Options for {@link sprtCalibrationPlot}. */
export interface SprtCalibrationPlotOptions {
  /** Figure title; default "SPRT operating characteristic and sample size". */
  title?: string;
  /** Width of each panel in pixels; default 380. */
  width?: number;
  /** Height of each panel in pixels; default 300. */
  height?: number;
  /** Half-width of the Monte Carlo error bars in standard errors; default 1.96 (95%). */
  errorBarZ?: number;
}

type Panel = Extract<TopLevelSpec, { hconcat: unknown }>["hconcat"][number];

/** The probability series, in legend order, with how to read each from a point. */
const SERIES = [
  { name: "adopt (boundary)", key: "adopt" },
  { name: "drop (boundary)", key: "drop" },
  { name: "cap-adopt", key: "cap-adopt" },
  { name: "cap-drop", key: "cap-drop" },
  { name: "budget exhausted (N = cap)", key: "budget_exhausted" },
] as const;
const SERIES_COLOUR = [
  PALETTE.blue,
  PALETTE.vermillion,
  PALETTE.green,
  PALETTE.orange,
  PALETTE.black,
];

type SeriesKey = typeof SERIES[number]["key"];

function probability(
  point: Pick<SprtOperatingPoint, "decisions" | "budget_exhausted">,
  key: SeriesKey,
): number {
  return key === "budget_exhausted" ? point.budget_exhausted : point.decisions[key];
}

/**
 * Exact operating characteristic and expected sample size of seed 002's
 * truncated SPRT, with the seeded Monte Carlo calibration drawn over them.
 *
 * What it shows: left, against the true pass rate, the exact probability of
 * each final decision (adopt and drop at a boundary, cap-adopt and cap-drop
 * at the cap) and of exhausting the budget (N = n_cap), one line per series
 * with its own dash pattern; Monte Carlo frequencies from `calibrateSprt` are
 * points with a distinct shape per series and ±z standard error bars. Right:
 * the exact expected number of valid results E[N] with a ±1 sd(N) band, the
 * Monte Carlo mean N with error bars, and the cap. Dotted verticals mark
 * p_drop and p_adopt. The subtitle gives the parameters, trials and seed, the
 * agreement (largest |z|), and the reachability warnings (seed 002's critique:
 * cap-adopt cannot happen at the defaults).
 *
 * Seed rule visualised: seed 002, Wald's truncated SPRT and its calibration
 * ("calibrate the final decision distribution, mean sample size and budget
 * exhaustion at several true rates").
 *
 * @param curve exact points on a fine grid of true rates (`sprtOperatingCharacteristic`
 *   with the same parameters as `calibration`), in increasing `p_true`
 * @param calibration the output of `calibrateSprt` (its Monte Carlo rows become points)
 * @param options title, panel size, error bar width
 * @returns a vega-lite spec with inlined data and fixed sizes
 * @throws {RangeError} when `curve` is empty or not sorted by `p_true`
 * @example
 * ```ts
 * import { calibrateSprt } from "../sprt/calibrate_sprt.ts";
 * import { sprtOperatingCharacteristic } from "../sprt/sprt_operating_characteristic.ts";
 * import { sprtCalibrationPlot } from "./sprt_calibration_plot.ts";
 * const curve = [0.2, 0.5, 0.8].map((p) => sprtOperatingCharacteristic({}, p));
 * const spec = sprtCalibrationPlot(curve, calibrateSprt({}, { trials: 200, rates: [0.5] }));
 * if (!JSON.stringify(spec).includes("cap-adopt")) throw new Error("series missing");
 * ```
 */
export function sprtCalibrationPlot(
  curve: readonly SprtOperatingPoint[],
  calibration: SprtCalibration,
  options: SprtCalibrationPlotOptions = {},
): TopLevelSpec {
  if (curve.length === 0) {
    throw new RangeError("Cannot build SPRT calibration plot: the exact curve is empty");
  }
  for (let i = 1; i < curve.length; i++) {
    if (!(curve[i].p_true > curve[i - 1].p_true)) {
      throw new RangeError(
        `Cannot build SPRT calibration plot: curve point ${i} has p_true "${
          curve[i].p_true
        }", not above the previous "${curve[i - 1].p_true}"`,
      );
    }
  }
  const z = options.errorBarZ ?? 1.96;
  const width = options.width ?? 380;
  const height = options.height ?? 300;
  const { params } = calibration;
  const names = SERIES.map((s) => s.name);
  const exactRows = curve.flatMap((point) =>
    SERIES.map((s) => ({ p: point.p_true, series: s.name, value: probability(point, s.key) }))
  );
  const mcRows = calibration.rows.flatMap((row) =>
    SERIES.map((s) => {
      const value = probability(row.monte_carlo, s.key);
      const se = row.monte_carlo.se[s.key];
      return {
        p: row.p_true,
        series: s.name,
        value,
        lo: Math.max(0, value - z * se),
        hi: Math.min(1, value + z * se),
      };
    })
  );
  const sizeRows = curve.map((point) => ({
    p: point.p_true,
    mean: point.expected_sample_size,
    lo: Math.max(0, point.expected_sample_size - point.sample_size_sd),
    hi: Math.min(params.n_cap, point.expected_sample_size + point.sample_size_sd),
  }));
  const mcSizeRows = calibration.rows.map((row) => {
    const mc = row.monte_carlo;
    return {
      p: row.p_true,
      mean: mc.expected_sample_size,
      lo: mc.expected_sample_size - z * mc.se.expected_sample_size,
      hi: mc.expected_sample_size + z * mc.se.expected_sample_size,
    };
  });
  const verticals = [
    { p: params.p_drop, text: `p_drop ${params.p_drop}` },
    { p: params.p_adopt, text: `p_adopt ${params.p_adopt}` },
  ];
  const pAxis = {
    field: "p",
    type: "quantitative" as const,
    scale: { domain: [curve[0].p_true, curve[curve.length - 1].p_true] },
    axis: { title: "True pass rate p (probability per valid result)", format: ".0%" },
  };
  const seriesScale = { domain: names, range: SERIES_COLOUR };
  const exactLegend = {
    title: "Exact probability (lines)",
    orient: "bottom" as const,
    direction: "vertical" as const,
    symbolType: "stroke",
    symbolSize: 600,
    symbolStrokeWidth: 2,
  };
  const mcLegend = {
    title: "Monte Carlo frequency (points)",
    orient: "bottom" as const,
    direction: "vertical" as const,
  };
  const guides = (top: number): Extract<Panel, { layer: unknown }>["layer"] => [
    {
      data: { values: verticals },
      mark: { type: "rule", strokeDash: [2, 3], color: PALETTE.grey, strokeWidth: 1.5 },
      encoding: { x: { field: "p", type: "quantitative" } },
    },
    {
      data: { values: verticals },
      mark: {
        type: "text",
        align: "center",
        baseline: "bottom",
        dy: -3,
        fontSize: 10,
        color: "#444444",
      },
      encoding: {
        x: { field: "p", type: "quantitative" },
        y: { datum: top, type: "quantitative" },
        text: { field: "text", type: "nominal" },
      },
    },
  ];
  const probabilityPanel: Panel = {
    width,
    height,
    layer: [
      ...guides(1),
      {
        data: { values: exactRows },
        mark: { type: "line", strokeWidth: 2 },
        encoding: {
          x: pAxis,
          y: {
            field: "value",
            type: "quantitative",
            scale: { domain: [0, 1] },
            axis: { title: "Probability (exact line, Monte Carlo points)", format: ".0%" },
          },
          color: { field: "series", type: "nominal", scale: seriesScale, legend: exactLegend },
          strokeDash: {
            field: "series",
            type: "nominal",
            scale: { domain: names, range: DASHES.map((d) => d.length === 0 ? [1, 0] : d) },
            legend: exactLegend,
          },
        },
      },
      {
        data: { values: mcRows },
        mark: { type: "rule", strokeWidth: 1.5 },
        encoding: {
          x: { field: "p", type: "quantitative" },
          y: { field: "lo", type: "quantitative" },
          y2: { field: "hi" },
          color: { field: "series", type: "nominal", scale: seriesScale, legend: null },
        },
      },
      {
        data: { values: mcRows },
        mark: {
          type: "point",
          filled: true,
          opacity: 1,
          size: 60,
          stroke: "#FFFFFF",
          strokeWidth: 0.5,
        },
        encoding: {
          x: { field: "p", type: "quantitative" },
          y: { field: "value", type: "quantitative" },
          color: { field: "series", type: "nominal", scale: seriesScale, legend: mcLegend },
          shape: {
            field: "series",
            type: "nominal",
            scale: { domain: names, range: [...SHAPES] },
            legend: mcLegend,
          },
        },
      },
    ],
    // Separate colour scales (same mapping) so the exact lines and the Monte
    // Carlo points get separate legends: dashes for one, shapes for the other.
    resolve: { scale: { color: "independent", shape: "independent", strokeDash: "independent" } },
  };
  const sizePanel: Panel = {
    width,
    height,
    layer: [
      ...guides(params.n_cap * 1.1),
      {
        data: { values: [{ n: params.n_cap, text: `cap: ${params.n_cap} valid results` }] },
        mark: { type: "rule", strokeDash: [8, 4], color: PALETTE.black, strokeWidth: 1.5 },
        encoding: { y: { field: "n", type: "quantitative" } },
      },
      {
        data: { values: [{ n: params.n_cap, text: `cap: ${params.n_cap} valid results` }] },
        mark: { type: "text", align: "right", dy: -7, fontSize: 11, color: PALETTE.black },
        encoding: {
          x: { datum: curve[curve.length - 1].p_true, type: "quantitative" },
          y: { field: "n", type: "quantitative" },
          text: { field: "text", type: "nominal" },
        },
      },
      {
        data: { values: sizeRows },
        mark: { type: "area", opacity: 0.25, color: PALETTE.sky },
        encoding: {
          x: { field: "p", type: "quantitative" },
          y: { field: "lo", type: "quantitative" },
          y2: { field: "hi" },
        },
      },
      {
        data: { values: sizeRows },
        mark: { type: "line", strokeWidth: 2, color: PALETTE.blue },
        encoding: {
          x: pAxis,
          y: {
            field: "mean",
            type: "quantitative",
            scale: { domain: [0, params.n_cap * 1.1] },
            axis: { title: "Valid results until the decision, E[N] (count)" },
          },
        },
      },
      {
        data: { values: mcSizeRows },
        mark: { type: "rule", strokeWidth: 1.5, color: PALETTE.black },
        encoding: {
          x: { field: "p", type: "quantitative" },
          y: { field: "lo", type: "quantitative" },
          y2: { field: "hi" },
        },
      },
      {
        data: { values: mcSizeRows },
        mark: {
          type: "point",
          shape: "square",
          filled: true,
          opacity: 1,
          size: 60,
          color: PALETTE.black,
        },
        encoding: {
          x: { field: "p", type: "quantitative" },
          y: { field: "mean", type: "quantitative" },
        },
      },
    ],
  };
  const agreement = calibration.max_abs_z === null
    ? "Monte Carlo against exact: some z undefined (an exact probability of 0 or 1 missed)."
    : `Monte Carlo against exact: largest |z| ${decimal(calibration.max_abs_z, 2)} ` +
      `(${calibration.agrees ? "agrees" : "DISAGREES"} within |z| ≤ ${calibration.tolerance_z})` +
      (calibration.min_exact_p === null || calibration.min_exact_p === 1
        ? "."
        : `; where an expected count is below 10, exact binomial tests: smallest p ` +
          `${calibration.min_exact_p.toPrecision(3)} (level ` +
          `${calibration.exact_p_level.toExponential(2)}).`);
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: titleBlock(
      options.title ?? "SPRT operating characteristic and sample size",
      [
        `Seed-002 SPRT: p_adopt ${params.p_adopt}, p_drop ${params.p_drop}, α ${params.alpha}, ` +
        `β ${params.beta}, cap ${params.n_cap}. Lines: exact (dynamic programming).`,
        `Points: Monte Carlo, ${grouped(calibration.trials)} trials per rate, seed ` +
        `${calibration.seed}, bars ±${z} standard errors. Right: E[N], band ±1 sd(N).`,
        agreement,
        ...calibration.warnings.map((w) => `Warning: ${w}.`),
      ],
    ),
    config: baseConfig(),
    hconcat: [probabilityPanel, sizePanel],
    resolve: { scale: { y: "independent" } },
  };
}
