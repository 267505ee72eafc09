import { deepEqual, equal, ok } from "node:assert/strict";
import { loadPlan } from "./plan.ts";
import { loadPriceTable } from "./price_table.ts";
import { LedgerError, type LedgerProblem } from "../analysis/ledger_error.ts";

const EXAMPLES = new URL("../ledgers/examples/", import.meta.url).pathname;

async function problemsOf(text: string, read: (path: string) => Promise<unknown>) {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(path, text);
    await read(path);
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return {
      path,
      problems: error.problems.map((p: LedgerProblem) => [p.code, p.line, p.field]),
      first: error.problems[0],
      message: error.message,
    };
  } finally {
    await Deno.remove(path);
  }
  throw new Error("expected a LedgerError");
}

const MINIMAL = {
  plan_id: "p",
  tasks: [{ task_id: "t1", lane: "A" }, { task_id: "t2", lane: "B" }],
};

Deno.test("loadPlan() reads the committed synthetic plan with its defaults", async () => {
  const plan = (await loadPlan(`${EXAMPLES}synthetic_plan.json`)).value;
  // Seed 000's 28 tasks × 3 in 7 lanes, 4 agents, lane weights summing to 100 points.
  equal(plan.tasks.length, 84);
  equal(plan.agents.length, 4);
  equal(Object.values(plan.lane_weights).reduce((a, b) => a + b, 0), 100);
  deepEqual(plan.lane_weights, { A: 8, B: 24, C: 12, D: 20, E: 16, F: 16, G: 4 });
  equal(plan.stopping.kind, "sprt");
  equal(plan.invalid_policy, "rerun-task");
  deepEqual(plan.censoring, { headline_max: 0.02, labelled_max: 0.1 });
  // The generator's record survives (the plan schema knows the member).
  deepEqual(plan.generator, {
    script: "tools/generate_synthetic_ledger.ts",
    seed: 20260921,
  });
});

Deno.test("loadPlan() names file, line and field of each problem", async () => {
  const syntax = await problemsOf('{\n  "plan_id": "p",\n  tasks: []\n}\n', loadPlan);
  // The unquoted key, found by the scanner (V8's message names no line).
  deepEqual(syntax.problems, [["malformed_json", 3, ""]]);
  equal(syntax.first.file, syntax.path);
  equal(
    syntax.message,
    `Cannot read ${syntax.path}:3: not valid JSON: unexpected "t" (expected a key in double quotes) at column 3`,
  );

  deepEqual((await problemsOf("[1, 2]", loadPlan)).problems, [["malformed_json", 1, ""]]);

  const two = await problemsOf(
    JSON.stringify({
      plan_id: "p",
      tasks: [{ task_id: "t1" }, { task_id: "" }],
      caps: { tokens_cap: 5 },
    }),
    loadPlan,
  );
  // Every schema issue is listed, with its dotted path.
  deepEqual(two.problems, [
    ["schema_violation", 0, "tasks.1.task_id"],
    ["schema_violation", 0, "caps.tokens_cap"],
  ]);
  ok(
    two.message.includes('field "tasks.1.task_id"') && two.message.endsWith("(and 1 more)"),
    two.message,
  );

  const duplicate = await problemsOf(
    JSON.stringify({ ...MINIMAL, tasks: [...MINIMAL.tasks, { task_id: "t1", lane: "A" }] }),
    loadPlan,
  );
  deepEqual(duplicate.problems, [["schema_violation", 0, "tasks.2.task_id"]]);
  equal(duplicate.first.message, 'duplicate task "t1" (first at tasks.0)');

  const lane = await problemsOf(JSON.stringify({ ...MINIMAL, lane_weights: { A: 1 } }), loadPlan);
  deepEqual(lane.problems, [["schema_violation", 0, "tasks.1.lane"]]);
  equal(lane.first.message, 'lane "B" has no entry in "lane_weights"');

  const agents = await problemsOf(
    JSON.stringify({ ...MINIMAL, agents: [{ agent_id: "x" }, { agent_id: "x" }] }),
    loadPlan,
  );
  deepEqual(agents.problems, [["schema_violation", 0, "agents.1.agent_id"]]);

  const sprt = await problemsOf(
    JSON.stringify({
      ...MINIMAL,
      stopping: { kind: "sprt", params: { p_adopt: 0.4, p_drop: 0.6 } },
    }),
    loadPlan,
  );
  deepEqual(sprt.problems, [["schema_violation", 0, "stopping.params.p_drop"]]);

  try {
    (await loadPlan("/nonexistent/plan.json")).value;
    throw new Error("expected a LedgerError");
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    deepEqual([error.problems[0].code, error.problems[0].file], [
      "io_error",
      "/nonexistent/plan.json",
    ]);
  }
});

Deno.test("loadPriceTable() reads the committed table and refuses unknown fields", async () => {
  const table = (await loadPriceTable(`${EXAMPLES}price_table.json`)).value;
  equal(table.price_table_id, "synthetic-usd-2026-09");
  equal(table.currency, "USD");
  deepEqual(table.default_rate, { prompt_per_million: 0.5, completion_per_million: 2 });
  const unknown = await problemsOf(
    JSON.stringify({ price_table_id: "x", currency: "USD", fx: 1 }),
    loadPriceTable,
  );
  deepEqual(unknown.problems, [["schema_violation", 0, "fx"]]);
  const negative = await problemsOf(
    JSON.stringify({
      price_table_id: "x",
      currency: "USD",
      agent_rates: { a: { prompt_per_million: -1, completion_per_million: 1 } },
    }),
    loadPriceTable,
  );
  deepEqual(negative.problems, [["schema_violation", 0, "agent_rates.a.prompt_per_million"]]);
});
