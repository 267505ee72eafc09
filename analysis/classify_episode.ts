/**
 * Classification rules for one ledger row, written as plain functions of the
 * row (and of the plan's caps) so that a reviewer holding only the ledger and
 * the plan can re-run them.
 *
 * Every row falls in exactly one of three classes:
 *
 * | class | rule | counted in |
 * |---|---|---|
 * | invalid | `status === "invalid"` | nothing but the invalid rate (seed 000: "这一次没有分数"; seed 002: neither pass nor fail) |
 * | completed | `status === "scored"` and `stop_reason === "completed"` | every score |
 * | censored | `status === "scored"` and `stop_reason !== "completed"` | resolved rate over scored episodes, censoring rate (seed 003) |
 *
 * An invalid row is neither completed nor censored, whatever its
 * `stop_reason`: a provider outage recorded as `rate_limited` on an invalid
 * attempt says nothing about the agent's budget.
 *
 * @module
 */
import type { Caps, Episode } from "./schema/records.ts";

/** The fields the classification rules read. */
export type ClassifiedRow = Pick<Episode, "status" | "stop_reason">;

/**
 * Whether a row is scored: its verdict (`resolved` true or false) counts.
 *
 * Rule: `row.status === "scored"` (seed 000: a valid failure is a score, an
 * invalid evaluation is not). O(1).
 *
 * @param row a ledger row
 * @returns true for scored rows, false for invalid ones
 * @example
 * ```ts
 * import { isScored } from "./classify_episode.ts";
 * if (!isScored({ status: "scored", stop_reason: "token_cap" })) throw new Error("scored");
 * ```
 */
export function isScored(row: ClassifiedRow): boolean {
  return row.status === "scored";
}

/**
 * Whether a row is invalid: a failure of the harness or of the measurement,
 * counted neither as pass nor as fail.
 *
 * Rule: `row.status === "invalid"` (seed 000, seed 002). O(1).
 *
 * @param row a ledger row
 * @returns true exactly when {@link isScored} is false
 */
export function isInvalid(row: ClassifiedRow): boolean {
  return row.status === "invalid";
}

/**
 * Whether a scored row ran to its own conclusion.
 *
 * Rule: `status === "scored" && stop_reason === "completed"` (seed 003,
 * `graded = [r for r in records if r["stop_reason"] == "completed"]`). O(1).
 *
 * @param row a ledger row
 * @returns true for completed scored rows; false for censored and invalid rows
 */
export function isCompleted(row: ClassifiedRow): boolean {
  return row.status === "scored" && row.stop_reason === "completed";
}

/**
 * Whether a row is censored: scored, but stopped by a budget or an outage
 * before the agent finished.
 *
 * Rule: `status === "scored" && stop_reason !== "completed"`, i.e. any of
 * `step_cap`, `token_cap`, `wall_cap`, `rate_limited`, `error` (seed 003:
 * `censoring_rate = 1 - len(graded) / len(records)`). Invalid rows are never
 * censored: they are outside every denominator. O(1).
 *
 * @param row a ledger row
 * @returns true for censored scored rows
 * @example
 * ```ts
 * import { isCensored } from "./classify_episode.ts";
 * if (!isCensored({ status: "scored", stop_reason: "rate_limited" })) throw new Error("censored");
 * if (isCensored({ status: "invalid", stop_reason: "rate_limited" })) throw new Error("invalid");
 * ```
 */
export function isCensored(row: ClassifiedRow): boolean {
  return row.status === "scored" && row.stop_reason !== "completed";
}

/**
 * Tokens spent by one episode: `prompt_tokens + completion_tokens` (seed 003,
 * `tokens_in + tokens_out`; seed 001, TPR counts both), or null when either
 * count was not recorded (issue 11: an imported result without token
 * counts; never read as zero). O(1).
 *
 * @param row a ledger row
 * @returns the episode's total tokens, or null when not recorded
 */
export function episodeTokens(
  row: Pick<Episode, "prompt_tokens" | "completion_tokens">,
): number | null {
  return row.prompt_tokens === null || row.completion_tokens === null
    ? null
    : row.prompt_tokens + row.completion_tokens;
}

/**
 * Steps taken by one episode, as the step cap counts them.
 *
 * Rule: one step is one model call (one agent turn), so steps =
 * `model_calls`; rows that did not record `model_calls` (seed-001 minimal
 * rows) fall back to `tool_calls`; null when neither was recorded. O(1).
 *
 * @param row a ledger row
 * @returns the number of steps the step cap is compared with, or null
 */
export function episodeSteps(row: Pick<Episode, "model_calls" | "tool_calls">): number | null {
  return row.model_calls ?? row.tool_calls;
}

/**
 * How far past its wall cap the `wall_ms` of an episode killed at the cap
 * (`stop_reason` `wall_cap`) may be, in ms: the kill is sent at the cap and
 * the engine is given this long to report the container's exit (issue 9;
 * the runner's `ENGINE_DEADLINE_MS`, `runner/docker/engine_call.ts`, is this
 * value), so the measured time includes the kill's own latency.
 */
export const WALL_CAP_KILL_MS = 30_000;

/** One cap a row's spend went over. */
export interface CapExcess {
  /** Which cap. */
  cap: keyof Caps;
  /** The cap's value. */
  limit: number;
  /** The spend compared with it ({@link episodeTokens}, {@link episodeSteps} or `wall_ms`). */
  actual: number;
}

/**
 * The caps a row's spend exceeds.
 *
 * Rule (seed 003, `assert tokens_in + tokens_out <= token_cap`): a row is over
 * a cap when its spend is strictly greater than the cap; spend equal to the
 * cap is within it, a null cap is never exceeded, and spend that was not
 * recorded (null) is never over a cap (it is "not recorded", issue 11):
 *
 * - `token_cap`: {@link episodeTokens} `> token_cap + evidence.prompt_bound_excess`
 *   (the excess absent: 0). The relay reserves a documented bound of each
 *   prompt before forwarding (`runner/relay/prompt_token_bound.ts`) and
 *   lowers output caps to what is left, so a runner-written row passes its
 *   cap only by the prompt tokens the server reported beyond those bounds,
 *   which the row records (issue 21); any other excess is over the cap.
 * - `step_cap`: {@link episodeSteps} (`model_calls`, else `tool_calls`) `> step_cap`
 * - `wall_ms_cap`: `wall_ms > wall_ms_cap`, or for a row killed at the cap
 *   (`stop_reason` `wall_cap`) `wall_ms > wall_ms_cap + WALL_CAP_KILL_MS`
 *
 * The rule applies to every row, invalid ones included: spend is spend.
 * O(1).
 *
 * @param row a ledger row
 * @param caps the caps to check against (the plan's, or `row.caps`)
 * @returns the exceeded caps in the order token, step, wall; empty when within every cap
 * @example
 * ```ts
 * import { overCap } from "./classify_episode.ts";
 * const row = { prompt_tokens: 900, completion_tokens: 200, tool_calls: 3, model_calls: 5, wall_ms: 10 };
 * const excess = overCap(row, { token_cap: 1000, step_cap: 5, wall_ms_cap: null });
 * if (excess.length !== 1 || excess[0].actual !== 1100) throw new Error("token cap only");
 * ```
 */
export function overCap(
  row:
    & Pick<
      Episode,
      "prompt_tokens" | "completion_tokens" | "model_calls" | "tool_calls" | "wall_ms"
    >
    & { evidence?: Episode["evidence"]; stop_reason?: Episode["stop_reason"] },
  caps: Caps,
): CapExcess[] {
  const excess: CapExcess[] = [];
  const tokens = episodeTokens(row);
  const boundError = row.evidence?.prompt_bound_excess ?? 0;
  if (caps.token_cap !== null && tokens !== null && tokens > caps.token_cap + boundError) {
    excess.push({ cap: "token_cap", limit: caps.token_cap, actual: tokens });
  }
  const steps = episodeSteps(row);
  if (caps.step_cap !== null && steps !== null && steps > caps.step_cap) {
    excess.push({ cap: "step_cap", limit: caps.step_cap, actual: steps });
  }
  const killLatency = row.stop_reason === "wall_cap" ? WALL_CAP_KILL_MS : 0;
  if (
    caps.wall_ms_cap !== null && row.wall_ms !== null &&
    row.wall_ms > caps.wall_ms_cap + killLatency
  ) {
    excess.push({ cap: "wall_ms_cap", limit: caps.wall_ms_cap, actual: row.wall_ms });
  }
  return excess;
}
