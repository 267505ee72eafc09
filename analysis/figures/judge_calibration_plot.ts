/**
 * The judge's calibration (issue 14, seed 000 §06–07): agreement with the
 * human labels (on the blind labels and, when a label was revised after
 * the labeller saw the model's output, on the latest ones too) and the
 * swap consistency of pairwise judgments, each with its Wilson 95%
 * interval and the gate it is held to.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { AgreementFigure, JudgeCalibration } from "../judge/judge_calibration.ts";
import { displayId } from "../untrusted_text.ts";
import { percent } from "./_format.ts";
import { baseConfig, PALETTE, titleBlock, VEGA_LITE_SCHEMA } from "./_style.ts";

/** One row of the figure. */
interface CalibrationRow {
  figure: string;
  rate: number | null;
  lower: number | null;
  upper: number | null;
  gate: number | null;
  note: string;
}

/**
 * The calibration figure: one row per measured figure, its point, its
 * Wilson interval, and a tick at its gate (the agreement gate on the label
 * set the gate holds, blind when it differs from the latest; none on the
 * other set, whose labels were revised after the labeller saw the
 * model's output, reported beside it). A figure that cannot be measured is a
 * row without a point, saying so.
 *
 * @param calibration `judgeCalibration`'s summary
 * @param options the judge's model, shown in the title
 * @returns a vega-lite spec
 */
export function judgeCalibrationPlot(
  calibration: JudgeCalibration,
  options: { model: string },
): TopLevelSpec {
  const gates = calibration.gates;
  const held = gates.human_agreement.label_set;
  const sets = calibration.blind === null
    ? [calibration.latest]
    : [calibration.blind, calibration.latest];
  const rows: CalibrationRow[] = [
    ...sets.map((set) =>
      row(
        `agreement, ${set.label_set} labels (${set.agreement.agreeing}/${set.agreement.items})`,
        set.agreement,
        set.label_set === held ? gates.human_agreement.gate : null,
      )
    ),
    row(
      `swap consistency (${calibration.swap_consistency.consistent}/${calibration.swap_consistency.pairs} pairs)`,
      {
        items: calibration.swap_consistency.pairs,
        agreeing: calibration.swap_consistency.consistent,
        rate: calibration.swap_consistency.rate,
        wilson: calibration.swap_consistency.wilson,
      },
      gates.swap_consistency.gate,
    ),
  ];
  const verdict = gates.passed
    ? "Calibrated: both gates are met, so its judged tasks may count in formal scores."
    : `Uncalibrated: ${gates.reasons.join("; ")}. Its judged tasks are recorded, not counted.`;
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: titleBlock(`Judge calibration: ${displayId(options.model)}`, [
      `${calibration.items} golden items, ${calibration.label_lines} labels; ` +
      "points with Wilson 95% intervals, ticks at the gates (seed 000: 80% and 90%), which " +
      "hold the point estimates",
      verdict,
    ]),
    width: 420,
    height: 40 * rows.length,
    data: { values: rows },
    encoding: {
      y: { field: "figure", type: "nominal", sort: rows.map((r) => r.figure), title: null },
    },
    layer: [
      {
        mark: { type: "rule", strokeWidth: 3, color: PALETTE.blue },
        encoding: {
          x: {
            field: "lower",
            type: "quantitative",
            scale: { domain: [0, 1] },
            axis: { format: ".0%", values: [0, 0.2, 0.4, 0.6, 0.8, 1], title: "Rate" },
          },
          x2: { field: "upper" },
        },
      },
      {
        mark: { type: "point", filled: true, size: 110, shape: "diamond", color: PALETTE.black },
        encoding: { x: { field: "rate", type: "quantitative" } },
      },
      {
        mark: { type: "tick", thickness: 3, size: 26, color: PALETTE.vermillion },
        encoding: { x: { field: "gate", type: "quantitative" } },
      },
      {
        mark: { type: "text", align: "left", dx: 6, fontSize: 11, x: 425 },
        encoding: { text: { field: "note" } },
      },
    ],
    config: baseConfig(),
  };
}

function row(figure: string, measured: AgreementFigure, gate: number | null): CalibrationRow {
  const gateNote = gate === null
    ? "not gated: labels revised after seeing model output"
    : measured.rate === null
    ? "not measurable: the gate fails"
    : measured.rate >= gate
    ? `meets the gate ${percent(gate, 0)}`
    : `below the gate ${percent(gate, 0)}`;
  return {
    figure,
    rate: measured.rate,
    lower: measured.wilson?.lower ?? null,
    upper: measured.wilson?.upper ?? null,
    gate,
    note: measured.rate === null ? gateNote : `${percent(measured.rate)}: ${gateNote}`,
  };
}
