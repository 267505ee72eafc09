import { deepEqual, equal, ok } from "node:assert/strict";
import { canonicalJson } from "./canonical_json.ts";
import { perResolvedUncertainty } from "./per_resolved_uncertainty.ts";
import { ratioBootstrap } from "./ratio_bootstrap.ts";
import { episodeSamples } from "./_episode_samples_for_test.ts";
import { paretoFrontierProbability } from "./pareto_frontier.ts";
import { summarizeAgents } from "./summarize_agents.ts";
import { Episode } from "./schema/records.ts";
import { loadLedger } from "../inputs/ledger.ts";

/**
 * Three agents × 12 tasks × 3 attempts; the attempts at one task agree but for a rare flip
 * (python3 analysis/_per_resolved_reference.py --write-fixture, random.Random(23)).
 */
const FIXTURE = new URL("../tests/fixtures/correlated_attempts.jsonl", import.meta.url).pathname;
const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;

Deno.test("perResolvedUncertainty() matches the independent reference on correlated attempts", async () => {
  const { rows } = await loadLedger(FIXTURE);
  const u = perResolvedUncertainty(rows);
  deepEqual([u.method, u.unit, u.rounds, u.seed], [
    "task_cluster_percentile_bootstrap",
    "task",
    2000,
    7,
  ]);
  deepEqual(u.frontier, {
    method: "task_paired",
    measure: "tokens",
    agents: ["agent-a", "agent-b", "agent-c"],
    tasks: 12,
  });
  // python3 analysis/_per_resolved_reference.py, "correlated-attempts fixture": the same task
  // draws through its port of seedrandom's Alea, so the bounds agree to the bit.
  const reference = {
    "agent-a": [[9986.064516129032, 30450.722222222223], [39.94564516129032, 121.80627777777778]],
    "agent-b": [[6126.708333333333, 44719.333333333336], [24.508958333333336, 178.88266666666667]],
    "agent-c": [[7025.464285714285, 52545.25], [28.103714285714283, 210.18975000000003]],
  };
  for (const agent of u.agents) {
    const [tokens, seconds] = reference[agent.agent_id as keyof typeof reference];
    deepEqual([agent.tasks, agent.scored], [12, 36]);
    deepEqual([agent.tokens_per_resolved.lo, agent.tokens_per_resolved.hi], tokens);
    deepEqual([agent.seconds_per_resolved.lo, agent.seconds_per_resolved.hi], seconds);
    deepEqual(
      [agent.tokens_per_resolved.unbounded_above, agent.tokens_per_resolved.null_reason],
      [false, null],
    );
  }
  // The estimates are summarizeAgents' TPR and SPR (seconds summed per attempt here, as the
  // bootstrap sums them, and in milliseconds there: equal to the last bits).
  const summaries = summarizeAgents(rows);
  u.agents.forEach((agent, i) => {
    equal(agent.tokens_per_resolved.estimate, summaries[i].tpr);
    ok(Math.abs(agent.seconds_per_resolved.estimate! / summaries[i].spr! - 1) < 1e-12);
  });
  // Reference "frontier paired": 1353, 1286 and 674 of 2000 rounds (the frontier there by the
  // plain pairwise definition). Resampling each agent's episodes independently, the earlier
  // rule, gives 1490, 1308 and 732 ("frontier independent"): up to 0.0685 more.
  deepEqual(u.agents.map((a) => a.frontier_rounds), [1353, 1286, 674]);
  deepEqual(u.agents.map((a) => a.frontier_probability), [0.6765, 0.643, 0.337]);
  deepEqual(u.agents.map((a) => a.frontier_null_reason), [null, null, null]);
});

Deno.test("perResolvedUncertainty() correlated attempts: the task bootstrap is wider than the episode one", async () => {
  const { rows } = await loadLedger(FIXTURE);
  const u = perResolvedUncertainty(rows);
  // Resampling the 36 attempts one by one treats the three attempts at a task as independent
  // observations; they are not (they agree but for a rare flip), so that interval is too narrow.
  // Reference "episode" bounds, the same Alea stream over the episodes in ledger order:
  // agent-a [13130.1, 26987.2], agent-b [9393, 27732.3], agent-c [9553.4, 31526.3]; width
  // ratios task / episode 1.4768, 2.1044 and 2.0716. numpy's own generator at 200,000
  // rounds ("numpy ...", a stream independent of ours) gives ratios 1.55, 2.04 and 1.96.
  const episode = { "agent-a": 13130.111111111111, "agent-b": 9393, "agent-c": 9553.4375 };
  const numpy = {
    "agent-a": [10128.4, 31408.5],
    "agent-b": [6137.9, 41919.1],
    "agent-c": [6698.1, 49547.7],
  };
  for (const sample of episodeSamples(rows)) {
    const byEpisode = ratioBootstrap(sample.tokens!, sample.resolved);
    const byTask = u.agents.find((a) => a.agent_id === sample.agent_id)!.tokens_per_resolved;
    equal(byEpisode.lower, episode[sample.agent_id as keyof typeof episode]);
    const ratio = (byTask.hi! - byTask.lo!) / (byEpisode.upper! - byEpisode.lower!);
    ok(ratio > 1.4, `${sample.agent_id}: task / episode width ${ratio}`);
    // Against numpy's 200,000 rounds: 2000 rounds put a 2.5% or 97.5% quantile within a few
    // percent (here at most 6.7%).
    const [lo, hi] = numpy[sample.agent_id as keyof typeof numpy];
    ok(Math.abs(byTask.lo! / lo - 1) < 0.1 && Math.abs(byTask.hi! / hi - 1) < 0.1, sample.agent_id);
  }
});

Deno.test("perResolvedUncertainty() on the seed-001 sample: pinned and exact", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const u = perResolvedUncertainty(rows);
  const [a, b] = u.agents;
  // Exact cluster quantiles by enumeration (reference, "exact cluster quantiles"): a's tokens
  // per resolved [3250, 32300]; b's [1450, unbounded], no ratio with probability 1/16.
  deepEqual(a.tokens_per_resolved, {
    estimate: 23300 / 3,
    lo: 3250,
    hi: 32300,
    unbounded_above: false,
    rounds_without_resolved: 5,
    null_reason: null,
  });
  deepEqual(b.tokens_per_resolved, {
    estimate: 3750,
    lo: 1450,
    hi: null,
    unbounded_above: true,
    rounds_without_resolved: 137,
    null_reason: null,
  });
  deepEqual([a.seconds_per_resolved.lo, a.seconds_per_resolved.hi], [16, 186]);
  // Reference "frontier paired": 1250 and 1432 of 2000 (exact 0.625 and 0.7265625).
  deepEqual([a.frontier_probability, b.frontier_probability], [0.625, 0.716]);
  deepEqual([a.frontier_rounds_without_resolved, b.frontier_rounds_without_resolved], [5, 137]);
  // No price table: no money, and it says why.
  equal(a.cost_per_resolved.null_reason, "no_price_table");
  equal(a.cost_per_resolved.estimate, null);
  // Same rows, same seed: the same bytes; another seed moves the Monte Carlo.
  equal(canonicalJson(perResolvedUncertainty(rows)), canonicalJson(u));
  const other = perResolvedUncertainty(rows, { seed: 8, rounds: 500 });
  deepEqual([other.seed, other.rounds], [8, 500]);
  ok(other.agents[0].frontier_rounds! <= 500);
});

Deno.test("perResolvedUncertainty() never reads an unrecorded figure as 0", () => {
  const row = (agent: string, task: string, resolved: boolean, extra: Partial<Episode> = {}) =>
    Episode.parse({
      run_id: "r",
      agent_id: agent,
      task_id: task,
      seed: 7,
      resolved,
      prompt_tokens: 100,
      completion_tokens: 50,
      tool_calls: 1,
      wall_ms: 3000,
      price_table_id: "p",
      ...extra,
    });
  const rows = [
    row("ok", "t1", true),
    row("ok", "t2", false),
    // one scored attempt without its tokens: no tokens per resolved at all, and off the frontier
    row("untracked", "t1", true),
    row("untracked", "t2", true, { prompt_tokens: null, completion_tokens: null }),
    // one attempt without its wall time
    row("untimed", "t1", true, { wall_ms: null }),
    row("failing", "t1", false),
    row("invalid", "t1", false, {
      status: "invalid",
      invalid_reason: "verifier_fault",
      resolved: null,
    } as Partial<Episode>),
  ];
  const u = perResolvedUncertainty(rows, {
    rounds: 100,
    frontierAgents: ["ok", "untracked", "failing", "invalid"],
  });
  const by = new Map(u.agents.map((a) => [a.agent_id, a]));
  const untracked = by.get("untracked")!;
  deepEqual(untracked.tokens_per_resolved, {
    estimate: null,
    lo: null,
    hi: null,
    unbounded_above: false,
    rounds_without_resolved: null,
    null_reason: "not_recorded",
  });
  equal(untracked.seconds_per_resolved.estimate, 3); // 6 s over 2 resolved
  deepEqual([untracked.frontier_probability, untracked.frontier_null_reason], [
    null,
    "not_recorded",
  ]);
  equal(by.get("untimed")!.seconds_per_resolved.null_reason, "not_recorded");
  equal(by.get("untimed")!.frontier_null_reason, "not_in_frontier_set");
  equal(by.get("failing")!.tokens_per_resolved.null_reason, "nothing_resolved");
  equal(by.get("failing")!.frontier_null_reason, "nothing_resolved");
  deepEqual(
    [by.get("invalid")!.scored, by.get("invalid")!.tokens_per_resolved.null_reason],
    [0, "no_scored_attempts"],
  );
  equal(by.get("invalid")!.frontier_null_reason, "no_scored_attempts");
  // The frontier is drawn over the placed agents only: "ok" alone, on it whenever its draw of
  // t1 and t2 resolves something (exactly 3/4 of the draws).
  deepEqual([u.frontier.agents, u.frontier.tasks], [["ok"], 2]);
  const alone = by.get("ok")!;
  equal(alone.frontier_rounds! + alone.frontier_rounds_without_resolved!, 100);
  ok(Math.abs(alone.frontier_probability! - 0.75) < 4 * Math.sqrt(0.75 * 0.25 / 100));
  // The frontier over the placed agents is paretoFrontierProbability's, same seed and rounds.
  const ok1 = episodeSamples(rows).find((s) => s.agent_id === "ok")!;
  equal(
    paretoFrontierProbability([{ ...ok1, costs: ok1.tokens! }], { rounds: 100 }).agents[0]
      .on_frontier,
    alone.frontier_rounds,
  );
});
