/**
 * Figure 4: the SPRT path of one agent, cumulative log-likelihood ratio
 * against the adopt and drop boundaries, attempt by attempt.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { SprtOutcome, SprtReplay } from "../sprt/replay_sprt.ts";
import { decimal, percent } from "./_format.ts";
import { displayId, lineText } from "../untrusted_text.ts";
import { baseConfig, PALETTE, titleBlock, VEGA_LITE_SCHEMA } from "./_style.ts";

/** Options for {@link sprtPathPlot}. */
export interface SprtPathPlotOptions {
  /** Figure title; default `SPRT path of "<agent>"`. */
  title?: string;
  /** Plot width in pixels; default 560. */
  width?: number;
  /** Plot height in pixels; default 320. */
  height?: number;
}

const OUTCOME_NAME: Record<SprtOutcome, string> = {
  pass: "pass (LLR up)",
  fail: "fail (LLR down)",
  invalid: "invalid attempt (neither; LLR unchanged)",
};
const OUTCOME_SHAPE: Record<SprtOutcome, string> = {
  pass: "triangle-up",
  fail: "triangle-down",
  invalid: "cross",
};
const OUTCOME_COLOUR: Record<SprtOutcome, string> = {
  pass: PALETTE.blue,
  fail: PALETTE.vermillion,
  invalid: PALETTE.black,
};

function verdictText(replay: SprtReplay): string {
  const plural = (k: number, word: string) => `${k} ${word}${k === 1 ? "" : "s"}`;
  const at = `after ${plural(replay.n, "valid result")} (${plural(replay.attempts, "attempt")})`;
  switch (replay.verdict) {
    case "adopt":
      return `Verdict: adopt ${at}: the LLR reached the adopt boundary`;
    case "drop":
      return `Verdict: drop ${at}: the LLR reached the drop boundary`;
    case "cap-adopt":
    case "cap-drop":
      return `Verdict: ${replay.verdict} ${at}: the cap was reached and the point estimate ` +
        `${replay.passes}/${replay.n} decided`;
    case "continue":
      return `No verdict: the ledger ends ${at} before any boundary or the cap`;
  }
}

/**
 * The walk of seed 002's SPRT over one agent's ledger rows, as replayed.
 *
 * What it shows: x = attempt number in the pre-registered order, the plan's
 * task order (or ledger file order without a plan, as the axis title then
 * says), every walked row, invalid attempts included; y = cumulative LLR after the attempt
 * (`steps[i].llr` from `replaySprt`), starting at 0. Passes step up by
 * ln(p_adopt/p_drop), fails step down by ln((1 − p_adopt)/(1 − p_drop)),
 * invalid attempts (crosses) leave it unchanged. Dashed horizontal lines: the
 * adopt boundary ln((1 − β)/α) and the drop boundary ln(β/(1 − α)) (±2.197 at
 * the defaults). The subtitle states the parameters, the verdict, the invalid
 * rate and the replay's notes.
 *
 * Seed rule visualised: seed 002, Wald's SPRT with pre-registered
 * parameters; invalid attempts count neither as pass nor fail and are
 * reported as an invalid rate.
 *
 * @param replay the output of `replaySprt`
 * @param options title, size
 * @returns a vega-lite spec with inlined data and fixed sizes
 * @example
 * ```ts
 * import { Episode } from "../schema/records.ts";
 * import { replaySprt } from "../sprt/replay_sprt.ts";
 * import { sprtPathPlot } from "./sprt_path_plot.ts";
 * const rows = [1, 2, 3, 4, 5, 6].map((i) => Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: `t${i}`, seed: 1, resolved: true,
 *   prompt_tokens: 0, completion_tokens: 0, tool_calls: 0, wall_ms: 0, price_table_id: "p",
 * }));
 * const spec = sprtPathPlot(replaySprt(rows, { agentId: "a" }));
 * if (!JSON.stringify(spec).includes("adopt")) throw new Error("verdict missing");
 * ```
 */
export function sprtPathPlot(
  replay: SprtReplay,
  options: SprtPathPlotOptions = {},
): TopLevelSpec {
  const { params, boundaries } = replay;
  const path = [
    { attempt: 0, llr: 0, n: 0 },
    ...replay.steps.map((s, i) => ({ attempt: i + 1, llr: s.llr, n: s.n })),
  ];
  const marks = replay.steps.map((s, i) => ({
    attempt: i + 1,
    llr: s.llr,
    outcome: OUTCOME_NAME[s.outcome],
    tooltip: `${displayId(s.task_id)}: ${s.outcome}, n = ${s.n}, LLR ${decimal(s.llr, 3)}`,
  }));
  const present = (["pass", "fail", "invalid"] as const).filter((o) =>
    replay.steps.some((s) => s.outcome === o)
  );
  const lines = [
    { name: "adopt", llr: boundaries.upper, text: `adopt: LLR ≥ ${decimal(boundaries.upper, 3)}` },
    { name: "drop", llr: boundaries.lower, text: `drop: LLR ≤ ${decimal(boundaries.lower, 3)}` },
  ];
  const lastX = Math.max(replay.attempts, 1);
  const llrs = replay.steps.map((s) => s.llr);
  const span = Math.max(boundaries.upper, -boundaries.lower, ...llrs.map(Math.abs)) * 1.15;
  const invalid = replay.invalid_rate === null
    ? "no attempts walked"
    : `${replay.invalid_count} invalid of ${replay.attempts} attempts (${
      percent(replay.invalid_rate)
    } invalid rate)`;
  const subtitle = [
    `Seed-002 SPRT: p_adopt ${params.p_adopt}, p_drop ${params.p_drop}, α ${params.alpha}, ` +
    `β ${params.beta}, cap ${params.n_cap} valid results; ` +
    `pass +${decimal(boundaries.llr_per_pass, 4)}, fail ${decimal(boundaries.llr_per_fail, 4)}.`,
    `${verdictText(replay)}.`,
    `Invalid attempts count neither as pass nor fail: ${invalid}. ` +
    `Order: ${replay.order === "planned" ? "the plan's task order" : "ledger file order"}.`,
    ...replay.notes.map((note) => `Note: ${lineText(note)}.`),
  ];
  const x = {
    field: "attempt",
    type: "quantitative" as const,
    scale: { domain: [0, lastX] },
    axis: {
      title: `Attempt in ${
        replay.order === "planned" ? "the plan's task order" : "ledger file order"
      } (count, invalid attempts included)`,
      tickMinStep: 1,
      format: "d",
    },
  };
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: titleBlock(options.title ?? `SPRT path of "${displayId(replay.agent_id)}"`, subtitle),
    config: baseConfig(),
    width: options.width ?? 560,
    height: options.height ?? 320,
    layer: [
      {
        data: { values: [{ llr: 0 }] },
        mark: { type: "rule", color: "#999999", strokeWidth: 1 },
        encoding: { y: { field: "llr", type: "quantitative" } },
      },
      {
        data: { values: lines },
        mark: { type: "rule", strokeDash: [8, 4], strokeWidth: 2, color: PALETTE.black },
        encoding: { y: { field: "llr", type: "quantitative" } },
      },
      {
        data: { values: lines },
        mark: {
          type: "text",
          align: "left",
          dx: 4,
          dy: -8,
          fontSize: 11,
          fontWeight: "bold",
          color: PALETTE.black,
        },
        encoding: {
          // At the left: the walk starts at 0 and needs several steps to near a boundary.
          x: { datum: 0, type: "quantitative" },
          y: { field: "llr", type: "quantitative" },
          text: { field: "text", type: "nominal" },
        },
      },
      {
        data: { values: path },
        mark: { type: "line", color: PALETTE.grey, strokeWidth: 2 },
        encoding: {
          x,
          y: {
            field: "llr",
            type: "quantitative",
            scale: { domain: [-span, span] },
            axis: { title: "Cumulative log-likelihood ratio (nats)" },
          },
        },
      },
      {
        data: { values: marks },
        mark: { type: "point", filled: true, opacity: 1, size: 70 },
        encoding: {
          x: { field: "attempt", type: "quantitative" },
          y: { field: "llr", type: "quantitative" },
          shape: {
            field: "outcome",
            type: "nominal",
            scale: {
              domain: present.map((o) => OUTCOME_NAME[o]),
              range: present.map((o) => OUTCOME_SHAPE[o]),
            },
            legend: { title: "Attempt", orient: "bottom", direction: "horizontal" },
          },
          color: {
            field: "outcome",
            type: "nominal",
            scale: {
              domain: present.map((o) => OUTCOME_NAME[o]),
              range: present.map((o) => OUTCOME_COLOUR[o]),
            },
            legend: { title: "Attempt", orient: "bottom", direction: "horizontal" },
          },
          tooltip: { field: "tooltip", type: "nominal" },
        },
      },
    ],
  };
}
