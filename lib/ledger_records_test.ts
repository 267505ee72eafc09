import assert from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { Episode } from "../analysis/schema/records.ts";
import { summarizeAgents } from "../analysis/summarize_agents.ts";
import { LEDGER_RECORD_COLUMNS, ledgerRecords } from "./ledger_records.ts";

const base = {
  run_id: "r",
  agent_id: "a",
  seed: 1,
  prompt_tokens: 100,
  completion_tokens: 50,
  tool_calls: 3,
  wall_ms: 9,
  price_table_id: "p",
};

Deno.test("ledgerRecords() classifies pass, fail, censored and invalid rows", () => {
  const records = ledgerRecords([
    Episode.parse({ ...base, task_id: "t1", resolved: true, model_calls: 7 }),
    Episode.parse({ ...base, task_id: "t2", resolved: false, stop_reason: "token_cap" }),
    Episode.parse({
      ...base,
      task_id: "t3",
      resolved: null,
      status: "invalid",
      invalid_reason: "verifier_fault",
      stop_reason: "rate_limited",
    }),
  ]);
  // Hand-derived from the rows: tokens = 100 + 50; steps = model_calls, else tool_calls;
  // an invalid row is never censored (it is outside every denominator).
  assert.deepEqual(
    records.map((r) => [r.row, r.outcome, r.censored, r.tokens, r.steps, r.invalid_reason]),
    [
      [1, "pass", false, 150, 7, null],
      [2, "fail", true, 150, 3, null],
      [3, "invalid", false, 150, 3, "verifier_fault"],
    ],
  );
  assert.equal(records[0].episode_id, "r/a/t1/1");
  assert.deepEqual(Object.keys(records[0]), LEDGER_RECORD_COLUMNS);
});

Deno.test("ledgerRecords() agrees with summarizeAgents() on the seed-001 sample", async () => {
  const { rows } = await loadLedger(
    decodeURIComponent(
      new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname,
    ),
  );
  const records = ledgerRecords(rows);
  // Seed 001's sample: 8 rows; agent a resolves 3 of 4, agent b 2 of 4.
  assert.equal(records.length, 8);
  for (const agent of summarizeAgents(rows)) {
    const mine = records.filter((r) => r.agent_id === agent.agent_id);
    assert.equal(mine.filter((r) => r.outcome === "pass").length, agent.resolved);
    assert.equal(mine.filter((r) => r.outcome !== "invalid").length, agent.scored);
  }
  assert.deepEqual(
    summarizeAgents(rows).map((a) => [a.agent_id, a.resolved]),
    [["a", 3], ["b", 2]],
  );
});
