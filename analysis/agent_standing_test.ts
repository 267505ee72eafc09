import { deepEqual } from "node:assert/strict";
import { inMemoryLedger } from "./_ledger_for_test.ts";
import { agentStandings, assessClaims, withheldPairGroups } from "./agent_standing.ts";
import { censoringSummary } from "./censoring.ts";
import type { LedgerProblem } from "./ledger_error.ts";
import { CensoringPolicy, Episode, Plan } from "./schema/records.ts";
import { taskCoverage, taskListDenominator } from "./task_coverage.ts";

function row(agent_id: string, task_id: string, fields: Record<string, unknown> = {}): Episode {
  return Episode.parse({
    run_id: "r",
    agent_id,
    task_id,
    seed: 1,
    resolved: true,
    prompt_tokens: 10,
    completion_tokens: 5,
    tool_calls: 1,
    wall_ms: 100,
    price_table_id: "p",
    ...fields,
  });
}

const TASKS = Array.from({ length: 50 }, (_, i) => `t${i + 1}`);
const POLICY = CensoringPolicy.parse({});

Deno.test("agentStandings(): an agent with complete rows keeps its headline while one lacking rows is withheld", () => {
  // full: 50 of 50. half: 45 of 50 (10% missing: both labelled). gappy: 40 of 50 (20%).
  const rows = [
    ...TASKS.map((t) => row("full", t)),
    ...TASKS.slice(0, 45).map((t) => row("half", t)),
    ...TASKS.slice(0, 40).map((t) => row("gappy", t)),
  ];
  const coverage = taskCoverage(
    rows,
    taskListDenominator({
      schema_version: 1,
      tasks: TASKS.map((task_id) => ({ task_id, lane: "default" })),
      attempts_per_task: 1,
      sources: [],
    }),
    POLICY,
  );
  const standings = agentStandings(
    ["full", "gappy", "half"],
    censoringSummary(rows),
    coverage,
    null,
  );
  deepEqual(standings.map((s) => [s.agent_id, s.claim, s.withheld]), [
    ["full", "headline", null],
    ["gappy", "budget_adequacy_only", "missing"],
    ["half", "both_labelled", null],
  ]);
  // Without a denominator the missing claim is unknown and the censoring claim alone decides.
  deepEqual(agentStandings(["gappy"], censoringSummary(rows), null, null)[0].claim, "headline");
});

Deno.test("assessClaims(): a validation error withholds only the agent it names; missing rows withhold only the agent lacking them", () => {
  const plan = Plan.parse({
    plan_id: "p",
    tasks: TASKS.slice(0, 2).map((task_id) => ({ task_id })),
    agents: [{ agent_id: "a" }, { agent_id: "b" }, { agent_id: "c" }],
    caps: { token_cap: 100 },
  });
  const rows = [
    row("a", "t1"),
    row("a", "t2"),
    row("b", "t1", { prompt_tokens: 500 }), // over the cap
    row("b", "t2"),
    row("c", "t1"), // t2 missing
  ];
  const assess = (maxFindingsPerCode?: number, problems: LedgerProblem[] = []) =>
    assessClaims({
      recorded: { ...inMemoryLedger(rows, "l"), problems },
      rows,
      plan,
      taskList: null,
      policy: POLICY,
      maxFindingsPerCode,
    });
  // c lacks t2 (1 of 2 missing): the missing rate withholds it, not the validation.
  deepEqual(assess().standings.map((s) => [s.agent_id, s.withheld, s.blocking_codes]), [
    ["a", null, []],
    ["b", "validation", ["over_cap"]],
    ["c", "missing", []],
  ]);
  // The validation counts each agent's findings, listed or not: none listed, the same standings.
  deepEqual(
    assess(0).standings.map((s) => [s.agent_id, s.withheld, s.blocking_codes]),
    assess().standings.map((s) => [s.agent_id, s.withheld, s.blocking_codes]),
  );
  // A finding that names no agent (a line the reader refused) withholds every agent, listed or not.
  const refused: LedgerProblem = {
    code: "malformed_json",
    file: "l",
    line: 6,
    field: "",
    message: "not JSON",
  };
  for (const limit of [undefined, 0]) {
    deepEqual(assess(limit, [refused]).standings.map((s) => s.withheld), [
      "validation",
      "validation",
      "validation",
    ]);
  }
});

Deno.test("withheldPairGroups(): 14 agents, 91 pairs: one group per cause, each pair counted once", () => {
  const agents = Array.from({ length: 14 }, (_, i) => `m${String(i).padStart(2, "0")}`);
  const pairs: [string, string][] = [];
  for (let i = 0; i < agents.length; i++) {
    for (let j = i + 1; j < agents.length; j++) pairs.push([agents[i], agents[j]]);
  }
  const standing = (agent_id: string) => ({
    agent_id,
    withheld: agent_id === "m03"
      ? "missing" as const
      : agent_id === "m07"
      ? "censoring" as const
      : null,
    claim: null,
    invalid_claim: null,
    censoring_claim: null,
    missing_claim: null,
    blocking_codes: [],
  });
  const groups = withheldPairGroups(pairs, agents.map(standing));
  // m07's 13 pairs are censoring (censoring comes before missing, so m03-m07 is one of them);
  // m03's other 12 pairs are missing; 91 - 25 = 66 pairs are stated.
  deepEqual(groups, [
    { cause: "censoring", agents: ["m07"], pairs: 13 },
    { cause: "missing", agents: ["m03"], pairs: 12 },
  ]);
});

Deno.test("assessClaims() leaves a task left out of formal scores out of the denominator: neither planned nor missing", () => {
  const scored = row("a", "t1");
  const plan = Plan.parse({
    plan_id: "p",
    tasks: [{ task_id: "t1" }, { task_id: "essay" }],
    agents: [{ agent_id: "a" }],
  });
  const recorded = {
    file: "l.jsonl",
    sha256: "0".repeat(64),
    lines: 1,
    valid_rows: 1,
    chained: false,
    problems: [],
    rows: [scored],
    row_lines: [1],
  };
  const inputs = {
    recorded,
    rows: [scored],
    plan,
    taskList: null,
    policy: CensoringPolicy.parse({}),
  };
  // Without the rule, "essay" (whose rows an uncalibrated judge decided) is missing.
  const counted = assessClaims(inputs).coverage![0];
  deepEqual([counted.planned, counted.missing], [2, 1]);
  const { coverage, denominator } = assessClaims({
    ...inputs,
    leftOut: [{ task_id: "essay", rows: 1, reason: "judged by an uncalibrated LLM judge" }],
  });
  deepEqual([coverage![0].planned, coverage![0].missing], [1, 0]);
  deepEqual(denominator?.task_ids, ["t1"]);
});

/** A task list of `n` tasks named t1..tn. */
function taskList(n: number) {
  return {
    schema_version: 1 as const,
    tasks: TASKS.slice(0, n).map((task_id) => ({ task_id, lane: "default" })),
    attempts_per_task: 1,
    sources: [],
  };
}

/** `assessClaims` of `rows` against `plan`, else a task list of the first `n` tasks. */
function assess(rows: Episode[], n = 50, plan: Plan | null = null) {
  return assessClaims({
    recorded: inMemoryLedger(rows, "l.jsonl"),
    rows,
    plan,
    taskList: plan === null ? taskList(n) : null,
    policy: POLICY,
  });
}

const harnessError = { status: "invalid", resolved: null, invalid_reason: "harness_error" };

Deno.test("assessClaims(): an invalid rate above 10% withholds the headline (issue 23: 234 of 300 harness errors)", () => {
  // The SWE-bench Lite report's shape, scaled to 50 tasks: 11 resolved, 39 harness errors (78%).
  const rows = TASKS.map((t, i) => row("m", t, i < 11 ? {} : harnessError));
  const assessment = assess(rows);
  const [m] = assessment.standings;
  deepEqual([m.invalid_claim, m.censoring_claim, m.missing_claim, m.claim, m.withheld], [
    "budget_adequacy_only",
    "headline",
    "headline",
    "budget_adequacy_only",
    "invalid",
  ]);
  const [invalid] = assessment.invalid.agents;
  deepEqual([invalid.attempts, invalid.invalid, invalid.reasons.harness_error], [50, 39, 39]);
  deepEqual(invalid.resolved_rate_invalid_as_failures, 11 / 50);
  deepEqual(assessment.pooled, {
    claim: "budget_adequacy_only",
    withheld: "invalid",
    withheld_agents: ["m"],
  });
});

Deno.test("assessClaims(): 2% to 10% invalid needs both scores labelled; the plan's invalid_rate_policy decides", () => {
  // 3 of 50 invalid: 6%.
  const rows = TASKS.map((t, i) => row("a", t, i < 3 ? harnessError : {}));
  const [a] = assess(rows).standings;
  deepEqual([a.invalid_claim, a.claim, a.withheld], ["both_labelled", "both_labelled", null]);
  const plan = Plan.parse({
    plan_id: "p",
    tasks: TASKS.map((task_id) => ({ task_id })),
    agents: [{ agent_id: "a", image_digest: `sha256:${"a".repeat(64)}` }],
    invalid_rate_policy: { headline_max: 0.07, labelled_max: 0.2 },
  });
  const planned = assess(rows, 50, plan);
  deepEqual(planned.invalid.policy, { headline_max: 0.07, labelled_max: 0.2 });
  deepEqual(planned.standings[0].invalid_claim, "headline");
});

Deno.test("assessClaims(): the pooled claim never exceeds the weakest agent's (issue 23)", () => {
  // Two agents each missing 80% of 50 planned tasks, every row they have completed and resolved.
  const rows = [
    ...TASKS.slice(0, 10).map((t) => row("a", t)),
    ...TASKS.slice(0, 10).map((t) => row("b", t)),
  ];
  const assessment = assess(rows);
  deepEqual(assessment.standings.map((s) => s.withheld), ["missing", "missing"]);
  // The pooled censoring rate alone (0%) would allow a headline: the pooled standing does not.
  deepEqual(assessment.censoring.overall.censoring_rate, 0);
  deepEqual(assessment.pooled, {
    claim: "budget_adequacy_only",
    withheld: "missing",
    withheld_agents: ["a", "b"],
  });
  // One labelled agent beside a headline one: the pooled claim is labelled.
  const mixed = [
    ...TASKS.map((t) => row("full", t)),
    ...TASKS.map((t, i) =>
      row("capped", t, i < 3 ? { stop_reason: "token_cap", resolved: false } : {})
    ),
  ];
  const pooled = assess(mixed);
  deepEqual(pooled.censoring.overall.claim, "both_labelled");
  deepEqual(pooled.pooled, { claim: "both_labelled", withheld: null, withheld_agents: [] });
});
