import { equal, ok, throws } from "node:assert/strict";
import { episodeCost } from "./episode_cost.ts";
import { Episode, PriceTable } from "./schema.ts";

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
  ok(Math.abs(episodeCost(ROW, TABLE) - 0.0189) < 1e-15);
});

Deno.test("episodeCost() uses the agent's own rate before the default", () => {
  // Hand computation: 1800 × 0.5 / 1e6 + 900 × 2 / 1e6 = 0.0009 + 0.0018 = 0.0027.
  ok(Math.abs(episodeCost({ ...ROW, agent_id: "b" }, TABLE) - 0.0027) < 1e-15);
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
  ok(episodeCost({ ...ROW, agent_id: "b" }, noDefault) > 0);
});
