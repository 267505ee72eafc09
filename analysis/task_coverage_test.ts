import { deepEqual, equal } from "node:assert/strict";
import { CensoringPolicy, Episode, Plan } from "./schema/records.ts";
import { planDenominator, taskCoverage, taskListDenominator } from "./task_coverage.ts";

const POLICY = CensoringPolicy.parse({});

function row(agent_id: string, task_id: string, fields: Record<string, unknown> = {}): Episode {
  return Episode.parse({
    run_id: "r",
    agent_id,
    task_id,
    seed: null,
    resolved: true,
    prompt_tokens: null,
    completion_tokens: null,
    tool_calls: null,
    wall_ms: null,
    price_table_id: "none",
    ...fields,
  });
}

const TEN = Array.from({ length: 10 }, (_, i) => `t${i + 1}`);

Deno.test("taskCoverage(): a missing task counts as not resolved in the planned score, per agent", () => {
  // a: all 10 tasks, 7 resolved. b: 8 rows (t9, t10 missing), 6 resolved, one of them invalid.
  const rows = [
    ...TEN.map((t, i) => row("a", t, { resolved: i < 7 })),
    ...TEN.slice(0, 8).map((t, i) =>
      i === 7
        ? row("b", t, { status: "invalid", resolved: null, invalid_reason: "harness_error" })
        : row("b", t, { resolved: i < 6 })
    ),
  ];
  const [a, b] = taskCoverage(
    rows,
    taskListDenominator({
      schema_version: 1,
      tasks: TEN.map((task_id) => ({ task_id, lane: "default" })),
      attempts_per_task: 1,
      sources: [],
    }),
    POLICY,
  );
  deepEqual(
    [a.planned, a.rows, a.missing, a.missing_rate, a.resolved, a.score_planned, a.claim],
    [10, 10, 0, 0, 7, 0.7, "headline"],
  );
  // b: 2 of 10 missing is 20% > 10%; 6 resolved of 10 planned (the invalid t8 is not resolved).
  deepEqual(
    [
      b.planned,
      b.rows,
      b.missing,
      b.missing_rate,
      b.missing_tasks,
      b.resolved,
      b.score_planned,
      b.claim,
    ],
    [10, 8, 2, 0.2, ["t9", "t10"], 6, 0.6, "budget_adequacy_only"],
  );
});

Deno.test("taskCoverage(): epochs are slots; the first scored row of a slot decides, never the best", () => {
  const list = {
    schema_version: 1 as const,
    tasks: [{ task_id: "x", lane: "default" }, { task_id: "y", lane: "default" }],
    attempts_per_task: 2,
    sources: [],
  };
  const rows = [
    row("m", "x", { attempt: 1, resolved: false }),
    row("m", "x", { attempt: 2, resolved: true }),
    row("m", "y", { attempt: 1, resolved: true }),
    row("m", "y", { attempt: 3, resolved: true }), // epoch 3 of 2: unplanned
    row("m", "z", { attempt: 1, resolved: true }), // not in the list
  ];
  const [m] = taskCoverage(rows, taskListDenominator(list), POLICY);
  // 4 slots: x#1 fail, x#2 pass, y#1 pass, y#2 missing.
  deepEqual(
    [m.planned, m.missing, m.missing_tasks, m.resolved, m.score_planned, m.unplanned_rows],
    [4, 1, ["y"], 2, 0.5, 2],
  );
  // With one attempt per task a rerun fills the same slot: an invalid attempt then a failure.
  const one = { ...list, attempts_per_task: 1 };
  const [r] = taskCoverage(
    [
      row("m", "x", {
        attempt: 1,
        status: "invalid",
        resolved: null,
        invalid_reason: "harness_error",
      }),
      row("m", "x", { attempt: 2, resolved: false }),
      row("m", "x", { attempt: 3, resolved: true }),
    ],
    taskListDenominator(one),
    POLICY,
  );
  // x's first scored row (attempt 2) failed; y is missing: 0 of 2.
  deepEqual([r.planned, r.missing, r.resolved, r.score_planned], [2, 1, 0, 0]);
});

Deno.test("planDenominator(): a planned agent without rows is wholly missing; SPRT scope from validation", () => {
  const plan = Plan.parse({
    plan_id: "p",
    tasks: TEN.slice(0, 4).map((task_id) => ({ task_id })),
    agents: [{ agent_id: "ghost" }, { agent_id: "a" }],
  });
  const [a, ghost] = taskCoverage([row("a", "t1")], planDenominator(plan, null), POLICY);
  deepEqual([
    a.agent_id,
    a.missing,
    ghost.agent_id,
    ghost.missing,
    ghost.missing_rate,
    ghost.score_planned,
  ], [
    "a",
    3,
    "ghost",
    4,
    1,
    0,
  ]);
  // Under SPRT an agent decided at its second task was to attempt only two.
  const denominator = { ...planDenominator(plan, null), tasks_in_scope: new Map([["a", 2]]) };
  const [scoped] = taskCoverage([row("a", "t1")], denominator, POLICY);
  deepEqual([scoped.planned, scoped.missing, scoped.score_planned], [2, 1, 0.5]);
  equal(planDenominator(plan, null).tasks_in_scope, undefined);
});

Deno.test("taskCoverage(): rows past an SPRT decision extend what was planned", () => {
  const plan = Plan.parse({ plan_id: "p", tasks: TEN.map((task_id) => ({ task_id })) });
  // Decided at the 2nd task, but rows go on to the 6th with the 5th missing.
  const rows = ["t1", "t2", "t3", "t4", "t6"].map((t) => row("a", t));
  const denominator = { ...planDenominator(plan, null), tasks_in_scope: new Map([["a", 2]]) };
  const [a] = taskCoverage(rows, denominator, POLICY);
  deepEqual([a.planned, a.missing, a.missing_tasks, a.resolved], [6, 1, ["t5"], 5]);
});
