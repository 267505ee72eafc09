/**
 * Each agent's invalid attempts by reason, its invalid rate and the claim
 * that rate allows (issue 23: a SWE-bench Lite report with 234 of 300
 * instances as harness errors gave "resolved rate 100.0% (66 of 66) … so
 * this is a headline"). An invalid attempt is neither a pass nor a failure
 * and is left out of every score (seeds 000 and 002), so a score over the
 * scored rows rests on the attempts that did not fail to count: the more of
 * them are invalid, the less the score says. Seed 002 reports the invalid
 * rate apart and calls 30% hard to accept however good the pass rate; the
 * rate is therefore held to seed 003's bands, as censoring is.
 *
 * @module
 */
import { type CensoringClaim, censoringClaim } from "./censoring.ts";
import { type CensoringPolicy, type Episode, InvalidReason } from "./schema/records.ts";

/** Invalid attempts of one agent (or `"*"`: the whole run), by reason; plain JSON data. */
export interface InvalidRow {
  agent_id: string;
  /** Every attempt, scored or invalid. */
  attempts: number;
  /** Invalid attempts, every reason. */
  invalid: number;
  /** invalid / attempts; null without attempts. */
  invalid_rate: number | null;
  /** The invalid attempts the claim holds: every reason but `judge_fault` (the judge-fault rate holds those). */
  held: number;
  /** held / attempts: the rate the claim holds; null without attempts. */
  held_rate: number | null;
  /** Invalid attempts per reason, every reason present (zero included), in schema order. */
  reasons: Record<InvalidReason, number>;
  /** Scored attempts that resolved. */
  resolved: number;
  /**
   * resolved / attempts: the resolved rate with every invalid attempt
   * counted as a failure, the lower bound a labelled claim states; null
   * without attempts.
   */
  resolved_rate_invalid_as_failures: number | null;
  /** The claim `held_rate` allows under the policy; null without attempts. */
  claim: CensoringClaim | null;
}

/** The invalid rows of every agent, sorted by id, and of the whole run. */
export interface InvalidSummary {
  /** The thresholds the rates were held to. */
  policy: CensoringPolicy;
  agents: InvalidRow[];
  overall: InvalidRow;
}

interface Tally {
  attempts: number;
  invalid: number;
  resolved: number;
  reasons: Record<InvalidReason, number>;
}

function emptyTally(): Tally {
  const reasons = {} as Record<InvalidReason, number>;
  for (const reason of InvalidReason.options) reasons[reason] = 0;
  return { attempts: 0, invalid: 0, resolved: 0, reasons };
}

function add(tally: Tally, row: Episode): void {
  tally.attempts++;
  if (row.status === "invalid" && row.invalid_reason !== null) {
    tally.invalid++;
    tally.reasons[row.invalid_reason]++;
  } else if (row.resolved === true) {
    tally.resolved++;
  }
}

function finish(agentId: string, tally: Tally, policy: CensoringPolicy): InvalidRow {
  const none = tally.attempts === 0;
  const held = tally.invalid - tally.reasons.judge_fault;
  const heldRate = none ? null : held / tally.attempts;
  return {
    agent_id: agentId,
    attempts: tally.attempts,
    invalid: tally.invalid,
    invalid_rate: none ? null : tally.invalid / tally.attempts,
    held,
    held_rate: heldRate,
    reasons: tally.reasons,
    resolved: tally.resolved,
    resolved_rate_invalid_as_failures: tally.attempts === 0
      ? null
      : tally.resolved / tally.attempts,
    claim: heldRate === null ? null : censoringClaim(heldRate, policy),
  };
}

/**
 * Per agent and for the whole run: attempts, invalid attempts by reason, the
 * invalid rate and the claim it allows, in one pass.
 *
 * Rule (issue 23, by seed 002's "单独报告无效率" and seed 003's bands):
 * - invalid rate = invalid attempts (verifier fault, missing evidence,
 *   harness or provider fault, ...) / attempts; every attempt counts, a
 *   rerun of an invalid attempt included (no silent retries: a rerun never
 *   erases the attempt it replaces);
 * - the rate the claim holds (`held_rate`) leaves `judge_fault` attempts
 *   out of the numerator: the judge-fault rate over the judged rows holds
 *   them (`agentJudgeFaults`, issue 21), so each way a row fails to count
 *   is held by one policy;
 * - claim = `censoringClaim(held_rate, policy)`: under `headline_max` a headline,
 *   up to `labelled_max` (inclusive) both the score over scored attempts and
 *   the lower bound `resolved / attempts` (each invalid attempt a failure)
 *   labelled, above it no capability number;
 * - the policy is the plan's `invalid_rate_policy`, else its censoring
 *   thresholds (2% and 10% by default).
 * Pure; O(rows + agents log agents).
 *
 * @param rows the rows formal scores count (errata applied, judged tasks of an uncalibrated judge left out)
 * @param policy the thresholds
 * @returns the policy, one row per agent sorted by id (UTF-16 code units), and the whole run
 * @example
 * ```ts
 * import { invalidSummary } from "./invalid_attempts.ts";
 * import { Episode } from "./schema/records.ts";
 * const row = (task_id: string, invalid: boolean) => Episode.parse({
 *   run_id: "r", agent_id: "a", task_id, seed: null, prompt_tokens: null,
 *   completion_tokens: null, tool_calls: null, wall_ms: null, price_table_id: "none",
 *   ...(invalid
 *     ? { status: "invalid", invalid_reason: "harness_error", resolved: null }
 *     : { resolved: true }),
 * });
 * // 3 of 4 attempts invalid: 75%, above 10%, so no capability claim
 * const rows = [row("t1", false), row("t2", true), row("t3", true), row("t4", true)];
 * const [a] = invalidSummary(rows, { headline_max: 0.02, labelled_max: 0.1 }).agents;
 * if (a.invalid_rate !== 0.75 || a.claim !== "budget_adequacy_only") throw new Error();
 * if (a.resolved_rate_invalid_as_failures !== 0.25) throw new Error();
 * ```
 */
export function invalidSummary(rows: Iterable<Episode>, policy: CensoringPolicy): InvalidSummary {
  const byAgent = new Map<string, Tally>();
  const overall = emptyTally();
  for (const row of rows) {
    let tally = byAgent.get(row.agent_id);
    if (tally === undefined) byAgent.set(row.agent_id, tally = emptyTally());
    add(tally, row);
    add(overall, row);
  }
  const agents = [...byAgent.keys()].sort().map((id) => finish(id, byAgent.get(id)!, policy));
  return { policy, agents, overall: finish("*", overall, policy) };
}
