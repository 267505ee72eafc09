/**
 * What an agent has left of its budget, told to the agent (seed 003: the
 * caps are part of the frozen plan; a cap the agent cannot see is spend it
 * cannot plan). Every model call's response carries it in headers, and
 * `GET /relay/budget` answers it, so an agent can stop before a cap instead
 * of being cut off by it. For agent authors, the contract:
 *
 * | header | value |
 * |---|---|
 * | `ledgerbench-tokens-left` | tokens (prompt + completion) the episode may still spend: the token cap less the usage of finished calls and the reservations of calls in flight; absent without a token cap. A whole answer is sent once its call's usage is counted, so it tells what is left after it; a stream's headers go before its end, with its call's reservation still held (less than will be left) |
 * | `ledgerbench-steps-left` | model calls that may still be forwarded (the step cap less those forwarded, this one included); absent without a step cap |
 * | `ledgerbench-prompt-bound` | the tokens the relay reserved for this call's prompt before forwarding it (`prompt_token_bound.ts`: the provider's count, the model's tokenizer, or a token a byte); a call is forwarded only while `tokens-left` is at least its prompt's bound plus one, so an agent can tell how the relay counts its prompts; absent without a token cap |
 * | `ledgerbench-seconds-left` | whole seconds of wall clock left, counted from when the relay started (just before the agent), so never more than the agent really has; absent without a wall cap |
 *
 * `GET /relay/budget` answers `{"tokens_left", "steps_left", "seconds_left",
 * "token_cap", "step_cap", "wall_cap_s"}`, null for a cap the plan does not
 * set. It is answered by the relay itself, never forwarded, and counted
 * (`budget_requests`), so the analysis can tell the agents that asked.
 *
 * @module
 */
import type { TokenBudget } from "./token_budget.ts";

/** The caps and the counters the budget is read from. */
export interface BudgetSource {
  /** The token cap's ledger; null without a cap. */
  budget: TokenBudget | null;
  /** The token cap; null without one. */
  tokenCap: number | null;
  /** The step cap; null without one. */
  stepCap: number | null;
  /** Forwarded calls so far. */
  admitted(): number;
  /** The wall cap in ms; null without one. */
  wallCapMs: number | null;
  /** `performance.now()` when the relay started. */
  startedAt: number;
}

/** What is left, as `GET /relay/budget` answers it. */
export interface BudgetLeft {
  tokens_left: number | null;
  steps_left: number | null;
  seconds_left: number | null;
  token_cap: number | null;
  step_cap: number | null;
  wall_cap_s: number | null;
}

/**
 * What is left of each cap now (rules in the module doc).
 *
 * @param source the caps and counters
 * @param now `performance.now()`
 * @returns the budget left, null for each cap not set
 * @example
 * ```ts
 * import { budgetLeft } from "./budget_left.ts";
 * const left = budgetLeft({
 *   budget: null, tokenCap: null, stepCap: 10, admitted: () => 3, wallCapMs: 60_000, startedAt: 0,
 * }, 12_500);
 * if (left.steps_left !== 7 || left.seconds_left !== 47 || left.tokens_left !== null) throw new Error();
 * ```
 */
export function budgetLeft(source: BudgetSource, now: number): BudgetLeft {
  const { budget, tokenCap, stepCap, wallCapMs } = source;
  return {
    tokens_left: budget === null || tokenCap === null
      ? null
      : Math.max(0, tokenCap - budget.used - budget.reserved),
    steps_left: stepCap === null ? null : Math.max(0, stepCap - source.admitted()),
    seconds_left: wallCapMs === null
      ? null
      : Math.max(0, Math.floor((wallCapMs - (now - source.startedAt)) / 1000)),
    token_cap: tokenCap,
    step_cap: stepCap,
    wall_cap_s: wallCapMs === null ? null : Math.floor(wallCapMs / 1000),
  };
}

/**
 * Sets the budget headers (module doc) on a response's headers, each only
 * for a cap that is set.
 *
 * @param headers the response's headers, changed in place
 * @param left what is left
 * @param promptBound the tokens the call's prompt reserved; null when none was (no token cap,
 *   or a call refused before)
 */
export function setBudgetHeaders(
  headers: Headers,
  left: BudgetLeft,
  promptBound: number | null,
): void {
  const set = (name: string, value: number | null) => {
    if (value !== null) headers.set(name, String(value));
  };
  set("ledgerbench-tokens-left", left.tokens_left);
  set("ledgerbench-prompt-bound", promptBound);
  set("ledgerbench-steps-left", left.steps_left);
  set("ledgerbench-seconds-left", left.seconds_left);
}
