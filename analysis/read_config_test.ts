import { deepEqual, equal, ok } from "node:assert/strict";
import { readPlan, readPriceTable } from "./read_config.ts";
import { LedgerError, type LedgerProblem } from "./ledger_error.ts";

const EXAMPLES = new URL("../ledgers/examples/", import.meta.url).pathname;

async function problemsOf(text: string, read: (path: string) => Promise<unknown>) {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(path, text);
    await read(path);
  } catch (error) {
    ok(error instanceof LedgerError, String(error));
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

Deno.test("readPlan() reads the committed synthetic plan with its defaults", async () => {
  const plan = await readPlan(`${EXAMPLES}synthetic_plan.json`);
  // Seed 000's 28 tasks × 3 in 7 lanes, 4 agents, lane weights summing to 100 points.
  equal(plan.tasks.length, 84);
  equal(plan.agents.length, 4);
  equal(Object.values(plan.lane_weights).reduce((a, b) => a + b, 0), 100);
  deepEqual(plan.lane_weights, { A: 8, B: 24, C: 12, D: 20, E: 16, F: 16, G: 4 });
  equal(plan.stopping.kind, "sprt");
  equal(plan.invalid_policy, "rerun-task");
  deepEqual(plan.censoring, { headline_max: 0.02, labelled_max: 0.1 });
  // The generator's record survives (the plan schema passes unknown members through).
  deepEqual((plan as Record<string, unknown>).generator, {
    script: "tools/generate_synthetic_ledger.ts",
    seed: 20260921,
  });
});

Deno.test("readPlan() names file, line and field of each problem", async () => {
  const syntax = await problemsOf('{\n  "plan_id": "p",\n  tasks: []\n}\n', readPlan);
  // V8 reports "(line 3 column 3)" for the unquoted key.
  deepEqual(syntax.problems, [["malformed_json", 3, ""]]);
  equal(syntax.first.file, syntax.path);
  ok(syntax.message.startsWith(`Cannot read ${syntax.path}:3: not valid JSON: `), syntax.message);

  deepEqual((await problemsOf("[1, 2]", readPlan)).problems, [["malformed_json", 0, ""]]);

  const two = await problemsOf(
    JSON.stringify({
      plan_id: "p",
      tasks: [{ task_id: "t1" }, { task_id: "" }],
      caps: { tokens_cap: 5 },
    }),
    readPlan,
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
    readPlan,
  );
  deepEqual(duplicate.problems, [["schema_violation", 0, "tasks.2.task_id"]]);
  equal(duplicate.first.message, 'duplicate task "t1" (first at tasks.0)');

  const lane = await problemsOf(JSON.stringify({ ...MINIMAL, lane_weights: { A: 1 } }), readPlan);
  deepEqual(lane.problems, [["schema_violation", 0, "tasks.1.lane"]]);
  equal(lane.first.message, 'lane "B" has no entry in "lane_weights"');

  const agents = await problemsOf(
    JSON.stringify({ ...MINIMAL, agents: [{ agent_id: "x" }, { agent_id: "x" }] }),
    readPlan,
  );
  deepEqual(agents.problems, [["schema_violation", 0, "agents.1.agent_id"]]);

  const sprt = await problemsOf(
    JSON.stringify({
      ...MINIMAL,
      stopping: { kind: "sprt", params: { p_adopt: 0.4, p_drop: 0.6 } },
    }),
    readPlan,
  );
  deepEqual(sprt.problems, [["schema_violation", 0, "stopping.params.p_drop"]]);

  try {
    await readPlan("/nonexistent/plan.json");
    throw new Error("expected a LedgerError");
  } catch (error) {
    ok(error instanceof LedgerError);
    deepEqual([error.problems[0].code, error.problems[0].file], [
      "io_error",
      "/nonexistent/plan.json",
    ]);
  }
});

Deno.test("readPriceTable() reads the committed table and refuses unknown fields", async () => {
  const table = await readPriceTable(`${EXAMPLES}price_table.json`);
  equal(table.price_table_id, "synthetic-usd-2026-09");
  equal(table.currency, "USD");
  deepEqual(table.default_rate, { prompt_per_million: 0.5, completion_per_million: 2 });
  const unknown = await problemsOf(
    JSON.stringify({ price_table_id: "x", currency: "USD", fx: 1 }),
    readPriceTable,
  );
  deepEqual(unknown.problems, [["schema_violation", 0, "fx"]]);
  const negative = await problemsOf(
    JSON.stringify({
      price_table_id: "x",
      currency: "USD",
      agent_rates: { a: { prompt_per_million: -1, completion_per_million: 1 } },
    }),
    readPriceTable,
  );
  deepEqual(negative.problems, [["schema_violation", 0, "agent_rates.a.prompt_per_million"]]);
});
