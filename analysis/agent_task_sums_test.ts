import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { agentTaskSums, type SummedMeasure } from "./agent_task_sums.ts";
import { episodeSamples, unevenRows } from "./_episode_samples_for_test.ts";
import { agentRatioIntervals } from "./ratio_bootstrap.ts";
import { summarizeAgents } from "./summarize_agents.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPriceTable } from "../inputs/price_table.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;
const SYNTHETIC = new URL("../ledgers/examples/synthetic_ledger.jsonl", import.meta.url).pathname;
const PRICES = new URL("../ledgers/examples/price_table.json", import.meta.url).pathname;

Deno.test("agentTaskSums() on the seed-001 sample: one attempt per task, columns not recorded", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const { tasks, agents: [a, b] } = agentTaskSums(rows);
  deepEqual(tasks, ["t1", "t2", "t3", "t4"]);
  deepEqual([a.agent_id, a.episodes, a.resolved, [...a.units]], ["a", 4, 3, [0, 1, 2, 3]]);
  // Seed 001: a's tokens 2700, 7300, 9500, 3800 (23,300 in all), t3 not resolved.
  deepEqual(tasks.map((_, u) => a.at(u, "tokens")), [2700, 7300, 9500, 3800]);
  deepEqual(tasks.map((_, u) => a.at(u, "resolved")), [1, 1, 0, 1]);
  deepEqual(a.totals, { tokens: 23300, seconds: 129, cost: null });
  deepEqual([b.episodes, b.resolved, b.totals.tokens], [4, 2, 7500]);
  // A scored row without its wall time: "not recorded", never 0.
  const missing = rows.map((row, i) => (i === 0 ? { ...row, wall_ms: null } : row));
  equal(agentTaskSums(missing).agents[0].totals.seconds, null);
  equal(agentRatioIntervals(missing)[0].spr, null);
});

Deno.test("agentTaskSums() equals the per-episode sums in ledger order, to the bit, and summarizeAgents' cost", async () => {
  const rows = unevenRows((await loadLedger(SYNTHETIC)).rows);
  const table = (await loadPriceTable(PRICES)).value;
  const sums = agentTaskSums(rows, table);
  const samples = episodeSamples(rows, table);
  const summaries = summarizeAgents(rows, { priceTable: table });
  deepEqual(sums.agents.map((a) => a.agent_id), samples.map((s) => s.agent_id));
  sums.agents.forEach((agent, i) => {
    const sample = samples[i];
    equal(agent.resolved, summaries[i].resolved);
    const cost = summaries[i].cost!.cost!;
    ok(Math.abs(agent.totals.cost! - cost) <= 1e-9 * cost, `${agent.agent_id} cost`);
    const expected = new Map<string, Record<SummedMeasure | "attempts" | "resolved", number>>();
    sample.task_ids.forEach((task, e) => {
      const cell = expected.get(task) ??
        { attempts: 0, resolved: 0, tokens: 0, seconds: 0, cost: 0 };
      cell.attempts++;
      if (sample.resolved[e]) cell.resolved++;
      cell.tokens += sample.tokens![e];
      cell.seconds += sample.seconds![e];
      cell.cost += sample.cost![e];
      expected.set(task, cell);
    });
    deepEqual([...agent.units].map((u) => sums.tasks[u]), [...expected.keys()].sort());
    ok([...expected.values()].some((cell) => cell.attempts > 1), "repeated attempts");
    sums.tasks.forEach((task, u) => {
      const cell = expected.get(task);
      for (const field of ["attempts", "resolved", "tokens", "seconds", "cost"] as const) {
        equal(agent.at(u, field), cell?.[field] ?? 0, `${agent.agent_id} ${task} ${field}`);
      }
    });
    for (const measure of ["tokens", "seconds", "cost"] as const) {
      equal(agent.totals[measure], sample[measure]!.reduce((x, y) => x + y, 0), measure);
    }
  });
});

Deno.test("agentTaskSums() refuses a negative value, naming the agent", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const bad = rows.map((row, i) => (i === 2 ? { ...row, wall_ms: -5 } : row));
  throws(
    () => agentTaskSums(bad),
    (e: unknown) =>
      e instanceof RangeError &&
      e.message ===
        'Cannot sum the seconds of agent "a": a value must be a finite number >= 0, got -0.005',
  );
});
