import { equal, ok, throws } from "node:assert/strict";
import { episodeCost, totalCost } from "./episode_cost.ts";
import { Episode, PriceTable } from "./schema/records.ts";

function throwsWith(fn: () => unknown, kind: ErrorConstructor, text: string): void {
  throws(fn, (error: unknown) => error instanceof kind && error.message.includes(text));
}

const TABLE = PriceTable.parse({
  price_table_id: "p-2026-03",
  currency: "USD",
  default_rate: { prompt_per_million: 3, completion_per_million: 15 },
  agent_rates: { b: { prompt_per_million: 0.5, completion_per_million: 2 } },
});

// Seed 001 sample, agent a, task t1: 1800 prompt + 900 completion tokens.
const ROW = Episode.parse({
  run_id: "r1",
  agent_id: "a",
  task_id: "t1",
  seed: 7,
  resolved: true,
  prompt_tokens: 1800,
  completion_tokens: 900,
  tool_calls: 4,
  wall_ms: 14000,
  price_table_id: "p-2026-03",
});

Deno.test("episodeCost() multiplies tokens by the default per-million rates", () => {
  // Hand computation: 1800 × 3 / 1e6 + 900 × 15 / 1e6 = 0.0054 + 0.0135 = 0.0189.
  ok(Math.abs(episodeCost(ROW, TABLE)! - 0.0189) < 1e-15);
});

Deno.test("episodeCost() uses the agent's own rate before the default", () => {
  // Hand computation: 1800 × 0.5 / 1e6 + 900 × 2 / 1e6 = 0.0009 + 0.0018 = 0.0027.
  ok(Math.abs(episodeCost({ ...ROW, agent_id: "b" }, TABLE)! - 0.0027) < 1e-15);
});

Deno.test("episodeCost() prices an agent's token totals", () => {
  // Hand computation: 10^6 prompt tokens cost 3, 2 × 10^6 completion tokens cost 30.
  const total = {
    agent_id: "a",
    price_table_id: "p-2026-03",
    prompt_tokens: 1_000_000,
    completion_tokens: 2_000_000,
  };
  equal(episodeCost(total, TABLE), 33);
});

Deno.test("episodeCost() is zero under a free table, as in seed 001's local-0", () => {
  const free = PriceTable.parse({
    price_table_id: "local-0",
    currency: "USD",
    default_rate: { prompt_per_million: 0, completion_per_million: 0 },
  });
  equal(episodeCost({ ...ROW, price_table_id: "local-0" }, free), 0);
});

Deno.test("episodeCost() refuses a row priced under another table", () => {
  throwsWith(
    () => episodeCost({ ...ROW, price_table_id: "p-2026-09" }, TABLE),
    Error,
    'Cannot price episode "r1/a/t1/1" for agent "a": its price table "p-2026-09" is not the frozen table "p-2026-03"',
  );
});

Deno.test("episodeCost() refuses an agent without a rate when there is no default", () => {
  const noDefault = PriceTable.parse({ ...TABLE, default_rate: null });
  throwsWith(
    () => episodeCost(ROW, noDefault),
    Error,
    'Cannot price agent "a": price table "p-2026-03" has no rate for it and no default rate',
  );
  // Agent b still has its own rate.
  ok(episodeCost({ ...ROW, agent_id: "b" }, noDefault)! > 0);
});

// A price table near Number.MAX_VALUE (1.7976931348623157e308): valid for the schema (a
// non-negative finite number), but its products overflow to Infinity.
const HUGE = PriceTable.parse({
  price_table_id: "huge",
  currency: "USD",
  default_rate: { prompt_per_million: 1e308, completion_per_million: 0 },
});

Deno.test("episodeCost() refuses a cost that is not a finite number, naming table, agent and episode", () => {
  const row = { ...ROW, price_table_id: "huge", prompt_tokens: 1, completion_tokens: 0 };
  // 1 × 1e308 / 1e6 = 1e302: large but finite, so priced.
  equal(episodeCost(row, HUGE), 1e302);
  // 2 × 1e308 = Infinity before the division by 1e6.
  throwsWith(
    () => episodeCost({ ...row, prompt_tokens: 2 }, HUGE),
    RangeError,
    'Cannot price episode "r1/a/t1/1" for agent "a" under price table "huge": the cost is ' +
      "Infinity, not a finite number (rates 1e+308 and 0 per million prompt and completion tokens)",
  );
  // A token total names the agent.
  throwsWith(
    () =>
      episodeCost(
        { agent_id: "a", price_table_id: "huge", prompt_tokens: 2, completion_tokens: 0 },
        HUGE,
      ),
    RangeError,
    'Cannot price the token totals of agent "a" under price table "huge"',
  );
});

function pricedRow(i: number, prompt: number) {
  return {
    episode_id: `r/a/t${i}/1`,
    agent_id: "a",
    price_table_id: "huge",
    prompt_tokens: prompt,
    completion_tokens: 0,
  };
}

Deno.test("totalCost() prices the summed tokens once, as episodeCost() prices a total", () => {
  const rows = [1800, 1200].map((prompt, i) => ({
    ...pricedRow(i + 1, prompt),
    price_table_id: "p-2026-03",
  }));
  // (1800 + 1200) × 3 / 1e6 = 0.009, the same as pricing the total.
  equal(
    totalCost(rows, TABLE),
    episodeCost({
      agent_id: "a",
      price_table_id: "p-2026-03",
      prompt_tokens: 3000,
      completion_tokens: 0,
    }, TABLE),
  );
  equal(totalCost([], TABLE), 0);
  throwsWith(() => totalCost(rows, HUGE), Error, 'is not the frozen table "huge"');
});

Deno.test("totalCost() refuses a sum of finite costs that overflows, at the episode where it does", () => {
  const table = PriceTable.parse({
    ...HUGE,
    default_rate: { prompt_per_million: 1e300, completion_per_million: 0 },
  });
  // Each episode: 1e7 × 1e300 / 1e6 = 1e301. Running totals: 17 × 1e7 × 1e300 = 1.7e308 is
  // below Number.MAX_VALUE (1.797e308); 18 × 1e7 × 1e300 = 1.8e308 overflows.
  const rows = Array.from({ length: 20 }, (_, i) => pricedRow(i + 1, 1e7));
  close(totalCost(rows.slice(0, 17), table)!, 1.7e302);
  throwsWith(
    () => totalCost(rows, table),
    RangeError,
    'Cannot price the episodes of agent "a" up to episode "r/a/t18/1" under price table ' +
      '"huge": the cost is Infinity, not a finite number',
  );
  // One episode that overflows alone is named with its own cost.
  throwsWith(
    () => totalCost([pricedRow(1, 5), pricedRow(2, Number.MAX_SAFE_INTEGER)], table),
    RangeError,
    'Cannot price episode "r/a/t2/1" for agent "a" under price table "huge": the cost is Infinity',
  );
});

function close(actual: number, expected: number): void {
  ok(Math.abs(actual - expected) <= 1e-12 * expected, `got ${actual}, expected ${expected}`);
}

Deno.test("tokens that were not recorded have no cost, never the cost of zero tokens (issue 11)", () => {
  equal(episodeCost({ ...ROW, prompt_tokens: null }, TABLE), null);
  equal(episodeCost({ ...ROW, completion_tokens: null }, TABLE), null);
  // One row of two without tokens: the total is not known.
  equal(totalCost([{ ...ROW }, { ...ROW, episode_id: "e2", prompt_tokens: null }], TABLE), null);
  // The rate is still checked first: an unpriced agent is refused even without tokens.
  const noDefault = PriceTable.parse({ ...TABLE, default_rate: null });
  throws(() => episodeCost({ ...ROW, prompt_tokens: null }, noDefault), /has no rate for it/);
});
