/**
 * Seed 003's honest summary of a capped run: two scores and one rate per
 * agent, and the claim a pre-registered censoring policy allows.
 *
 * @module
 */
import { episodeTokens, isCensored, isCompleted, isScored } from "./classify_episode.ts";
import { CensoringPolicy, type Episode, StopReason } from "./schema/records.ts";

/** What a run may claim (seed 003, "A policy for deciding when a number may ship"). */
export type CensoringClaim = "headline" | "both_labelled" | "budget_adequacy_only";

/** One agent's (or the whole run's) censoring summary. */
export interface CensoringRow {
  /** The agent, or `"*"` for the whole run. */
  agent_id: string;
  /** Scored rows: the denominator of both scores (seed 003's `records`). */
  scored: number;
  /** Invalid rows, left out of every other figure. */
  invalid: number;
  /** Scored rows with stop reason `completed`. */
  completed: number;
  /** Scored rows with any other stop reason. */
  censored: number;
  /** Scored rows with `resolved` true. */
  passed: number;
  /** Completed rows with `resolved` true. */
  passed_completed: number;
  /** `passed / scored`; a lower bound on the unbudgeted score; null when nothing is scored. */
  score_all_tasks: number | null;
  /** `passed_completed / completed`; null when nothing completed. */
  score_completed_only: number | null;
  /** `censored / scored` (= `1 - completed / scored`); null when nothing is scored. */
  censoring_rate: number | null;
  /** Tokens of the scored rows (prompt + completion); null when one of them did not record them, or none was scored. */
  tokens: number | null;
  /** `tokens / passed`; null when nothing passed or the tokens were not recorded. */
  tokens_per_success: number | null;
  /** Scored rows per stop reason, every reason present (zero included), in enum order. */
  stop_reasons: Record<StopReason, number>;
  /** The claim the policy allows for this censoring rate; null when nothing is scored. */
  claim: CensoringClaim | null;
}

/** The censoring report: the policy used, one row per agent, and the whole run. */
export interface CensoringSummary {
  policy: CensoringPolicy;
  /** One row per agent, sorted by `agent_id`. */
  agents: CensoringRow[];
  /** All agents pooled (`agent_id` is `"*"`). */
  overall: CensoringRow;
}

/** Options for {@link censoringSummary}. */
export interface CensoringOptions {
  /** Thresholds fixed before the run (a plan's `censoring`); default 2% and 10%. */
  policy?: CensoringPolicy;
}

/**
 * The claim a censoring rate allows under a policy.
 *
 * Rule (seed 003's table: "under 2%" headline, "2% to 10%" both scores
 * labelled, "above 10%" budget adequacy only), with both bounds of the middle
 * band inclusive:
 *
 * - `rate < headline_max` → `"headline"`
 * - `headline_max ≤ rate ≤ labelled_max` → `"both_labelled"`
 * - `rate > labelled_max` → `"budget_adequacy_only"`
 *
 * So exactly 2% must state both scores, and exactly 10% still may. O(1).
 *
 * @param rate a censoring rate in [0, 1]
 * @param policy the thresholds (default 0.02 and 0.10)
 * @returns the allowed claim
 * @throws {RangeError} when `rate` is not a number in [0, 1]
 * @example
 * ```ts
 * import { censoringClaim } from "./censoring.ts";
 * if (censoringClaim(1 / 50) !== "both_labelled") throw new Error("2% is not under 2%");
 * if (censoringClaim(5 / 50) !== "both_labelled") throw new Error("10% is not above 10%");
 * ```
 */
export function censoringClaim(
  rate: number,
  policy: CensoringPolicy = CensoringPolicy.parse({}),
): CensoringClaim {
  if (!(rate >= 0 && rate <= 1)) {
    throw new RangeError(
      `Cannot classify censoring rate: expected a number in [0, 1], found ${rate}`,
    );
  }
  if (rate < policy.headline_max) return "headline";
  if (rate <= policy.labelled_max) return "both_labelled";
  return "budget_adequacy_only";
}

const STRICTNESS: Record<CensoringClaim, number> = {
  headline: 0,
  both_labelled: 1,
  budget_adequacy_only: 2,
};

/**
 * The stricter of two claims (a headline is the least strict, budget
 * adequacy only the most); `b` null leaves `a`.
 *
 * @param a a claim
 * @param b another claim, or null
 * @returns the stricter
 * @example
 * ```ts
 * import { stricterClaim } from "./censoring.ts";
 * if (stricterClaim("headline", "both_labelled") !== "both_labelled") throw new Error();
 * ```
 */
export function stricterClaim(a: CensoringClaim, b: CensoringClaim | null): CensoringClaim {
  return b !== null && STRICTNESS[b] > STRICTNESS[a] ? b : a;
}

interface Tally {
  scored: number;
  invalid: number;
  completed: number;
  censored: number;
  passed: number;
  passed_completed: number;
  tokens: number | null;
  stop_reasons: Record<StopReason, number>;
}

function emptyTally(): Tally {
  const stop_reasons = {} as Record<StopReason, number>;
  for (const reason of StopReason.options) stop_reasons[reason] = 0;
  return {
    scored: 0,
    invalid: 0,
    completed: 0,
    censored: 0,
    passed: 0,
    passed_completed: 0,
    tokens: 0,
    stop_reasons,
  };
}

function add(tally: Tally, row: Episode): void {
  if (!isScored(row)) {
    tally.invalid++;
    return;
  }
  tally.scored++;
  tally.stop_reasons[row.stop_reason]++;
  const tokens = episodeTokens(row);
  tally.tokens = tally.tokens === null || tokens === null ? null : tally.tokens + tokens;
  if (row.resolved === true) tally.passed++;
  if (isCompleted(row)) {
    tally.completed++;
    if (row.resolved === true) tally.passed_completed++;
  } else if (isCensored(row)) {
    tally.censored++;
  }
}

function finish(agent_id: string, tally: Tally, policy: CensoringPolicy): CensoringRow {
  const censoring_rate = tally.scored > 0 ? tally.censored / tally.scored : null;
  return {
    agent_id,
    scored: tally.scored,
    invalid: tally.invalid,
    completed: tally.completed,
    censored: tally.censored,
    passed: tally.passed,
    passed_completed: tally.passed_completed,
    score_all_tasks: tally.scored > 0 ? tally.passed / tally.scored : null,
    score_completed_only: tally.completed > 0 ? tally.passed_completed / tally.completed : null,
    censoring_rate,
    tokens: tally.scored === 0 ? null : tally.tokens,
    tokens_per_success: tally.passed > 0 && tally.tokens !== null
      ? tally.tokens / tally.passed
      : null,
    stop_reasons: tally.stop_reasons,
    claim: censoring_rate === null ? null : censoringClaim(censoring_rate, policy),
  };
}

/**
 * Seed 003's `summarize`, per agent and for the whole run, in one pass.
 *
 * Over the scored rows of an agent (invalid rows are counted, then left out,
 * as seed 000 and seed 002 require):
 *
 * - resolved rate over scored episodes = passed / scored (the field `score_all_tasks`)
 * - score over completed only = passed among completed / completed
 * - censoring rate = censored / scored = 1 − completed / scored
 * - tokens per success = Σ (prompt + completion tokens) / passed; null
 *   ("not recorded") when a scored row did not record its tokens (issue 11)
 * - claim = {@link censoringClaim}(censoring rate, policy); the pooled
 *   row's claim is the strictest of its own and every agent's (issue 23: a
 *   pooled figure may say no more than its weakest agent)
 *
 * Cost: O(rows) time, O(agents) memory; `rows` may be any iterable, so a
 * generator over a streamed ledger works.
 *
 * @param rows ledger rows (errata already applied, if any)
 * @param options the censoring policy (default 2% / 10%)
 * @returns the policy, one row per agent sorted by id, and the pooled run
 * @example
 * ```ts
 * import { censoringSummary } from "./censoring.ts";
 * import { Episode } from "./schema/records.ts";
 * const base = { run_id: "r", seed: 1, prompt_tokens: 100, completion_tokens: 50, tool_calls: 1, wall_ms: 1, price_table_id: "p" };
 * const rows = [
 *   Episode.parse({ ...base, agent_id: "a", task_id: "t1", resolved: true }),
 *   Episode.parse({ ...base, agent_id: "a", task_id: "t2", resolved: false, stop_reason: "token_cap" }),
 * ];
 * const { agents } = censoringSummary(rows);
 * if (agents[0].censoring_rate !== 0.5 || agents[0].claim !== "budget_adequacy_only") throw new Error();
 * ```
 */
export function censoringSummary(
  rows: Iterable<Episode>,
  options: CensoringOptions = {},
): CensoringSummary {
  const policy = options.policy ?? CensoringPolicy.parse({});
  const byAgent = new Map<string, Tally>();
  const overall = emptyTally();
  for (const row of rows) {
    let tally = byAgent.get(row.agent_id);
    if (tally === undefined) {
      tally = emptyTally();
      byAgent.set(row.agent_id, tally);
    }
    add(tally, row);
    add(overall, row);
  }
  const agents = [...byAgent.keys()].sort().map((id) => finish(id, byAgent.get(id)!, policy));
  const pooled = finish("*", overall, policy);
  // A pooled claim never exceeds its weakest agent's (issue 23).
  const claim = pooled.claim === null
    ? null
    : agents.reduce<CensoringClaim>((a, row) => stricterClaim(a, row.claim), pooled.claim);
  return { policy, agents, overall: { ...pooled, claim } };
}
