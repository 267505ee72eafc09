/**
 * Inputs the notebooks hand to figure builders that come from an agent's
 * standing rather than from the rows, so that a figure never prints a score
 * the tables beside it withhold (issue 25: on the field-scale ledger the
 * stop-reasons figure printed "headline score 46.1%" for an agent missing
 * 26% of its tasks).
 *
 * @module
 */
import type { ClaimAssessment } from "../analysis/agent_standing.ts";
import { withheldWords } from "../report/standing_words.ts";

/**
 * The `scoresWithheld` option of `stopReasonsPlot`: each agent whose
 * standing withholds its numbers for a cause the figure cannot see (every
 * cause but censoring, whose limit the figure applies itself: the ledger
 * fails validation, nothing scored, invalid attempts, judge faults or
 * missing tasks above the policy), with the reason in the words of
 * `withheldWords`, the ones the CLI and the report print. O(agents).
 *
 * @param assessment the claim assessment (`assessView`)
 * @param planId the plan's id (for the validation reason); null without a plan
 * @returns agent id → reason, in the standings' order
 * @example
 * ```ts
 * import { scoresWithheld } from "./figure_inputs.ts";
 * import type { ClaimAssessment } from "../analysis/agent_standing.ts";
 * const standing = { agent_id: "a", claim: null, withheld: "nothing_scored", blocking_codes: [] };
 * const assessment = { standings: [standing], censoring: { agents: [] }, coverage: null };
 * const reasons = scoresWithheld(assessment as unknown as ClaimAssessment, null);
 * if (reasons.get("a") !== "nothing was scored") throw new Error(reasons.get("a"));
 * ```
 */
export function scoresWithheld(
  assessment: ClaimAssessment,
  planId: string | null,
): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const standing of assessment.standings) {
    if (standing.withheld === null || standing.withheld === "censoring") continue;
    const words = withheldWords(standing, assessment, planId);
    if (words !== null) reasons.set(standing.agent_id, words.reason);
  }
  return reasons;
}
