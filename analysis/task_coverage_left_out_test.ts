import { deepEqual, equal } from "node:assert/strict";
import { CensoringPolicy, Episode, Plan } from "./schema/records.ts";
import {
  leaveOutTasks,
  planDenominator,
  taskCoverage,
  taskListDenominator,
} from "./task_coverage.ts";

const POLICY = CensoringPolicy.parse({});

function row(agent_id: string, task_id: string, resolved = true): Episode {
  return Episode.parse({
    run_id: "r",
    agent_id,
    task_id,
    seed: null,
    resolved,
    prompt_tokens: null,
    completion_tokens: null,
    tool_calls: null,
    wall_ms: null,
    price_table_id: "none",
  });
}

const PLAN = Plan.parse({
  plan_id: "p",
  tasks: ["t1", "essay", "t2", "t3"].map((task_id) => ({ task_id })),
  agents: [{ agent_id: "a" }],
});

Deno.test("leaveOutTasks(): a left-out task is neither planned nor missing", () => {
  // a ran t1 and t2 (essay's rows were left out of the formal rows); t3 has no row.
  const rows = [row("a", "t1"), row("a", "t2", false)];
  const [before] = taskCoverage(rows, planDenominator(PLAN, null), POLICY);
  deepEqual([before.planned, before.missing, before.missing_tasks], [4, 2, ["essay", "t3"]]);
  const denominator = leaveOutTasks(planDenominator(PLAN, null), ["essay"]);
  deepEqual(denominator.task_ids, ["t1", "t2", "t3"]);
  const [a] = taskCoverage(rows, denominator, POLICY);
  // 3 planned, t3 missing: 1 of 3; 1 resolved of 3 planned
  deepEqual(
    [a.planned, a.missing, a.missing_tasks, a.unplanned_rows, a.resolved, a.score_planned],
    [3, 1, ["t3"], 0, 1, 1 / 3],
  );
});

Deno.test("leaveOutTasks(): SPRT scope loses the left-out tasks among an agent's leading tasks", () => {
  const denominator = {
    ...planDenominator(PLAN, null),
    tasks_in_scope: new Map([["a", 2], ["b", 1], ["c", 9]]),
  };
  const out = leaveOutTasks(denominator, ["essay", "t3"]);
  // a: t1, essay -> 1; b: t1 -> 1; c: past the end (4 tasks, 2 left out) -> 7, capped later
  deepEqual([...out.tasks_in_scope!], [["a", 1], ["b", 1], ["c", 7]]);
  deepEqual(out.task_ids, ["t1", "t2"]);
  const [a] = taskCoverage([row("a", "t1")], out, POLICY);
  deepEqual([a.planned, a.missing], [1, 0]);
});

Deno.test("leaveOutTasks(): nothing to leave out returns the denominator itself", () => {
  const list = taskListDenominator({
    schema_version: 1,
    tasks: [{ task_id: "t1", lane: "default" }],
    attempts_per_task: 2,
    sources: [],
  });
  equal(leaveOutTasks(list, []), list);
  equal(leaveOutTasks(list, ["elsewhere"]), list);
  deepEqual(leaveOutTasks(list, ["t1"]), { ...list, task_ids: [] });
});
