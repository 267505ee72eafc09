/**
 * The words of an agent's standing (`analysis/agent_standing.ts`), shared by
 * the report and the CLI commands so that they say the same thing: why an
 * agent's capability numbers are withheld, and the rule that says so; the
 * per-agent denominator line (planned, rows, missing, the score over
 * planned tasks as a lower bound beside the resolved rate over scored
 * episodes); the three scores' words ({@link SCORE_WORDS}, re-exported for
 * the notebooks); and which side of a comparison did not record a
 * tie-break's figure.
 *
 * @module
 */
import type {
  AgentStanding,
  ClaimAssessment,
  WithheldCause,
  WithheldPairGroup,
} from "../analysis/agent_standing.ts";
import type { CensoringClaim } from "../analysis/censoring.ts";
import type { Comparison } from "../analysis/compare_agents.ts";
import { formatPercentExact } from "../analysis/format_number.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import { integer, percent, plural, quotedList } from "./format.ts";
import { SCORE_WORDS } from "../analysis/score_words.ts";

export { SCORE_WORDS };

/** Why an agent's capability numbers may not be stated, and the rule that says so. */
export interface Withheld {
  cause: WithheldCause;
  reason: string;
  rule: string;
}

/** The rule a judge-fault claim names (judge faults held to seed 003's thresholds). */
export const JUDGE_FAULT_RULE = 'judge faults, seed-003 policy "budget_adequacy_only"';

/** The rule an invalid-rate claim names (invalid attempts held to seed 003's bands). */
export const INVALID_RATE_RULE =
  'invalid attempts, seeds 000 and 002, seed-003 policy "budget_adequacy_only"';

/** The rule a flagged-rate claim names: seed 000's sandbox rule, held to seed 003's bands. */
export const FLAGGED_RULE = "seed 000: nothing the candidate writes may reach the verifier; " +
  'seed-003 policy "budget_adequacy_only"';

/**
 * Invalid attempts per reason in words, only the reasons that occur, in
 * schema order: `harness_error 234, verifier_fault 2`.
 *
 * @param reasons counts per reason
 * @param options `judgeFaults: false` leaves `judge_fault` out (the invalid rate's claim does not hold it)
 * @returns the list, or "none"
 */
export function invalidReasonsText(
  reasons: Readonly<Record<string, number>>,
  options: { judgeFaults?: boolean } = {},
): string {
  const parts = Object.entries(reasons).filter(([r, n]) =>
    n > 0 && (options.judgeFaults !== false || r !== "judge_fault")
  ).map(([r, n]) => `${r} ${integer(n)}`);
  return parts.length === 0 ? "none" : parts.join(", ");
}

/** Seed 003's claims in a few words. */
export const CLAIM_SHORT_WORDS: Record<CensoringClaim, string> = {
  headline: "headline",
  both_labelled: "both scores, labelled",
  budget_adequacy_only: "budget adequacy only",
};

/**
 * What an agent (or the pooled run) may claim, in a table cell: the claim's
 * short words, or `withheld (<cause>)`, so that a withheld agent's figures
 * are marked wherever a table prints them (issue 23).
 *
 * @param standing the agent's or the pooled standing
 * @returns e.g. `headline`, `both scores, labelled`, `withheld (invalid)`
 * @example
 * ```ts
 * import { claimLabel } from "./standing_words.ts";
 * if (claimLabel({ claim: "headline", withheld: "missing" }) !== "withheld (missing)") {
 *   throw new Error();
 * }
 * ```
 */
export function claimLabel(
  standing: Pick<AgentStanding, "claim" | "withheld">,
): string {
  if (standing.withheld !== null) return `withheld (${standing.withheld})`;
  return standing.claim === null ? "-" : CLAIM_SHORT_WORDS[standing.claim];
}

/**
 * Why one agent's numbers are withheld, in words, or null when they may be
 * stated: the standing's cause (validation, nothing scored, invalid,
 * flagged, censoring, judge-fault or missing rate above `labelled_max`) with the figures
 * behind it.
 *
 * @param standing the agent's standing
 * @param assessment the assessment it belongs to (rates, policies, plan id)
 * @param planId the plan's id, for the validation reason; null without a plan
 * @returns the cause, reason and rule; null when nothing withholds the agent
 */
export function withheldWords(
  standing: AgentStanding,
  assessment: ClaimAssessment,
  planId: string | null,
): Withheld | null {
  const censoring = assessment.censoring.agents.find((r) => r.agent_id === standing.agent_id);
  const coverage = assessment.coverage?.find((r) => r.agent_id === standing.agent_id);
  switch (standing.withheld) {
    case null:
      return null;
    case "validation":
      return {
        cause: "validation",
        reason: `the ledger does not validate against plan "${planId}" (${
          standing.blocking_codes.join(", ")
        })`,
        rule: "seed-003 validation",
      };
    case "nothing_scored":
      return {
        cause: "nothing_scored",
        reason: "nothing was scored",
        rule: "seeds 000 and 001: only scored rows count",
      };
    case "invalid": {
      const invalid = assessment.invalid.agents.find((r) => r.agent_id === standing.agent_id);
      return {
        cause: "invalid",
        reason:
          `${integer(invalid?.held)} of its ${plural(invalid?.attempts ?? 0, "attempt")} ${
            invalid?.held === 1 ? "is" : "are"
          } invalid (${percent(invalid?.held_rate)}: ${
            invalidReasonsText(invalid?.reasons ?? {}, { judgeFaults: false })
          }; above ${
            formatPercentExact(assessment.invalid.policy.labelled_max)
          }): an invalid attempt is left out of every score, so the score over the rest is no ` +
          "capability claim",
        rule: INVALID_RATE_RULE,
      };
    }
    case "flagged": {
      const flagged = assessment.flagged.agents.find((r) => r.agent_id === standing.agent_id);
      return {
        cause: "flagged",
        reason:
          `${integer(flagged?.flagged_resolved)} of its ${
            plural(flagged?.scored ?? 0, "scored row")
          } resolved with a hijack flag (${percent(flagged?.flagged_rate)}, above ${
            formatPercentExact(assessment.flagged.policy.labelled_max)
          }): the candidate changed what its test run trusts, so those rows are no ` +
          "capability claim",
        rule: FLAGGED_RULE,
      };
    }
    case "censoring":
      return {
        cause: "censoring",
        reason: `its censoring rate ${percent(censoring?.censoring_rate)} is above ${
          formatPercentExact(assessment.censoring.policy.labelled_max)
        }, so only budget adequacy may be stated`,
        rule: `seed-003 policy "budget_adequacy_only"`,
      };
    case "judge_faults": {
      const faults = assessment.judge_faults.find((r) => r.agent_id === standing.agent_id);
      return {
        cause: "judge_faults",
        reason: `${integer(faults?.judge_faults)} of its ${
          plural(faults?.judged ?? 0, "judged row")
        } ${faults?.judge_faults === 1 ? "is a judge fault" : "are judge faults"} (${
          percent(faults?.judge_fault_rate)
        }, above ${
          formatPercentExact(assessment.judge_fault_policy.labelled_max)
        }): a judge fault is left out of every score, so no capability claim is stated`,
        rule: JUDGE_FAULT_RULE,
      };
    }
    case "missing":
      return {
        cause: "missing",
        reason: `${integer(coverage?.missing)} of its ${
          integer(coverage?.planned)
        } planned tasks have no row (${percent(coverage?.missing_rate)}, above ${
          formatPercentExact(assessment.missing_policy.labelled_max)
        })`,
        rule: `missing tasks, seed-003 policy "budget_adequacy_only"`,
      };
  }
}

/**
 * One line per agent with rows verified in Harbor's shared mode or resolved
 * with a hijack flag (`flaggedSummary`): how many, and the claim the
 * flagged rate allows; empty when no agent has any.
 *
 * @param assessment the claim assessment
 * @returns the lines, each ending in a newline
 */
export function flaggedLines(assessment: ClaimAssessment): string {
  let text = "";
  for (const row of assessment.flagged.agents) {
    if (row.shared === 0 && row.flagged_resolved === 0) continue;
    text += `note: agent "${displayId(row.agent_id)}": ${integer(row.shared)} of ${
      plural(row.scored, "scored row")
    } verified in Harbor's shared mode (the tests ran in the candidate's own container); ${
      integer(row.flagged_resolved)
    } resolved with a hijack flag (${percent(row.flagged_rate)}): ${
      CLAIM_SHORT_WORDS[row.claim!]
    } at most (${FLAGGED_RULE})\n`;
  }
  return text;
}

/**
 * The denominator in one line: where the planned tasks come from and how
 * many, or that there is none (rates over the rows present, missing tasks
 * not counted).
 *
 * @param assessment the claim assessment
 * @param file the plan or task-list file, as given; null without one
 * @returns the line, ending in a newline
 */
export function denominatorLine(assessment: ClaimAssessment, file: string | null): string {
  const d = assessment.denominator;
  if (d === null) {
    return "denominator: the rows present (no --plan or --tasks): missing tasks are not " +
      `counted, and no ${SCORE_WORDS.planned} is given\n`;
  }
  const attempts = d.attempts_per_task === 1 ? "" : ` × ${d.attempts_per_task} attempts`;
  return `denominator: ${d.source} ${file ?? ""} (${plural(d.task_ids.length, "task")}${attempts}` +
    ` per agent); missing tasks count as not resolved in the ${SCORE_WORDS.planned} (a ` +
    `lower bound), held to: headline under ${
      formatPercentExact(assessment.missing_policy.headline_max)
    } missing, both scores labelled up to ${
      formatPercentExact(assessment.missing_policy.labelled_max)
    }\n`;
}

/**
 * One line per agent that lacks rows: how many planned tasks have none and
 * the first few of them; empty when every agent covers its tasks.
 *
 * @param assessment the claim assessment
 * @returns the lines, each ending in a newline
 */
export function missingLines(assessment: ClaimAssessment): string {
  let text = "";
  for (const row of assessment.coverage ?? []) {
    if (row.missing === 0 && row.unplanned_rows === 0) continue;
    const parts: string[] = [];
    if (row.missing > 0) {
      const more = row.missing > row.missing_tasks.length ? ", ..." : "";
      parts.push(
        `${integer(row.missing)} of ${integer(row.planned)} planned tasks missing (${
          quotedList(row.missing_tasks)
        }${more})`,
      );
    }
    if (row.unplanned_rows > 0) {
      parts.push(`${plural(row.unplanned_rows, "row")} for tasks outside the denominator`);
    }
    text += `note: agent "${displayId(row.agent_id)}": ${parts.join("; ")}\n`;
  }
  return text;
}

/**
 * One withheld-pair group in words: how many pairs, the cause, and each
 * agent of the group with its reason, e.g. `No ranking stated for 13 pairs
 * (missing tasks): "m03": 168 of its 730 planned tasks have no row (23.0%,
 * above 10%)`.
 *
 * @param group the group (`withheldPairGroups`)
 * @param assessment the assessment the standings come from
 * @param planId the plan's id; null without a plan
 * @returns the sentence, without a final period, and the rule
 */
export function withheldPairWords(
  group: WithheldPairGroup,
  assessment: ClaimAssessment,
  planId: string | null,
): { text: string; rule: string } {
  const standings = new Map(assessment.standings.map((s) => [s.agent_id, s]));
  const reasons = group.agents.map((agent) => {
    const words = withheldWords(standings.get(agent)!, assessment, planId)!;
    return { agent, words };
  });
  return {
    text: `No ranking stated for ${plural(group.pairs, "pair")} (${CAUSE_WORDS[group.cause]}): ${
      reasons.map(({ agent, words }) => `"${displayId(agent)}": ${words.reason}`).join("; ")
    }`,
    rule: reasons[0].words.rule,
  };
}

const CAUSE_WORDS: Record<WithheldCause, string> = {
  validation: "the ledger does not validate",
  nothing_scored: "nothing scored",
  invalid: "invalid attempts above the policy",
  flagged: "flagged resolutions above the policy",
  censoring: "censoring above the policy",
  judge_faults: "judge faults above the policy",
  missing: "missing tasks above the policy",
};

/**
 * `not recorded for "a"`: the sides of a comparison whose TPR or SPR was
 * not recorded (issue 11), the tie-break it names in
 * `tie_breaks_not_recorded`.
 *
 * @param c the comparison
 * @param field the figure
 * @returns the phrase, ids shown by `quotedList`
 */
export function notRecordedFor(c: Comparison, field: "tpr" | "spr"): string {
  return `not recorded for ${
    quotedList([c.a, c.b].filter((side) => side[field] === null).map((side) => side.agent_id))
  }`;
}
