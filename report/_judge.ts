/**
 * The report's LLM judge (issue 14; seed 000 §06): what it records about
 * the judge, the one claim the judge's calibration allows about the
 * judged tasks, and each agent's judge-fault claim (issue 21).
 *
 * Private to `report/`.
 *
 * @module
 */
import { formatPercentExact } from "../analysis/format_number.ts";
import type { JudgeFigures, LeftOutTask } from "../analysis/judge/judge_rows.ts";
import type { AgentJudgeFaults } from "../analysis/judge/judge_faults.ts";
import type { CensoringPolicy, Plan } from "../analysis/schema/records.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import { integer, percent, plural, quotedList } from "./format.ts";
import { faultsAsFailuresText, policyText } from "./_claims.ts";
import type { ReportClaim, ReportJudge } from "./report_model.ts";

/** The rule every judge claim names. */
export const JUDGE_RULE = "seed-000 judge calibration gates";

/**
 * The report's judge record, or null when there is nothing to say: no
 * judged row and no judge in the plan (the report then keeps the bytes it
 * had before issue 14). O(1).
 *
 * @param figures `judgeFigures` of every row after errata
 * @param leftOut `judgeLeftOut`'s tasks
 * @param plan the plan, or null
 * @param judgeFaults each agent's judge faults over the counted rows (`ClaimAssessment.judge_faults`)
 * @returns the record, or null
 */
export function reportJudge(
  figures: JudgeFigures,
  leftOut: readonly LeftOutTask[],
  plan: Plan | null,
  judgeFaults: readonly AgentJudgeFaults[] = [],
): ReportJudge | null {
  const config = plan?.judge ?? null;
  if (figures.rows === 0 && config === null) return null;
  return { plan: config, figures, left_out: [...leftOut], judge_faults: [...judgeFaults] };
}

/** What each judge-fault band lets the agent's numbers say (issue 21). */
const JUDGE_FAULT_WORDS = {
  headline: "its judged tasks count as usual",
  both_labelled: "its resolved rate is stated beside the lower bound that counts each judge " +
    "fault as a failure",
  budget_adequacy_only: "no capability claim is stated for it",
} as const;

/**
 * An agent's judge-fault claim (issue 21; `agentJudgeFaults`): its
 * `judge_fault` rows over its judged rows, the band of the censoring
 * thresholds the rate falls in and what that band lets its numbers say,
 * and, from `headline_max` up, its resolved rate with every judge fault
 * counted as a failure. A judge fault is invalid and left out of every
 * score (seed 000 §06), so this is what keeps an answer that breaks the
 * judge from paying. Stated unless the band is `budget_adequacy_only`.
 *
 * @param row the agent's judge faults
 * @param policy the censoring thresholds in force
 * @returns the claim, id `judge-faults:<agent_id>`
 */
export function judgeFaultClaim(row: AgentJudgeFaults, policy: CensoringPolicy): ReportClaim {
  const claim = row.claim ?? "headline";
  const bound = claim === "headline" ? "" : `; ${faultsAsFailuresText(row)}`;
  return {
    id: `judge-faults:${row.agent_id}`,
    topic: "judge",
    rule: `judge faults, seed-003 policy "${claim}"`,
    stated: claim !== "budget_adequacy_only",
    text: `"${displayId(row.agent_id)}": ${integer(row.judge_faults)} of its ${
      plural(row.judged, "judged row")
    } ${row.judge_faults === 1 ? "is a judge fault" : "are judge faults"} (${
      percent(row.judge_fault_rate)
    }; ${policyText(policy)}), so ${JUDGE_FAULT_WORDS[claim]}${bound}`,
  };
}

/**
 * The claim the judge's calibration allows (seed 000: a judge marked
 * unavailable in a formal batch, the tasks that depend on it not scored
 * for now; its release gates: agreement with human labels and swap
 * consistency):
 * - a task was left out (a row's judge was not calibrated), or the plan's
 *   judge has not passed its calibration: withheld, no formal claim rests
 *   on the judged tasks, naming the tasks left out and why;
 * - the plan's judge passed: stated, with the measured agreement and swap
 *   consistency beside the gates they cleared;
 * - judged rows all calibrated but no plan given: stated that they count,
 *   and that the calibration's figures are in the plan, not given.
 *
 * @param judge the report's judge record
 * @returns the claim, id `judge`
 */
export function judgeClaim(judge: ReportJudge): ReportClaim {
  const config = judge.plan;
  const state = config?.calibration.state ?? null;
  const model = config === null ? "" : ` "${config.model}"`;
  if (judge.left_out.length > 0 || (state !== null && state !== "passed")) {
    const why = state === null
      ? "its rows record an uncalibrated judge (no plan given)"
      : state === "passed"
      ? "its rows record an uncalibrated judge, though the plan's calibration passed"
      : state === "failed"
      ? `it failed its calibration (${
        config!.calibration.state === "failed" ? config!.calibration.reasons.join("; ") : ""
      })`
      : "it has not been calibrated (calibration not run)";
    const rows = judge.left_out.reduce((sum, task) => sum + task.rows, 0);
    const left = judge.left_out.length === 0
      ? "the ledger has no judged row"
      : `${plural(judge.left_out.length, "judged task")} (${
        quotedList(judge.left_out.map((task) => task.task_id))
      }, ${plural(rows, "row")}) are recorded but left out of every score, rate and denominator`;
    return {
      id: "judge",
      topic: "judge",
      rule: JUDGE_RULE,
      stated: false,
      text: `No formal claim rests on the judged tasks: the LLM judge${model} is unavailable ` +
        `because ${why}; ${left}`,
    };
  }
  const judged = judge.figures.by_task.length;
  if (config !== null && config.calibration.state === "passed") {
    const c = config.calibration;
    return {
      id: "judge",
      topic: "judge",
      rule: JUDGE_RULE,
      stated: true,
      text: `The LLM judge${model} passed its calibration: agreement with human labels ${
        formatPercentExact(c.human_agreement)
      } (gate: at least ${formatPercentExact(config.gates.human_agreement)}), swap consistency ${
        formatPercentExact(c.swap_consistency)
      } (gate: at least ${formatPercentExact(config.gates.swap_consistency)}); ${
        judged === 0
          ? "the ledger has no judged row"
          : `its ${plural(judged, "judged task")} ${
            judged === 1 ? "counts" : "count"
          } in formal scores`
      }`,
    };
  }
  return {
    id: "judge",
    topic: "judge",
    rule: JUDGE_RULE,
    stated: true,
    text:
      `The judged rows record a calibrated LLM judge, so its ${plural(judged, "judged task")} ${
        judged === 1 ? "counts" : "count"
      } in formal scores; no plan given, so the calibration's agreement and swap ` +
      "consistency are not shown",
  };
}
