/**
 * The relay's share of an episode's stop reason (seed 003: `completed`,
 * `step_cap`, `token_cap`, `rate_limited`, `error`).
 *
 * @module
 */
import type { StopReason } from "../../analysis/schema.ts";
import type { RelayCallRecord } from "./relay_call_record.ts";

/** Options of {@linkcode relayStopReason}. */
export interface RelayStopReasonOptions {
  /** The episode's token cap (prompt + completion); null or absent: no cap. */
  tokenCap?: number | null;
}

/**
 * The stop reason the relay's call log implies: the first budget event, in
 * record order (the order calls finished), else `completed`.
 *
 * Events: a call refused for `step_cap` or `token_cap` gives that reason; an
 * upstream 429 (`fault` `rate_limited`) gives `rate_limited` even if a later
 * retry succeeded (a quota error must never look like an ordinary outcome,
 * seed 003); cumulative prompt + completion tokens going above `tokenCap`
 * gives `token_cap` even when the agent then stopped on its own, because the
 * spend is real (the relay reserves each call's output cap, but a prompt's
 * size is known only once the server reports it). Spending
 * exactly the cap and stopping is `completed`. Faults and refusals for other
 * reasons (`provider_fault`, `aborted`, `bad_request`) are not stop reasons
 * here: the evidence gate handles provider faults.
 *
 * The runner overrides the result with `wall_cap` or `error` when the
 * container was killed or crashed. O(number of records).
 *
 * @param records The relay's call records, in the order they finished.
 * @param options The token cap.
 * @returns `completed`, `step_cap`, `token_cap` or `rate_limited`.
 * @example
 * ```ts
 * import { relayStopReason } from "./relay_stop_reason.ts";
 * if (relayStopReason([]) !== "completed") throw new Error("an empty log is completed");
 * ```
 */
export function relayStopReason(
  records: readonly RelayCallRecord[],
  options: RelayStopReasonOptions = {},
): StopReason {
  const cap = options.tokenCap ?? null;
  let used = 0;
  for (const record of records) {
    if (record.refusal === "step_cap" || record.refusal === "token_cap") return record.refusal;
    if (record.fault === "rate_limited") return "rate_limited";
    if (record.usage !== null) {
      used += record.usage.prompt_tokens + record.usage.completion_tokens;
      if (cap !== null && used > cap) return "token_cap";
    }
  }
  return "completed";
}
