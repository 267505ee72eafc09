/**
 * Money from tokens, only through a frozen price table (seed 001: "把货币成本
 * 作为派生列保存。把 token 乘以冻结的费率表").
 *
 * @module
 */
import type { Episode, PriceTable } from "./schema.ts";

/** The fields of an episode (or of a sum of episodes of one agent) that set its cost. */
export type Priced = Pick<
  Episode,
  "agent_id" | "price_table_id" | "prompt_tokens" | "completion_tokens"
>;

/**
 * Money cost of one episode, or of a token total of one agent, under a frozen
 * price table.
 *
 * Formula: cost = prompt_tokens × prompt_per_million / 1e6
 * + completion_tokens × completion_per_million / 1e6, in `table.currency`,
 * where the rate is `table.agent_rates[agent_id]` if present, else
 * `table.default_rate`. Source: seed 001 (cost only through a frozen table
 * named by `price_table_id`; never mix tables). Cost: O(1).
 *
 * @param row an episode, or `{agent_id, price_table_id, prompt_tokens,
 *   completion_tokens}` holding one agent's token totals
 * @param table the frozen price table
 * @returns the cost in `table.currency`
 * @throws {Error} when the row's `price_table_id` is not the table's, or the
 *   table has neither a rate for the agent nor a default rate
 * @example
 * ```ts
 * import { episodeCost } from "./episode_cost.ts";
 * const table = {
 *   schema_version: 1 as const, price_table_id: "p1", currency: "USD",
 *   default_rate: { prompt_per_million: 3, completion_per_million: 15 }, agent_rates: {},
 * };
 * const row = { agent_id: "a", price_table_id: "p1", prompt_tokens: 1800, completion_tokens: 900 };
 * // 1800 × 3 / 1e6 + 900 × 15 / 1e6 = 0.0054 + 0.0135 = 0.0189
 * if (Math.abs(episodeCost(row, table) - 0.0189) > 1e-15) throw new Error("cost");
 * ```
 */
export function episodeCost(row: Priced, table: PriceTable): number {
  if (row.price_table_id !== table.price_table_id) {
    const which = "episode_id" in row ? ` episode "${(row as Episode).episode_id}"` : "";
    throw new Error(
      `Cannot price${which} for agent "${row.agent_id}": its price table "${row.price_table_id}" ` +
        `is not the frozen table "${table.price_table_id}"`,
    );
  }
  const rate = Object.hasOwn(table.agent_rates, row.agent_id)
    ? table.agent_rates[row.agent_id]
    : table.default_rate;
  if (rate === null) {
    throw new Error(
      `Cannot price agent "${row.agent_id}": price table "${table.price_table_id}" ` +
        `has no rate for it and no default rate`,
    );
  }
  return (row.prompt_tokens * rate.prompt_per_million) / 1e6 +
    (row.completion_tokens * rate.completion_per_million) / 1e6;
}
