import assert from "node:assert/strict";
import { Plan } from "../schema/records.ts";
import { ledgerFigures } from "./ledger_figures.ts";
import { row, sampleRows } from "./_spec_for_test.ts";
import { perResolvedUncertainty } from "../per_resolved_uncertainty.ts";
import { assembleFigures } from "./assemble_figures.ts";
import { summarizeAgents } from "../summarize_agents.ts";
import { comparisonMatrix } from "../compare_agents.ts";
import { censoringSummary } from "../censoring.ts";
import { rateInterval } from "../rate_interval.ts";
import { canonicalJson } from "../canonical_json.ts";

const PLAN = new URL("../../ledgers/examples/synthetic_plan.json", import.meta.url).pathname;

Deno.test("ledgerFigures() builds the seed-001 sample's figures in the report's order", async () => {
  const rows = await sampleRows();
  // No plan: no SPRT figures unless asked; no pilot unless given.
  assert.deepEqual(ledgerFigures(rows).map((f) => [f.name, f.builder]), [
    ["forest", "forestPlot"],
    ["efficiency", "efficiencyPlot"],
    ["stop_reasons", "stopReasonsPlot"],
    ["cost_frontier", "costFrontierPlot"],
  ]);
  const all = ledgerFigures(rows, {
    sprtAgents: ["a", "b"],
    calibration: { trials: 200, rates: [0.5] },
    pilot: { tasks: 28, budget: 300_000 },
  });
  assert.deepEqual(all.map((f) => f.name), [
    "forest",
    "efficiency",
    "stop_reasons",
    "cost_frontier",
    "sprt_calibration",
    "sprt_path_a",
    "sprt_path_b",
    "pilot_projection",
  ]);
  // The default pilot is every scored episode's tokens: 8 episodes of the sample.
  const pilot = all.find((f) => f.name === "pilot_projection")!;
  assert.match(JSON.stringify(pilot.spec), /from 8 pilot episodes/);
});

Deno.test("ledgerFigures() follows a plan that stops by SPRT, with unique file-safe names", () => {
  const rows = [
    row({ agent_id: "x/y", task_id: "t1" }),
    row({ agent_id: "x_y", task_id: "t1", resolved: false }),
  ];
  const plan = Plan.parse({
    plan_id: "p",
    tasks: [{ task_id: "t1" }],
    stopping: { kind: "sprt", params: { n_cap: 10 } },
    tie_band: 0.2,
  });
  const figures = ledgerFigures(rows, { plan, calibration: { trials: 100, rates: [0.5] } });
  assert.deepEqual(figures.map((f) => f.name), [
    "forest",
    "efficiency",
    "stop_reasons",
    "cost_frontier",
    "sprt_calibration",
    "sprt_path_x-y",
    "sprt_path_x_y",
  ]);
  // The plan's band and cap reach the figures.
  const text = JSON.stringify(figures);
  assert.match(text, /unless within 20%/);
  assert.match(text, /cap 10 valid results/);
  // A single agent has no pair to compare: no forest plot.
  assert.ok(!ledgerFigures([row({})]).some((f) => f.name === "forest"));
  assert.throws(() => ledgerFigures([]), {
    message: "Cannot build figures: the ledger has no rows",
  });
});

Deno.test("ledgerFigures() passes the plan's bootstrap to the efficiency and cost figures", async () => {
  const rows = await sampleRows();
  const figures = ledgerFigures(rows);
  const spec = (name: string) => JSON.stringify(figures.find((f) => f.name === name)!.spec);
  // The task-paired frontier shares of perResolvedUncertainty (seed 7, 2000 rounds): 1250
  // and 1432 of 2000 (analysis/_per_resolved_reference.py).
  assert.ok(spec("cost_frontier").includes("on the frontier in 63% of task resamples"));
  assert.ok(spec("cost_frontier").includes("on the frontier in 72% of task resamples"));
  assert.match(spec("efficiency"), /2000 rounds, seed 7/);
  // A plan's bootstrap settings reach both figures.
  const plan = Plan.parse(JSON.parse(await Deno.readTextFile(PLAN)));
  const planned = ledgerFigures(rows, { plan: { ...plan, bootstrap: { rounds: 300, seed: 11 } } });
  for (const name of ["efficiency", "cost_frontier"]) {
    const text = JSON.stringify(planned.find((f) => f.name === name)!.spec);
    assert.match(text, /300 rounds, seed 11/, name);
  }
});

Deno.test("ledgerFigures() is assembleFigures() of the analysis results", async () => {
  // The one assembly: the same inputs handed over by hand give the same figures, byte for byte.
  const rows = await sampleRows();
  const agents = summarizeAgents(rows);
  const bootstrap = { rounds: 2000, seed: 7 };
  const byHand = assembleFigures({
    agents,
    comparisons: comparisonMatrix(agents, { band: 0.1, ...bootstrap }),
    censoring: censoringSummary(rows),
    band: 0.1,
    uncertainty: perResolvedUncertainty(rows, bootstrap),
    rateIntervals: agents.map((a) => {
      const rule = rateInterval(a.resolved, a.scored, bootstrap).rule!;
      return { agent_id: a.agent_id, lower: rule.lower, upper: rule.upper };
    }),
    priceTableId: null,
  });
  assert.equal(canonicalJson(ledgerFigures(rows)), canonicalJson(byHand));
  // Withheld agents are left out of the capability figures, and the captions say so.
  const stated = assembleFigures({
    agents,
    comparisons: comparisonMatrix(agents, { band: 0.1, ...bootstrap }),
    censoring: censoringSummary(rows),
    band: 0.1,
    uncertainty: perResolvedUncertainty(rows, { ...bootstrap, frontierAgents: ["a"] }),
    rateIntervals: [],
    priceTableId: null,
    statedAgents: new Set(["a"]),
  });
  assert.deepEqual(stated.map((f) => f.name), ["efficiency", "stop_reasons", "cost_frontier"]);
  for (const figure of stated.filter((f) => f.name !== "stop_reasons")) {
    assert.match(figure.caption, /Left out, because their numbers may not be stated: "b"\./);
    assert.ok(!JSON.stringify(figure.spec).includes("b (2/4)"), figure.name);
  }
});
