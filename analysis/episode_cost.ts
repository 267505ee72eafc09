/**
 * Money from tokens, only through a frozen price table (seed 001: "把货币成本
 * 作为派生列保存。把 token 乘以冻结的费率表").
 *
 * @module
 */
import type { Episode, PriceTable, Rate } from "./schema/records.ts";

/** The fields of an episode (or of a sum of episodes of one agent) that set its cost. */
export type Priced = Pick<
  Episode,
  "agent_id" | "price_table_id" | "prompt_tokens" | "completion_tokens"
>;

/** A priced row that names its episode, as {@link totalCost} needs to word an overflow. */
export type PricedEpisode = Priced & Pick<Episode, "episode_id">;

/**
 * Money cost of one episode, or of a token total of one agent, under a frozen
 * price table.
 *
 * Formula: cost = prompt_tokens × prompt_per_million / 1e6
 * + completion_tokens × completion_per_million / 1e6, in `table.currency`,
 * where the rate is `table.agent_rates[agent_id]` if present, else
 * `table.default_rate`. Source: seed 001 (cost only through a frozen table
 * named by `price_table_id`; never mix tables). A cost that is not a finite
 * number (a rate near `Number.MAX_VALUE` times a count overflows to
 * Infinity) is refused here, where it is computed, so no summary, table or
 * JSON ever carries it. Tokens that were not recorded (null, issue 11) have
 * no cost: the result is null, never the cost of zero tokens. Cost: O(1).
 *
 * @param row an episode, or `{agent_id, price_table_id, prompt_tokens,
 *   completion_tokens}` holding one agent's token totals
 * @param table the frozen price table
 * @returns the cost in `table.currency`, a finite number; null when the
 *   row's tokens were not recorded
 * @throws {Error} when the row's `price_table_id` is not the table's, or the
 *   table has neither a rate for the agent nor a default rate
 * @throws {RangeError} when the cost is not a finite number, naming the
 *   price table, the agent and (for an episode) the episode
 * @example
 * ```ts
 * import { episodeCost } from "./episode_cost.ts";
 * const table = {
 *   schema_version: 1 as const, price_table_id: "p1", currency: "USD",
 *   default_rate: { prompt_per_million: 3, completion_per_million: 15 }, agent_rates: {},
 * };
 * const row = { agent_id: "a", price_table_id: "p1", prompt_tokens: 1800, completion_tokens: 900 };
 * // 1800 × 3 / 1e6 + 900 × 15 / 1e6 = 0.0054 + 0.0135 = 0.0189
 * const cost = episodeCost(row, table);
 * if (cost === null || Math.abs(cost - 0.0189) > 1e-15) throw new Error(`cost ${cost}`);
 * // Tokens not recorded have no cost, not the cost of zero tokens.
 * if (episodeCost({ ...row, prompt_tokens: null }, table) !== null) throw new Error("null");
 * ```
 */
export function episodeCost(row: Priced, table: PriceTable): number | null {
  const rate = rateOf(row, table);
  if (row.prompt_tokens === null || row.completion_tokens === null) return null;
  const cost = priceTokens(row.prompt_tokens, row.completion_tokens, rate);
  if (!Number.isFinite(cost)) {
    const what = "episode_id" in row
      ? `episode "${(row as Episode).episode_id}" for agent "${row.agent_id}"`
      : `the token totals of agent "${row.agent_id}"`;
    throw notFinite(what, table, cost, rate);
  }
  return cost;
}

/**
 * Money cost of the summed tokens of one agent's episodes, priced once
 * (seed 001: the cost column of a summary), as {@link episodeCost} prices a
 * token total: Σ prompt_tokens and Σ completion_tokens in row order, then the
 * formula. A cost that is not a finite number is refused at the first
 * episode whose running totals' cost stops being finite (naming the
 * episode's own cost when it alone overflows). Rows of no episode: 0. When
 * any row's tokens were not recorded (null, issue 11) the total is not
 * known: null, never the cost of the rows that were. Cost: O(rows).
 *
 * @param rows the episodes of one agent (all with its `agent_id`)
 * @param table the frozen price table
 * @returns the cost in `table.currency`, a finite number; null when a row's
 *   tokens were not recorded
 * @throws {Error} as {@link episodeCost}, for the table or a missing rate
 * @throws {RangeError} when the summed cost is not a finite number, naming
 *   the price table, the agent and the episode where it overflows
 * @example
 * ```ts
 * import { totalCost } from "./episode_cost.ts";
 * const table = {
 *   schema_version: 1 as const, price_table_id: "p1", currency: "USD",
 *   default_rate: { prompt_per_million: 3, completion_per_million: 15 }, agent_rates: {},
 * };
 * const row = (episode_id: string) =>
 *   ({ episode_id, agent_id: "a", price_table_id: "p1", prompt_tokens: 1e6, completion_tokens: 0 });
 * // 2 × 10^6 prompt tokens at 3 per million
 * if (totalCost([row("e1"), row("e2")], table) !== 6) throw new Error("cost");
 * ```
 */
export function totalCost(rows: readonly PricedEpisode[], table: PriceTable): number | null {
  if (rows.length === 0) return 0;
  const rate = rateOf(rows[0], table);
  let prompt = 0;
  let completion = 0;
  for (const row of rows) {
    if (row.prompt_tokens === null || row.completion_tokens === null) return null;
    prompt += row.prompt_tokens;
    completion += row.completion_tokens;
    // rates are non-negative, so once a running total overflows the sum does too
    const running = priceTokens(prompt, completion, rate);
    if (!Number.isFinite(running)) {
      const alone = priceTokens(row.prompt_tokens, row.completion_tokens, rate);
      throw overflowAt(row, table, { running, alone }, rate);
    }
  }
  return priceTokens(prompt, completion, rate);
}

/** The rate of the row's agent; refuses another table or a missing rate. */
function rateOf(row: Priced, table: PriceTable): Rate {
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
  return rate;
}

/** Seed 001's formula, the one place it is written. */
function priceTokens(prompt: number, completion: number, rate: Rate): number {
  return (prompt * rate.prompt_per_million) / 1e6 +
    (completion * rate.completion_per_million) / 1e6;
}

/** The refusal of a running total that overflowed at `row`: its own cost (`alone`), or the sum's. */
function overflowAt(
  row: PricedEpisode,
  table: PriceTable,
  { running, alone }: { running: number; alone: number },
  rate: Rate,
): RangeError {
  const episode = `episode "${row.episode_id}"`;
  return Number.isFinite(alone)
    ? notFinite(`the episodes of agent "${row.agent_id}" up to ${episode}`, table, running, rate)
    : notFinite(`${episode} for agent "${row.agent_id}"`, table, alone, rate);
}

function notFinite(what: string, table: PriceTable, cost: number, rate: Rate): RangeError {
  return new RangeError(
    `Cannot price ${what} under price table "${table.price_table_id}": the cost is ${cost}, ` +
      `not a finite number (rates ${rate.prompt_per_million} and ${rate.completion_per_million} ` +
      `per million prompt and completion tokens)`,
  );
}
