/**
 * Each agent's judge-fault rate and the claim it allows (issue 21, "invalid
 * only when the harness failed"). A judge reply that is unusable after the
 * plan's attempts makes the row invalid `judge_fault` (seed 000 §06: never
 * a score of 0), and an invalid row is left out of every score; so an
 * answer that knocks the judge over would turn a failure into an attempt
 * that does not count. The rate of such rows is therefore held to the
 * thresholds seed 003 holds the censoring rate to, and a high one limits
 * what the agent's numbers may say: farming judge faults never pays.
 *
 * @module
 */
import { type CensoringClaim, censoringClaim } from "../censoring.ts";
import { isScored } from "../classify_episode.ts";
import type { CensoringPolicy, Episode } from "../schema/records.ts";

/** One agent's judge faults; plain JSON data, keys in this order. */
export interface AgentJudgeFaults {
  agent_id: string;
  /** Its rows with a judge record that are scored or invalid `judge_fault`: what a judge was to decide. */
  judged: number;
  /** Of those, the rows invalid as `judge_fault`. */
  judge_faults: number;
  /** judge_faults / judged; null when judged is 0. */
  judge_fault_rate: number | null;
  /** The claim the rate allows under the censoring thresholds; null when judged is 0. */
  claim: CensoringClaim | null;
  /** The agent's scored rows, every task (the denominator of its resolved rate). */
  scored: number;
  /** Of those, the resolved ones. */
  resolved: number;
  /**
   * resolved / (scored + judge_faults): the resolved rate with every judge
   * fault counted as a failure, a lower bound; null when both are 0.
   */
  resolved_rate_faults_as_failures: number | null;
}

/**
 * Each agent's judge-fault rate, the claim it allows, and its resolved rate
 * with the faults counted as failures, sorted by agent id (UTF-16 code
 * units); only agents with at least one judged row.
 *
 * Rule (issue 21, by analogy with seed 003's censoring policy, whose
 * thresholds it takes): the rate is the agent's `judge_fault` rows over
 * its rows that carry a judge record and are scored or `judge_fault` (rows
 * invalid for another reason, a harness failure, are in neither); its
 * claim is `censoringClaim(rate, policy)`:
 * - under `headline_max` (2%): `headline`, the judged tasks count as usual;
 * - `headline_max` to `labelled_max` (2% to 10%, both inclusive):
 *   `both_labelled`, the agent's resolved rate must be stated beside the
 *   lower bound that counts each judge fault as a failure,
 *   `resolved / (scored + judge_faults)`;
 * - above `labelled_max` (10%): `budget_adequacy_only`, no capability claim
 *   about the agent at all.
 * Pure; O(rows + agents log agents).
 *
 * @param rows the rows formal scores count (after errata, judged tasks of an uncalibrated judge left out)
 * @param policy the censoring thresholds in force (the plan's, else 2% and 10%)
 * @returns one entry per agent with judged rows
 * @example
 * ```ts
 * import { agentJudgeFaults } from "./judge_faults.ts";
 * if (agentJudgeFaults([], { headline_max: 0.02, labelled_max: 0.1 }).length !== 0) {
 *   throw new Error();
 * }
 * ```
 */
export function agentJudgeFaults(
  rows: Iterable<Episode>,
  policy: CensoringPolicy,
): AgentJudgeFaults[] {
  const byAgent = new Map<
    string,
    { judged: number; faults: number; scored: number; resolved: number }
  >();
  for (const row of rows) {
    let agent = byAgent.get(row.agent_id);
    if (agent === undefined) {
      byAgent.set(row.agent_id, agent = { judged: 0, faults: 0, scored: 0, resolved: 0 });
    }
    const scored = isScored(row);
    if (scored) {
      agent.scored++;
      if (row.resolved) agent.resolved++;
    }
    if (row.judge === undefined) continue;
    const fault = row.status === "invalid" && row.invalid_reason === "judge_fault";
    if (!scored && !fault) continue;
    agent.judged++;
    if (fault) agent.faults++;
  }
  return [...byAgent].filter(([, a]) => a.judged > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([agentId, a]) => {
      const rate = a.faults / a.judged;
      const denominator = a.scored + a.faults;
      return {
        agent_id: agentId,
        judged: a.judged,
        judge_faults: a.faults,
        judge_fault_rate: rate,
        claim: censoringClaim(rate, policy),
        scored: a.scored,
        resolved: a.resolved,
        resolved_rate_faults_as_failures: denominator === 0 ? null : a.resolved / denominator,
      };
    });
}
