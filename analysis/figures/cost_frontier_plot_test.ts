import assert from "node:assert/strict";
import { perResolvedUncertainty } from "../per_resolved_uncertainty.ts";
import { summarizeAgents } from "../summarize_agents.ts";
import { costFrontierPlot } from "./cost_frontier_plot.ts";
import { nodes, row, rowsWith, sampleRows, subtitle } from "./_spec_for_test.ts";

const FRONTIER = "on the Pareto frontier";

/** The label placement chosen for each agent, from the label layers' rows. */
function placements(spec: ReturnType<typeof costFrontierPlot>): Record<string, unknown> {
  return Object.fromEntries(
    rowsWith(spec, "agent", "text", "placement").flat().map((l) => [l.agent, l.placement]),
  );
}

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
  // a sits at x 449 px of 520 (7766.67 of an axis ending at 9000): its label goes left,
  // above the step up from b; b's label has the room above the step across.
  assert.deepEqual(placements(spec), { a: "left-above", b: "right-above" });
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

Deno.test("costFrontierPlot() keeps labels off the frontier line and inside the plot", () => {
  // The synthetic example's geometry, in tokens: beta (33, 56%) and alpha (46, 66.7%) on
  // the frontier, delta (43, 32.5%) and gamma (831, 47.6%) dominated. Axis 0..900
  // (831 × 1.05 = 872.6, rounded up to a step of 100), plot 520 × 340 px.
  const agent = (agent_id: string, tpr: number, resolved: number, scored: number) => ({
    agent_id,
    scored,
    resolved,
    resolved_rate: resolved / scored,
    tpr,
    cost: null,
  });
  const spec = costFrontierPlot([
    agent("alpha", 46, 56, 84),
    agent("beta", 33, 47, 84),
    agent("delta", 43, 27, 83),
    agent("gamma", 831, 40, 84),
  ]);
  assert.equal(rowsWith(spec, "agent", "cost", "rate", "status")[0].length, 4);
  assert.match(JSON.stringify(spec), /"domain":\[0,900\]/);
  assert.deepEqual(placements(spec), {
    // Nothing above and right of alpha (x 26.6 px, y 113.3 px): the first choice.
    alpha: "right-above",
    // Above right of beta (x 19.1 px, y 149.6 px) the label would start at x 28.1 px,
    // within 2 px of the frontier's vertical step at alpha's x (26.6 px) between
    // y 113.3 and 149.6: below right clears it, and the step across at y 149.6.
    beta: "right-below",
    delta: "right-above",
    // Right of gamma (x 480 px) its label ("gamma: 47.6% at 831 tokens", about 160 px)
    // would run past the plot's right edge (520 px): it goes to the left.
    gamma: "left-above",
  });
  // One text layer per placement used, each anchored to match its name.
  const marks = nodes(spec).map((n) => n.mark as Record<string, unknown> | undefined)
    .filter((m) => m?.type === "text") as Record<string, unknown>[];
  assert.deepEqual(marks.map((m) => [m.align, m.baseline, Math.sign(m.dx as number)]), [
    ["left", "bottom", 1],
    ["left", "top", 1],
    ["right", "bottom", -1],
  ]);
});

Deno.test("costFrontierPlot() moves a label at the top right corner below and left", () => {
  // One agent at 100% and 100 tokens per resolved: the axis ends at 120 (105 rounded up
  // to a step of 20), so the point sits at x 433 px, y 0: a label above would leave
  // the plot at the top, one to the right at the right edge.
  const spec = costFrontierPlot([
    { agent_id: "a", scored: 4, resolved: 4, resolved_rate: 1, tpr: 100, cost: null },
  ]);
  assert.match(JSON.stringify(spec), /"domain":\[0,120\]/);
  assert.deepEqual(placements(spec), { a: "left-below" });
});

Deno.test("costFrontierPlot() draws each agent's intervals and frontier probability", async () => {
  const rows = await sampleRows();
  const agents = summarizeAgents(rows);
  const spec = costFrontierPlot(agents, {
    uncertainty: {
      per_resolved: perResolvedUncertainty(rows),
      rates: [{ agent_id: "a", lower: 0.25, upper: 1 }, { agent_id: "b", lower: 0, upper: 1 }],
    },
  });
  const labels = rowsWith(spec, "agent", "text", "placement").flat();
  // 1250 / 2000 = 62.5% and 1432 / 2000 = 71.6% of the task-paired resamples
  // (analysis/_per_resolved_reference.py, "frontier paired"), printed to whole percents
  assert.deepEqual(labels.map((l) => l.text), [
    ["a: 75.0% at 7,767 tokens", "on the frontier in 63% of task resamples"],
    ["b: 50.0% at 3,750 tokens", "on the frontier in 72% of task resamples"],
  ]);
  const rateBars = rowsWith(spec, "agent", "cost", "lower", "upper").flat();
  assert.deepEqual(rateBars.map((b) => [b.agent, b.lower, b.upper]), [["a", 0.25, 1], ["b", 0, 1]]);
  const costBars = rowsWith(spec, "agent", "rate", "lower", "upper", "unbounded").flat();
  // a's tokens per resolved [3250, 32300] (exact cluster quantiles); the axis reaches the
  // highest finite bound: 32300 × 1.05 rounded up to 35,000; b's unbounded bar runs dashed to it.
  assert.deepEqual(costBars.map((b) => [b.agent, b.lower, b.upper, b.unbounded]), [
    ["a", 3250, 32300, false],
    ["b", 1450, 35000, true],
  ]);
  assert.match(subtitle(spec), /task-cluster bootstrap, 2000 rounds, seed 7/);
  assert.match(subtitle(spec), /a stability figure, not the chance that the agent is the best/);
  assert.match(subtitle(spec), /resolved nothing \(off the frontier\): a 5, b 137\./);
});

Deno.test("costFrontierPlot() never rounds a frontier share to a certainty", async () => {
  const rows = await sampleRows();
  const agents = summarizeAgents(rows);
  const perResolved = perResolvedUncertainty(rows);
  const shares = [0.0004, 0.9996];
  const spec = costFrontierPlot(agents, {
    uncertainty: {
      per_resolved: {
        ...perResolved,
        agents: perResolved.agents.map((a, i) => ({ ...a, frontier_probability: shares[i] })),
      },
      rates: [],
    },
  });
  const labels = rowsWith(spec, "agent", "text", "placement").flat();
  assert.deepEqual(labels.map((l) => (l.text as string[])[1]), [
    "on the frontier in <1% of task resamples",
    "on the frontier in >99% of task resamples",
  ]);
  // No rate intervals given: no vertical bars.
  assert.equal(rowsWith(spec, "agent", "cost", "lower", "upper").length, 0);
});
