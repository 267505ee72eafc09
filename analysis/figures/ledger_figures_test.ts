import assert from "node:assert/strict";
import { Plan } from "../schema.ts";
import { ledgerFigures } from "./ledger_figures.ts";
import { row, sampleRows } from "./_test_helpers.ts";
import { agentEpisodeSamples } from "../ratio_bootstrap.ts";
import { paretoFrontierProbability } from "../pareto_frontier.ts";

const PLAN = new URL("../../ledgers/examples/synthetic_plan.json", import.meta.url).pathname;

Deno.test("ledgerFigures() builds the seed-001 sample's figures in the issue's order", async () => {
  const rows = await sampleRows();
  // No plan: no SPRT figures unless asked; no pilot unless given.
  assert.deepEqual(ledgerFigures(rows).map((f) => [f.name, f.builder]), [
    ["forest_plot", "forestPlot"],
    ["efficiency_plot", "efficiencyPlot"],
    ["stop_reasons_plot", "stopReasonsPlot"],
    ["cost_frontier_plot", "costFrontierPlot"],
  ]);
  const all = ledgerFigures(rows, {
    sprtAgents: ["a", "b"],
    calibration: { trials: 200, rates: [0.5] },
    pilot: { tasks: 28, budget: 300_000 },
  });
  assert.deepEqual(all.map((f) => f.name), [
    "forest_plot",
    "efficiency_plot",
    "stop_reasons_plot",
    "sprt_path_plot_a",
    "sprt_path_plot_b",
    "sprt_calibration_plot",
    "pilot_projection_plot",
    "cost_frontier_plot",
  ]);
  // The default pilot is every scored episode's tokens: 8 episodes of the sample.
  const pilot = all.find((f) => f.name === "pilot_projection_plot")!;
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
    "forest_plot",
    "efficiency_plot",
    "stop_reasons_plot",
    "sprt_path_plot_x_y",
    "sprt_path_plot_x_y_2",
    "sprt_calibration_plot",
    "cost_frontier_plot",
  ]);
  // The plan's band and cap reach the figures.
  const text = JSON.stringify(figures);
  assert.match(text, /unless within 20%/);
  assert.match(text, /cap 10 valid results/);
  // A single agent has no pair to compare: no forest plot.
  assert.ok(!ledgerFigures([row({})]).some((f) => f.name === "forest_plot"));
  assert.throws(() => ledgerFigures([]), {
    message: "Cannot build figures: the ledger has no rows",
  });
});

Deno.test("ledgerFigures() passes the plan's bootstrap to the efficiency and cost figures", async () => {
  const rows = await sampleRows();
  const figures = ledgerFigures(rows);
  const spec = (name: string) => JSON.stringify(figures.find((f) => f.name === name)!.spec);
  // The frontier probability as paretoFrontierProbability gives it on the same episodes
  // (tokens, seed 7, 2000 rounds), which its own test checks against a naive version.
  const samples = agentEpisodeSamples(rows);
  const membership = paretoFrontierProbability(
    samples.map((s) => ({ agent_id: s.agent_id, costs: s.tokens!, resolved: s.resolved })),
    { rounds: 2000, seed: 7 },
  );
  for (const agent of membership.agents) {
    const share = `${(100 * agent.probability).toFixed(0)}%`;
    assert.ok(spec("cost_frontier_plot").includes(`on the frontier in ${share} of rounds`), share);
  }
  assert.match(spec("efficiency_plot"), /2000 rounds, seed 7/);
  // A plan's bootstrap settings reach both figures.
  const plan = Plan.parse(JSON.parse(await Deno.readTextFile(PLAN)));
  const planned = ledgerFigures(rows, { plan: { ...plan, bootstrap: { rounds: 300, seed: 11 } } });
  for (const name of ["efficiency_plot", "cost_frontier_plot"]) {
    const text = JSON.stringify(planned.find((f) => f.name === name)!.spec);
    assert.match(text, /300 rounds, seed 11/, name);
  }
});
