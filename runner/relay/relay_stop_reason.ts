/**
 * The relay's share of an episode's stop reason (seed 003: `completed`,
 * `step_cap`, `token_cap`, `rate_limited`, `error`).
 *
 * @module
 */
import type { StopReason } from "../../analysis/schema/records.ts";
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";

/**
 * The stop reason the relay's call log implies: the first budget event, in
 * record order (the order calls finished), else `completed`.
 *
 * Events: a call refused for `step_cap` or `token_cap` gives that reason; an
 * upstream 429 (`fault` `rate_limited`) gives `rate_limited` even if a later
 * retry succeeded (a quota error must never look like an ordinary outcome,
 * seed 003); a call the token cap shortened gives `token_cap`: its output
 * cap was lowered to what was left of the cap (`cap_lowered`) and it used
 * all of it (`completion_tokens >= output_cap`), so the cap, not the agent,
 * ended its answer (issue 21: `token_cap` only when the cap refused or
 * shortened a call). A call whose lowered cap it did not reach, or a spend
 * that merely ends near the cap, is `completed`. Faults and refusals for
 * other reasons (`provider_fault`, `aborted`, `bad_request`) are not stop
 * reasons here: the evidence gate handles provider faults.
 *
 * The runner overrides the result with `wall_cap` or `error` when the
 * container was killed or crashed. O(number of records).
 *
 * @param records The relay's call records, in the order they finished.
 * @returns `completed`, `step_cap`, `token_cap` or `rate_limited`.
 * @example
 * ```ts
 * import { relayStopReason } from "./relay_stop_reason.ts";
 * if (relayStopReason([]) !== "completed") throw new Error("an empty log is completed");
 * ```
 */
export function relayStopReason(records: readonly RelayCallRecord[]): StopReason {
  for (const record of records) {
    if (record.refusal === "step_cap" || record.refusal === "token_cap") return record.refusal;
    if (record.fault === "rate_limited") return "rate_limited";
    if (shortenedByTokenCap(record)) return "token_cap";
  }
  return "completed";
}

/**
 * True for a call the token cap shortened: forwarded with an output cap the
 * cap lowered (`cap_lowered`), and its reported completion used all of it.
 *
 * @param record one call record
 * @returns whether the token cap ended the call's answer
 */
export function shortenedByTokenCap(record: RelayCallRecord): boolean {
  return record.cap_lowered === true && record.usage !== null &&
    typeof record.output_cap === "number" && record.usage.completion_tokens >= record.output_cap;
}
