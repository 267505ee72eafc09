import assert from "node:assert/strict";
import { compile, type TopLevelSpec } from "vega-lite";
import { compareAgents, comparisonMatrix } from "../compare_agents.ts";
import { summarizeAgents } from "../summarize_agents.ts";
import { forestPlot } from "./forest_plot.ts";
import { rowsWith, sampleRows, subtitle } from "./_spec_for_test.ts";

Deno.test("forestPlot() flags the seed-001 sample pair as overlapping with b winning on TPR", async () => {
  const agents = summarizeAgents(await sampleRows());
  const comparisons = comparisonMatrix(agents);
  const spec = forestPlot(comparisons);
  // Seed 001: "A 解决了 3/4，B 解决了 2/4 … 它们会重叠" (the intervals overlap), and B
  // spends fewer tokens per resolved (3750 vs 7766.67), so TPR decides for b.
  const [cell] = rowsWith(spec, "state", "text");
  assert.equal(rowsWith(spec, "state", "text")[0].length, 1);
  assert.equal(cell[0].state, "overlap: no rate winner");
  assert.equal(cell[0].text, "overlap\nwinner: b\nby tokens/resolved");
  assert.match(subtitle(spec), /a vs b: intervals overlap, no rate winner/);
  assert.match(subtitle(spec), /tokens per resolved 7,767 vs 3,750 tokens, 107\.1% apart/);
  assert.match(subtitle(spec), /"b" wins/);
  // Agent a's interval: bootstrapRate(3, 4) with seed 7 and 2000 rounds is [0.25, 1]
  // (the example pinned in analysis/bootstrap_rate.ts); b's bounds are the
  // comparison's own, drawn unchanged.
  const [intervals] = rowsWith(spec, "agent", "lower", "upper", "rate");
  assert.deepEqual(intervals.map((r) => r.agent), ["a (3/4)", "b (2/4)"]);
  assert.deepEqual([intervals[0].lower, intervals[0].upper, intervals[0].rate], [0.25, 1, 0.75]);
  const b = comparisons[0].b.interval!;
  assert.deepEqual([intervals[1].lower, intervals[1].upper, intervals[1].rate], [
    b.lower,
    b.upper,
    0.5,
  ]);
});

Deno.test("forestPlot() marks separated intervals and a collapsed one drawn as Wilson", () => {
  // 1/20 against 20/20: the 100% interval collapses to a point at 1 and lies
  // above the other one, so the rate decides (rule "rate_interval").
  const low = { agent_id: "low", scored: 20, resolved: 1, tpr: 1000, spr: 10 };
  const high = { agent_id: "high", scored: 20, resolved: 20, tpr: 1000, spr: 10 };
  const verdict = compareAgents(high, low);
  assert.equal(verdict.rule, "rate_interval");
  const spec = forestPlot([verdict]);
  const [cells] = rowsWith(spec, "state", "text");
  assert.equal(cells[0].state, "separated: rate winner");
  assert.equal(cells[0].text, "separated\nwinner: high\nby rate");
  const [intervals] = rowsWith(spec, "agent", "lower", "upper", "rate");
  const collapsed = intervals.find((r) => r.agent === "high (20/20)")!;
  // Wilson 95% for 20/20: lower = n / (n + z²) = 20 / (20 + 3.8415) = 0.8389 (hand computation).
  assert.ok(Math.abs((collapsed.lower as number) - 20 / (20 + 1.959963984540054 ** 2)) < 1e-12);
  assert.equal(collapsed.upper, 1);
  assert.equal(collapsed.interval, "Wilson 95% (bootstrap collapsed to a point)");
  assert.match(subtitle(spec), /intervals separated: "high" has the higher resolved rate/);
});

Deno.test("forestPlot() names agents that resolved nothing and stacks panels for four agents", () => {
  const agents = [
    { agent_id: "a", scored: 10, resolved: 5, tpr: 100, spr: 1 },
    { agent_id: "b", scored: 10, resolved: 6, tpr: 100, spr: 1 },
    { agent_id: "c", scored: 10, resolved: 0, tpr: null, spr: null },
    { agent_id: "d", scored: 10, resolved: 4, tpr: 105, spr: 1.05 },
  ];
  const comparisons = comparisonMatrix(agents);
  const spec = forestPlot(comparisons);
  assert.ok("vconcat" in spec && !("hconcat" in spec));
  // From four agents on (issue 25): a compact matrix of every ordered pair, one symbol each,
  // rows by resolved rate (b 6/10, a 5/10, d 4/10, c 0/10), numbered as the columns.
  const [cells] = rowsWith(spec, "state", "symbol");
  assert.equal(cells.length, 12); // 4 agents: 4·3 ordered pairs
  assert.deepEqual([...new Set(cells.map((c) => c.row))].sort(), [
    "1. b (6/10)",
    "2. a (5/10)",
    "3. d (4/10)",
    "4. c (0/10)",
  ]);
  const [forest] = rowsWith(spec, "agent", "counts");
  assert.deepEqual(forest.map((r) => r.agent_id), ["b", "a", "d", "c"]);
  const unranked = cells.filter((c) => c.state === "not ranked: nothing resolved");
  assert.equal(unranked.length, 6); // every pair with c, from both sides
  for (const cell of unranked) assert.equal(cell.symbol, "∅");
  // a, b and d overlap (5/10, 6/10, 4/10) and differ by at most 5% on TPR (100,
  // 100, 105) and SPR (1, 1, 1.05), inside the 10% band: the 3 pairs are ties.
  const ties = cells.filter((c) => c.symbol === "=");
  assert.equal(ties.length, 6);
  assert.equal(comparisons.filter((c) => c.rule === "tie").length, 3);
  // Each cell's tooltip carries its pair's verdict sentence and both full ids.
  assert.ok(cells.every((c) => typeof c.verdict === "string" && c.agent_id !== c.against));
  // A click picks agents out in both panels (issue 25 item 5): a vega-lite point selection over
  // agent_id that compiles to a selection store; with nothing picked every mark is opaque.
  const compiled = compile(spec as TopLevelSpec).spec as { data: { name: string }[] };
  assert.ok(compiled.data.some((d) => d.name === "picked_agents_store"), "selection store");
  assert.match(
    JSON.stringify(spec),
    /"opacity":\{"condition":\{"param":"picked_agents","value":1\}/,
  );
  assert.match(subtitle(spec), /^.*6 pairs: \d+ overlap \(no rate winner\)/);
});

Deno.test("forestPlot() refuses an empty comparison list", () => {
  assert.throws(() => forestPlot([]), {
    name: "RangeError",
    message: "Cannot build forest plot: need at least one comparison (two agents)",
  });
});

Deno.test("forestPlot() gives the Wilson interval beside a poorly covering bootstrap, and names the plan's method", () => {
  const [a, b] = [
    { agent_id: "a", scored: 4, resolved: 3, tpr: 23300 / 3, spr: 43 },
    { agent_id: "b", scored: 4, resolved: 2, tpr: 3750, spr: 20 },
  ];
  const texts = (spec: unknown) => JSON.stringify(spec);
  // n = 4: the default method's coverage warning puts Wilson 3/4 = [30.1%, 95.4%] beside it.
  const byDefault = forestPlot([compareAgents(a, b)]);
  assert.match(
    texts(byDefault),
    /75\.0% \[25\.0%, 100\.0%\]; few episodes: Wilson \[30\.1%, 95\.4%\]/,
  );
  const byWilson = forestPlot([compareAgents(a, b, { method: "wilson" })]);
  assert.match(texts(byWilson), /bar: the plan's wilson 95% interval/);
  assert.match(texts(byWilson), /"interval":"Wilson 95%"/);
  assert.doesNotMatch(texts(byWilson), /few episodes/);
});
