import assert from "node:assert/strict";
import { compareAgents } from "../compare_agents.ts";
import { summarizeAgents } from "../summarize_agents.ts";
import { efficiencyPlot } from "./efficiency_plot.ts";
import { nodes, rowsWith, sampleRows, subtitle } from "./_spec_for_test.ts";
import { perResolvedUncertainty } from "../per_resolved_uncertainty.ts";

Deno.test("efficiencyPlot() pins the seed-001 sample's TPR and SPR and their bands", async () => {
  const spec = efficiencyPlot(summarizeAgents(await sampleRows()));
  // Seed 001 sample: TPR a = 23300 / 3 = 7766.67, b = 7500 / 2 = 3750;
  // SPR a = 129 s / 3 = 43, b = 40 s / 2 = 20 (wall_ms summed by hand).
  const points = rowsWith(spec, "agent", "value", "status");
  assert.equal(points.length, 4); // points and labels, in both panels
  const [tpr, , spr] = points;
  assert.deepEqual(tpr.map((p) => [p.agent, p.status, p.text]), [
    ["a (3/4)", "outside the band", "7,767"],
    ["b (2/4)", "lowest value", "3,750"],
  ]);
  assert.deepEqual(spr.map((p) => [p.agent, p.value, p.status]), [
    ["a (3/4)", 43, "outside the band"],
    ["b (2/4)", 20, "lowest value"],
  ]);
  // Bands: lowest to lowest × 1.1: [3750, 4125] tokens and [20, 22] s.
  const bands = rowsWith(spec, "lo", "hi");
  assert.equal(bands.length, 2);
  assert.equal(bands[0][0].lo, 3750);
  assert.ok(Math.abs((bands[0][0].hi as number) - 4125) < 1e-9);
  assert.ok(Math.abs((bands[1][0].hi as number) - 22) < 1e-12);
  assert.match(subtitle(spec), /fewer tokens per resolved wins unless within 10%/);
});

Deno.test("efficiencyPlot() puts an agent in the band exactly when seed 001's rule calls TPR a tie", () => {
  // Cross-check against compareAgents: with overlapping intervals (same counts),
  // an agent is inside the band of the lowest TPR iff the rule does not decide
  // on TPR. 1100 is exactly 10% above 1000 (a tie: d > band is required to win).
  for (const other of [1000, 1050, 1100, 1100.5, 1500]) {
    const lowest = { agent_id: "lowest", scored: 10, resolved: 5, tpr: 1000, spr: 1 };
    const agent = { agent_id: "other", scored: 10, resolved: 5, tpr: other, spr: 1 };
    const [tpr] = rowsWith(efficiencyPlot([lowest, agent]), "agent", "value", "status");
    const status = tpr[1].status;
    const rule = compareAgents(lowest, agent).rule;
    const inBand = status === "lowest value" ||
      status === "within the band of the lowest (tie on this measure)";
    assert.equal(inBand, rule !== "tpr", `TPR ${other}: status "${status}", rule "${rule}"`);
  }
  // The audit's case (issue 13, item 1): 77,000 against 70,000 tokens over 3 resolved each
  // is exactly 10% apart, a tie, although 77000/3 / (70000/3) - 1 is 0.10000000000000009.
  const sums = (id: string, tokens: number) => ({
    agent_id: id,
    scored: 4,
    resolved: 3,
    tpr: tokens / 3,
    spr: 1,
    tokens,
    wall_seconds: 3,
  });
  const [tpr] = rowsWith(
    efficiencyPlot([sums("low", 70_000), sums("high", 77_000)]),
    "agent",
    "value",
    "status",
  );
  // Rows by resolved rate, then id (byRateDescending): both 3/4, so "high" first.
  assert.equal(
    tpr.find((r) => r.agent === "high (3/4)")!.status,
    "within the band of the lowest (tie on this measure)",
  );
  assert.equal(compareAgents(sums("low", 70_000), sums("high", 77_000)).rule, "tie");
});

Deno.test("efficiencyPlot() names an agent without TPR and honours a custom band", () => {
  const spec = efficiencyPlot([
    { agent_id: "x", scored: 4, resolved: 0, tpr: null, spr: null },
    { agent_id: "y", scored: 4, resolved: 2, tpr: 200, spr: 5 },
    // resolved, but a scored attempt did not record its tokens: not drawn, and never at 0
    { agent_id: "z", scored: 4, resolved: 1, tpr: null, spr: 7 },
  ], { band: 0.25 });
  const missing = rowsWith(spec, "agent", "text").filter((rows) => !("value" in rows[0]));
  // Rows by resolved rate (y 2/4, z 1/4, x 0/4); z resolved 1: "tokens not recorded", never
  // "nothing resolved" (issue 25 item 3).
  assert.deepEqual(missing[0], [
    { agent: "z (1/4)", agent_id: "z", text: "tokens not recorded" },
    { agent: "x (0/4)", agent_id: "x", text: "no tokens per resolved: nothing resolved" },
  ]);
  assert.deepEqual(missing[1], [{
    agent: "x (0/4)",
    agent_id: "x",
    text: "no seconds per resolved: nothing resolved",
  }]);
  // Band 25%: 200 × 1.25 = 250.
  assert.equal(rowsWith(spec, "lo", "hi")[0][0].hi, 250);
  assert.match(subtitle(spec), /unless within 25%/);
  assert.throws(() => efficiencyPlot([]), { message: "Cannot build efficiency plot: no agents" });
  assert.throws(() =>
    efficiencyPlot([{ agent_id: "y", scored: 1, resolved: 1, tpr: 1, spr: 1 }], {
      band: -1,
    }), {
    message: 'Cannot build efficiency plot: "band" must be a non-negative number, got "-1"',
  });
});

Deno.test("efficiencyPlot() draws the task-cluster intervals as error bars and in brackets", async () => {
  const rows = await sampleRows();
  const uncertainty = perResolvedUncertainty(rows);
  const spec = efficiencyPlot(summarizeAgents(rows), { uncertainty });
  // Bars: rows with lo, hi and unbounded (the tie band rows have no "unbounded").
  const bars = rowsWith(spec, "agent", "lo", "hi", "unbounded").flat();
  // a's TPR [3250, 32300] and SPR [16, 186] are the exact bootstrap quantiles (all 4^4
  // resamples enumerated, see analysis/ratio_bootstrap_test.ts); b's intervals have no
  // upper bound (1/16 of resamples resolve nothing), so they run dashed to the axis end.
  const byAgent = (agent: string, lo: number) => bars.find((b) => b.agent === agent && b.lo === lo);
  assert.deepEqual(byAgent("a (3/4)", 3250), {
    agent: "a (3/4)",
    lo: 3250,
    hi: 32300,
    unbounded: false,
  });
  assert.deepEqual(byAgent("a (3/4)", 16), { agent: "a (3/4)", lo: 16, hi: 186, unbounded: false });
  // TPR axis: the highest finite bound, 32300, × 1.12
  assert.deepEqual(byAgent("b (2/4)", 1450), {
    agent: "b (2/4)",
    lo: 1450,
    hi: 32300 * 1.12,
    unbounded: true,
  });
  const dashed = nodes(spec).filter((n) =>
    (n.mark as { strokeDash?: number[] } | undefined)?.strokeDash !== undefined
  );
  assert.equal(dashed.length, 2); // b's bar in each panel
  // The value and its interval in numbers, above the bar from its lower end.
  const labels = nodes(spec).filter((n) => (n.mark as { type?: string })?.type === "text")
    .flatMap((n) => ((n.data as { values: Record<string, unknown>[] }).values))
    .filter((l) => "anchor" in l);
  assert.deepEqual(labels.map((l) => [l.text, l.anchor, l.align]), [
    ["7,767 [3,250, 32,300]", 3250, "left"],
    ["3,750 [1,450, unbounded]", 1450, "left"],
    ["43.0 [16.0, 186]", 16, "left"],
    ["20.0 [8.50, unbounded]", 8.5, "left"],
  ]);
  // A label that would leave the panel on the right ends at its bar's upper end instead.
  const wide = efficiencyPlot([
    { agent_id: "p", scored: 4, resolved: 4, tpr: 100, spr: 1 },
    { agent_id: "q", scored: 4, resolved: 4, tpr: 900, spr: 1 },
  ], {
    uncertainty: {
      rounds: 2000,
      seed: 7,
      agents: uncertainty.agents.map((a, i) => ({
        ...a,
        agent_id: i === 0 ? "p" : "q",
        tokens_per_resolved: {
          ...a.tokens_per_resolved,
          ...(i === 0 ? { lo: 90, hi: 110 } : { lo: 850, hi: 1000 }),
          unbounded_above: false,
        },
      })),
    },
  });
  const q = nodes(wide).filter((n) => (n.mark as { align?: string })?.align === "right");
  assert.deepEqual(
    q.map((n) => (n.data as { values: Record<string, unknown>[] }).values.map((l) => l.anchor)),
    [[1000]],
  );
  assert.match(
    subtitle(spec),
    /redraws the agent's tasks with replacement, each with all its attempts \(2000 rounds, seed 7\)/,
  );
  // 5 and 137 rounds without a resolved task (analysis/_per_resolved_reference.py)
  assert.ok(
    subtitle(spec).includes(
      "resolved nothing (no ratio, counted as unbounded): a 5 of 2000, b 137 of 2000.",
    ),
    subtitle(spec),
  );
  // Without intervals the figure has no bars and says nothing of them.
  assert.equal(rowsWith(efficiencyPlot(summarizeAgents(rows)), "unbounded").length, 0);
});
