import assert from "node:assert/strict";
import { summarizeAgents } from "../summarize_agents.ts";
import { costFrontierPlot } from "./cost_frontier_plot.ts";
import { row, rowsWith, sampleRows, subtitle } from "./_test_helpers.ts";

const FRONTIER = "on the Pareto frontier";

Deno.test("costFrontierPlot() puts both seed-001 agents on the frontier, in tokens", async () => {
  const spec = costFrontierPlot(summarizeAgents(await sampleRows()));
  // a: 75% at 7766.67 tokens per resolved; b: 50% at 3750. Neither dominates.
  const [points] = rowsWith(spec, "agent", "cost", "rate", "status");
  assert.deepEqual(points.map((p) => [p.agent, p.rate, p.status]), [
    ["a", 0.75, FRONTIER],
    ["b", 0.5, FRONTIER],
  ]);
  // The staircase runs by cost ascending: b then a.
  const [stairs] = rowsWith(spec, "cost", "rate").filter((rows) => !("agent" in rows[0]));
  assert.deepEqual(stairs.map((s) => s.rate), [0.5, 0.75]);
  assert.match(JSON.stringify(spec), /Tokens per resolved \(no price table/);
  assert.match(subtitle(spec), /Frontier: "b", "a"\./);
});

Deno.test("costFrontierPlot() marks a dominated agent and uses money with a price table", () => {
  // Per million tokens: prompt 1, completion 2. Each row: 1e6 prompt + 0 completion = 1 USD.
  // a: 2/2 resolved, 2 USD → 1 per resolved; b: 1/2, 2 USD → 2 per resolved
  // (dearer and worse than a: dominated); c: 0/2 (no cost per resolved, not shown).
  const big = { prompt_tokens: 1_000_000, completion_tokens: 0 };
  const rows = [
    row({ agent_id: "a", task_id: "t1", ...big }),
    row({ agent_id: "a", task_id: "t2", ...big }),
    row({ agent_id: "b", task_id: "t1", ...big }),
    row({ agent_id: "b", task_id: "t2", resolved: false, ...big }),
    row({ agent_id: "c", task_id: "t1", resolved: false, ...big }),
    row({ agent_id: "c", task_id: "t2", resolved: false, ...big }),
  ];
  const priceTable = {
    schema_version: 1 as const,
    price_table_id: "p",
    currency: "USD",
    default_rate: { prompt_per_million: 1, completion_per_million: 2 },
    agent_rates: {},
  };
  const spec = costFrontierPlot(summarizeAgents(rows, { priceTable }));
  const [points] = rowsWith(spec, "agent", "cost", "rate", "status");
  assert.deepEqual(points.map((p) => [p.agent, p.cost, p.status]), [
    ["a", 1, FRONTIER],
    ["b", 2, "dominated (another agent is cheaper and at least as good)"],
  ]);
  assert.match(JSON.stringify(spec), /Cost per resolved \(USD, frozen price table \\"p\\"\)/);
  assert.match(subtitle(spec), /Frontier: "a"\. Not shown \(nothing resolved\): "c"\./);
  assert.throws(() => costFrontierPlot([]), {
    message: "Cannot build cost frontier plot: no agents",
  });
});
