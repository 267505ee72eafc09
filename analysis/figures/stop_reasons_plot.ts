/**
 * Figure 3: stop reasons per agent as stacked bars, with each agent's
 * censoring rate and the claim the pre-registered policy allows.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import {
  type CensoringClaim,
  censoringClaim,
  type CensoringRow,
  type CensoringSummary,
} from "../censoring.ts";
import { type CensoringPolicy, StopReason } from "../schema/records.ts";
import { formatPercentExact } from "../format_number.ts";
import { agentNames, percent, tooltipId } from "./_format.ts";
import { figureOrder } from "../leaderboard.ts";
import { SCORE_WORDS } from "../score_words.ts";
import { baseConfig, PALETTE, titleBlock, VEGA_LITE_SCHEMA } from "./_style.ts";

/** Options for {@link stopReasonsPlot}. */
export interface StopReasonsPlotOptions {
  /** Figure title; default "Stop reasons and censoring per agent". */
  title?: string;
  /** Width of the bar panel in pixels; default 300 (with the notes beside it, readable at 984 px). */
  width?: number;
  /**
   * Per agent, a reason that withholds its scores whatever its censoring
   * rate, printed as `scores not stated (<reason>)`. The report passes one
   * for each agent its standing withholds for another cause than censoring:
   * the ledger fails validation for it (seed 003: validate before anyone
   * reads a mean) or too many planned tasks have no row (issue 11); the
   * censoring policy's own limit needs no option.
   */
  scoresWithheld?: ReadonlyMap<string, string>;
  /**
   * Per agent, the words printed in place of its scores when its claim over
   * every rate is less than its censoring band allows but still states
   * numbers (missing tasks or invalid attempts in the labelled band; issue
   * 25 item 3: the figure said "headline score" beside an agent the
   * report states labelled). Ignored for an agent in `scoresWithheld`.
   */
  scoresInstead?: ReadonlyMap<string, string>;
  /** The agents' order (the report's leaderboard); default by resolved rate over scored episodes (`figureOrder`). */
  order?: readonly string[];
}

/** The claim each policy band allows, in the words of seed 003's table. */
export const CLAIM_TEXT: Record<CensoringClaim, string> = {
  headline: "headline score allowed",
  both_labelled: "both scores, labelled",
  budget_adequacy_only: "budget adequacy only",
};

/**
 * Fill and label ink per stop reason. Neighbours in the stack differ in grey
 * level (Rec. 601: 87, 213, 119, 158, 0, 151), and every wide enough segment
 * carries its count, so the bars read in greyscale too.
 */
const STYLE: Record<StopReason, { fill: string; ink: string }> = {
  completed: { fill: PALETTE.blue, ink: "#FFFFFF" },
  step_cap: { fill: PALETTE.yellow, ink: "#000000" },
  token_cap: { fill: PALETTE.vermillion, ink: "#FFFFFF" },
  wall_cap: { fill: PALETTE.sky, ink: "#000000" },
  rate_limited: { fill: PALETTE.black, ink: "#FFFFFF" },
  error: { fill: PALETTE.purple, ink: "#000000" },
};

/**
 * The scores the policy lets the figure print for an agent (seed 003's table),
 * in {@link SCORE_WORDS}' words: the headline (the resolved rate over scored
 * episodes) under `headline_max`; both scores, labelled, up to
 * `labelled_max`; none above it.
 */
function scores(row: CensoringRow, policy: CensoringPolicy, withheld?: string): string {
  if (withheld !== undefined) return `scores not stated (${withheld})`;
  const all = row.score_all_tasks === null ? "n/a" : percent(row.score_all_tasks);
  switch (row.claim) {
    case "headline":
      return `headline: ${SCORE_WORDS.scored} ${all}`;
    case "both_labelled": {
      const completed = row.score_completed_only === null
        ? "n/a"
        : percent(row.score_completed_only);
      // Two lines (issue 25: on one, the notes made the figure too wide to read at 20 agents).
      return `${SCORE_WORDS.scored} ${all} (lower bound),\n${SCORE_WORDS.completed} ${completed}`;
    }
    default: // "budget_adequacy_only": no capability number at all
      return `scores not stated (censoring > ${formatPercentExact(policy.labelled_max)})`;
  }
}

function note(
  row: CensoringRow,
  policy: CensoringPolicy,
  withheld?: string,
  instead?: string,
): string {
  // Its own line, last (issue 25: appended to the first it made the figure too wide to read).
  const invalid = row.invalid > 0 ? `\n${row.invalid} invalid, not scored` : "";
  if (row.censoring_rate === null || row.claim === null) {
    return `nothing scored${invalid}`;
  }
  // The censored counts by reason, spelled out so the bar reads without colour.
  const reasons = StopReason.options.filter((r) => r !== "completed" && row.stop_reasons[r] > 0)
    .map((r) => `${row.stop_reasons[r]} ${r}`);
  return `censored ${percent(row.censoring_rate)}: ${CLAIM_TEXT[row.claim]}\n` +
    (withheld === undefined && instead !== undefined ? instead : scores(row, policy, withheld)) +
    (reasons.length > 0 ? `\ncensored: ${reasons.join(", ")}` : "") + invalid;
}

/**
 * Stacked bars of stop reasons per agent, labelled with the censoring rate and
 * the claim the policy allows.
 *
 * What it shows: one bar per agent (by resolved rate over scored episodes, highest first,
 * then id: `byRateDescending`, issue 25) over its scored episodes, tooltips
 * naming the agent in full,
 * split by stop reason in the schema's order (completed first; every other
 * reason is censoring). Beside each bar: the censoring rate (censored /
 * scored), the claim the policy allows for it, the scores that claim lets
 * the figure state, the count of invalid attempts (never scored, so not in
 * the bar), and the censored counts by reason, so the bar reads without
 * colour. The scores follow the agent's claim, in {@link SCORE_WORDS}'
 * words: `"headline"` prints the resolved rate over scored episodes;
 * `"both_labelled"` prints both, labelled (over scored episodes, a lower
 * bound, and over completed tasks only);
 * `"budget_adequacy_only"` prints `scores not stated (censoring > 10%)`,
 * with the policy's own `labelled_max`, and no score at all. The subtitle
 * states the policy thresholds and the whole run's verdict. All numbers come
 * from `censoringSummary`.
 *
 * Seed rule visualised: seed 003, "A policy for deciding when a number may
 * ship": under 2% censored a headline, 2% to 10% both scores labelled, above
 * 10% budget adequacy only, no capability headline (thresholds from the plan).
 *
 * @param summary the output of `censoringSummary`
 * @param options title, panel width, a reason withholding every score
 * @returns a vega-lite spec with inlined data and fixed sizes
 * @throws {RangeError} when the summary has no agents
 * @example
 * ```ts
 * import { censoringSummary } from "../censoring.ts";
 * import { Episode } from "../schema/records.ts";
 * import { stopReasonsPlot } from "./stop_reasons_plot.ts";
 * const base = { run_id: "r", agent_id: "a", seed: 1, prompt_tokens: 1, completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p" };
 * const rows = [
 *   Episode.parse({ ...base, task_id: "t1", resolved: true }),
 *   Episode.parse({ ...base, task_id: "t2", resolved: false, stop_reason: "token_cap" }),
 * ];
 * const spec = stopReasonsPlot(censoringSummary(rows));
 * // 1 of 2 censored (50% > 10%): budget adequacy only, and no score beside the bar.
 * if (!JSON.stringify(spec).includes("scores not stated (censoring > 10%)")) throw new Error();
 * ```
 */
export function stopReasonsPlot(
  summary: CensoringSummary,
  options: StopReasonsPlotOptions = {},
): TopLevelSpec {
  if (summary.agents.length === 0) {
    throw new RangeError("Cannot build stop reasons plot: the censoring summary has no agents");
  }
  const reasons = StopReason.options;
  const present = reasons.filter((r) =>
    r === "completed" || summary.agents.some((a) => a.stop_reasons[r] > 0)
  );
  const widest = Math.max(1, ...summary.agents.map((a) => a.scored));
  // Bars by resolved rate over scored episodes, highest first, then id (`byRateDescending`).
  const byId = new Map(summary.agents.map((row) => [row.agent_id, row]));
  const agents = figureOrder(
    summary.agents.map((row) => ({ agent_id: row.agent_id, sort_rate: row.score_all_tasks })),
    options.order,
  ).map((id) => byId.get(id)!);
  const name = agentNames(agents.map((row) => row.agent_id));
  const label = (row: CensoringRow) => `${name(row.agent_id)} (${row.scored} scored)`;
  const segments = agents.flatMap((row) => {
    let start = 0;
    return reasons.filter((r) => row.stop_reasons[r] > 0).map((reason) => {
      const count = row.stop_reasons[reason];
      const segment = {
        agent: label(row),
        agent_id: tooltipId(row.agent_id),
        reason,
        count,
        x0: start,
        x1: start + count,
        mid: start + count / 2,
        // Only segments at least 5% of the widest bar carry their count.
        text: count / widest >= 0.05 ? String(count) : "",
        ink: STYLE[reason].ink,
      };
      start += count;
      return segment;
    });
  });
  const notes = agents.map((row) => ({
    agent: label(row),
    agent_id: tooltipId(row.agent_id),
    end: row.scored,
    text: note(
      row,
      summary.policy,
      options.scoresWithheld?.get(row.agent_id),
      options.scoresInstead?.get(row.agent_id),
    ),
  }));
  const noteLines = Math.max(1, ...notes.map((n) => n.text.split("\n").length));
  const rowHeight = Math.max(64, 14 * noteLines + 20);
  const labels = agents.map(label);
  const { policy, overall } = summary;
  const runVerdict = overall.censoring_rate === null || overall.claim === null
    ? "Whole run: nothing scored."
    : `Whole run: ${overall.censored} of ${overall.scored} scored episodes censored (${
      percent(overall.censoring_rate)
    })${
      overall.claim === censoringClaim(overall.censoring_rate, policy)
        ? ""
        : ", pooled, so never more than its weakest agent"
    }: ${CLAIM_TEXT[overall.claim]}.`;
  const y = { field: "agent", type: "nominal", sort: labels } as const;
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: titleBlock(options.title ?? "Stop reasons and censoring per agent", [
      "Censored: a scored episode that stopped on a cap, a rate limit or an error. " +
      "Invalid attempts are not scored.",
      `Policy fixed before the run (seed 003): under ${formatPercentExact(policy.headline_max)} ` +
      `censored, headline; ${formatPercentExact(policy.headline_max)} to ${
        formatPercentExact(policy.labelled_max)
      }, both scores labelled; above, budget adequacy only.`,
      runVerdict,
    ]),
    config: baseConfig(),
    width: options.width ?? 300,
    height: rowHeight * labels.length,
    layer: [
      {
        data: { values: segments },
        mark: { type: "rect", stroke: "#FFFFFF", strokeWidth: 1.5, height: 26 },
        encoding: {
          y: { ...y, title: "Agent (scored episodes)", axis: { labelFontSize: 12 } },
          x: {
            field: "x0",
            type: "quantitative",
            scale: { domain: [0, widest] },
            axis: { title: "Scored episodes (count)", tickMinStep: 1, format: "d" },
          },
          x2: { field: "x1" },
          tooltip: [
            { field: "agent_id", type: "nominal", title: "agent" },
            { field: "reason", type: "nominal", title: "stop reason" },
            { field: "count", type: "quantitative", title: "scored episodes" },
          ],
          fill: {
            field: "reason",
            type: "nominal",
            scale: { domain: present, range: present.map((r) => STYLE[r].fill) },
            legend: { title: "Stop reason", orient: "bottom", direction: "horizontal", columns: 3 },
          },
        },
      },
      {
        data: { values: segments },
        mark: { type: "text", fontSize: 11, fontWeight: "bold" },
        encoding: {
          y,
          x: { field: "mid", type: "quantitative" },
          text: { field: "text", type: "nominal" },
          color: { field: "ink", type: "nominal", scale: null },
        },
      },
      {
        data: { values: notes },
        mark: {
          type: "text",
          align: "left",
          baseline: "middle",
          dx: 8,
          dy: -6 * (noteLines - 1),
          lineBreak: "\n",
          fontSize: 11,
          color: PALETTE.black,
        },
        encoding: {
          y,
          x: { field: "end", type: "quantitative" },
          text: { field: "text", type: "nominal" },
          tooltip: [
            { field: "agent_id", type: "nominal", title: "agent" },
            { field: "text", type: "nominal", title: "censoring and claim" },
          ],
        },
      },
    ],
  };
}
