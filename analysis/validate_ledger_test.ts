import { deepEqual, equal, ok } from "node:assert/strict";
import { lineSha256 } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { type Finding, ledgerValidator } from "./validate_ledger.ts";
import { validateLedgerFile } from "../inputs/validate_ledger_file.ts";
import { Episode, Plan } from "./schema/records.ts";

const EXAMPLES = new URL("../ledgers/examples/", import.meta.url).pathname;
const encoder = new TextEncoder();

/** Joins raw lines into a hash-chained ledger: objects get prev_sha256, strings are written as is. */
function chained(lines: (Record<string, unknown> | string)[]): string {
  let previous: string | null = null;
  const out: string[] = [];
  for (const item of lines) {
    const text = typeof item === "string"
      ? item
      : JSON.stringify({ ...item, prev_sha256: previous });
    out.push(text);
    previous = lineSha256(encoder.encode(text));
  }
  return out.join("\n") + "\n";
}

function episode(agent_id: string, task_id: string, fields: Record<string, unknown> = {}) {
  return {
    run_id: "r",
    agent_id,
    task_id,
    seed: 1,
    resolved: true,
    prompt_tokens: 100,
    completion_tokens: 50,
    tool_calls: 2,
    model_calls: 3,
    wall_ms: 1000,
    price_table_id: "p",
    ...fields,
  };
}

function invalid(
  agent_id: string,
  task_id: string,
  reason: string,
  fields: Record<string, unknown> = {},
) {
  return episode(agent_id, task_id, {
    status: "invalid",
    resolved: null,
    invalid_reason: reason,
    ...fields,
  });
}

async function validateText(text: string, plan: Plan, options = {}) {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, text);
    return { path, report: await validateLedgerFile(path, plan, options) };
  } finally {
    await Deno.remove(path);
  }
}

const PLAN = Plan.parse({
  plan_id: "hand",
  tasks: [{ task_id: "t1" }, { task_id: "t2" }, { task_id: "t3" }],
  agents: [{ agent_id: "a" }, { agent_id: "b" }],
  caps: { token_cap: 1000, step_cap: 10, wall_ms_cap: 60_000 },
  price_table_id: "p",
});

function brief(findings: Finding[]) {
  return findings.map((f) => [f.code, f.line, f.agent_id, f.task_id, f.severity]);
}

Deno.test("validateLedgerFile() lists every kind of finding in line order, then the plan's gaps", async () => {
  const text = chained([
    episode("a", "t1", { prompt_tokens: 600, completion_tokens: 300 }), // 1: clean, 900 tokens ≤ 1000
    invalid("a", "t2", "provider_fault", { stop_reason: "rate_limited" }), // 2
    episode("a", "t2", {
      attempt: 2,
      stop_reason: "token_cap",
      prompt_tokens: 700,
      completion_tokens: 500,
    }), // 3: 1200 > 1000
    episode("a", "t9"), // 4: not in the plan
    episode("c", "t1"), // 5: agent not in the plan
    episode("b", "t1", { lane: "X", price_table_id: "q" }), // 6
    episode("b", "t1", { attempt: 2, model_calls: 11, caps: { token_cap: 2000 } }), // 7: second scored, 11 > 10 steps
    invalid("b", "t2", "evidence_missing"), // 8: never rerun
    episode("a", "t3", { attempt: 4 }), // 9: max_attempts is 3
    "{not json", // 10
    episode("a", "t1"), // 11: same episode_id as line 1
    JSON.stringify({ ...episode("b", "t3"), prev_sha256: "0".repeat(64) }), // 12: tampered chain
  ]);
  const { path, report } = await validateText(text, PLAN);
  equal(report.ok, false);
  equal(report.file, path);
  equal(report.lines, 12);
  equal(report.chained, true);
  // Readable rows: 12 lines minus the malformed (10), duplicate (11) and broken-chain (12) lines.
  deepEqual([report.rows, report.scored, report.invalid, report.planned_scored], [9, 7, 2, 6]);
  deepEqual(brief(report.findings), [
    ["invalid_attempt", 2, "a", "t2", "info"],
    ["over_cap", 3, "a", "t2", "error"],
    ["unexpected_task", 4, "a", "t9", "error"],
    ["unexpected_agent", 5, "c", "t1", "error"],
    ["lane_mismatch", 6, "b", "t1", "error"],
    ["price_table_mismatch", 6, "b", "t1", "error"],
    ["duplicate_scored_attempt", 7, "b", "t1", "error"],
    ["caps_mismatch", 7, "b", "t1", "error"],
    ["over_cap", 7, "b", "t1", "error"],
    ["invalid_attempt", 8, "b", "t2", "info"],
    ["attempts_exceeded", 9, "a", "t3", "error"],
    ["malformed_json", 10, null, null, "error"],
    ["duplicate_episode_id", 11, null, null, "error"],
    ["broken_hash_chain", 12, null, null, "error"],
    ["no_scored_attempt", null, "b", "t2", "error"],
    ["missing_task", null, "b", "t3", "error"],
    ["row_count", null, null, null, "error"],
  ]);
  const at = (line: number, code: string) =>
    report.findings.find((f) => f.line === line && f.code === code)!;
  // Line 3: 700 + 500 = 1200 tokens over the plan's 1000.
  deepEqual(
    {
      field: at(3, "over_cap").field,
      message: at(3, "over_cap").message,
      episode: at(3, "over_cap").episode_id,
    },
    { field: "prompt_tokens", message: "tokens 1200 exceed token_cap 1000", episode: "r/a/t2/2" },
  );
  equal(at(7, "over_cap").message, "steps 11 exceed step_cap 10");
  equal(at(7, "caps_mismatch").field, "caps.token_cap");
  equal(at(2, "invalid_attempt").message, 'invalid attempt 1 of task "t2": "provider_fault"');
  equal(at(11, "duplicate_episode_id").field, "episode_id");
  equal(at(12, "broken_hash_chain").field, "prev_sha256");
  // Scored rows of planned agents and tasks: a t1, t2, t3 and b t1 twice = 5 of 3 × 2 = 6.
  equal(
    report.findings.at(-1)!.message,
    "5 scored rows of planned agents and tasks, the plan calls for 6 (3 tasks × 2 agents)",
  );
  deepEqual(report.finding_counts.over_cap, 2);
  // Stop reasons over the 9 readable rows: 7 completed, 1 rate_limited, 1 token_cap.
  deepEqual(report.stop_reasons, {
    completed: 7,
    step_cap: 0,
    token_cap: 1,
    wall_cap: 0,
    rate_limited: 1,
    error: 0,
  });
  deepEqual(
    report.agents.map((a) => [a.agent_id, a.planned, a.rows, a.scored, a.invalid, a.tasks_scored]),
    [
      ["a", true, 5, 4, 1, 3],
      ["b", true, 3, 2, 1, 1],
      ["c", false, 1, 1, 0, 0],
    ],
  );
});

Deno.test("validateLedgerFile() tells a gap from tasks an SPRT run never reached", async () => {
  // n_cap 2: both walks decide at their second valid result (2 passes of 2 ≥ p_adopt 0.6:
  // cap-adopt), a at t2 and b at t3.
  const plan = Plan.parse({ ...PLAN, stopping: { kind: "sprt", params: { n_cap: 2 } } });
  const text = chained([
    episode("a", "t1"),
    episode("b", "t1"),
    episode("a", "t2"),
    episode("b", "t3"), // b skipped t2: a gap before its deciding task
  ]);
  const { report } = await validateText(text, plan);
  deepEqual(brief(report.findings), [
    ["not_reached", null, "a", "t3", "info"],
    ["missing_task", null, "b", "t2", "error"],
  ]);
  equal(report.ok, false);
  // 4 scored rows ≤ 6: no row_count finding under sequential stopping.
  equal(report.finding_counts.row_count, undefined);
});

Deno.test("validateLedgerFile() takes the ledger's agents when the plan lists none (seed-001 sample)", async () => {
  const sample = `${EXAMPLES}sample_ledger.jsonl`;
  const plan = Plan.parse({
    plan_id: "seed-001",
    tasks: ["t1", "t2", "t3", "t4"].map((task_id) => ({ task_id })),
  });
  const report = await validateLedgerFile(sample, plan);
  equal(report.ok, true);
  deepEqual(report.findings, []);
  // Seed 001: 2 agents × 4 tasks, all completed (no stop_reason field: the default).
  deepEqual([report.rows, report.planned_scored, report.stop_reasons.completed, report.chained], [
    8,
    8,
    8,
    false,
  ]);
  // Seed 003's check "len(records) == planned_tasks" with a fifth planned task.
  const five = Plan.parse({ ...plan, tasks: [...plan.tasks, { task_id: "t5" }] });
  const short = await validateLedgerFile(sample, five);
  deepEqual(brief(short.findings), [
    ["missing_task", null, "a", "t5", "error"],
    ["missing_task", null, "b", "t5", "error"],
    ["row_count", null, null, null, "error"],
  ]);
});

Deno.test("validateLedgerFile() caps listed findings per code but keeps complete counts", async () => {
  const text = chained([
    invalid("a", "t1", "harness_error"),
    episode("a", "t1", { attempt: 2 }),
    invalid("b", "t1", "verifier_fault"),
    episode("b", "t1", { attempt: 2 }),
    episode("a", "t2"),
    episode("b", "t2"),
    episode("a", "t3"),
    episode("b", "t3"),
  ]);
  const { report } = await validateText(text, PLAN, { maxFindingsPerCode: 1 });
  equal(report.ok, true);
  deepEqual(brief(report.findings), [["invalid_attempt", 1, "a", "t1", "info"]]);
  deepEqual(report.finding_counts, { invalid_attempt: 2 });
  // Each agent's counts name its findings, the unlisted one of b included.
  deepEqual(report.agents.map((a) => [a.agent_id, a.finding_counts]), [
    ["a", { invalid_attempt: 1 }],
    ["b", { invalid_attempt: 1 }],
  ]);
});

Deno.test("validateLedgerFile() passes the committed synthetic ledger against its plan", async () => {
  const plan = (await loadPlan(`${EXAMPLES}synthetic_plan.json`)).value;
  const path = `${EXAMPLES}synthetic_ledger.jsonl`;
  const report = await validateLedgerFile(path, plan);
  // Independent count of invalid lines straight from the text.
  const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
  const invalidLines = lines.filter((line) => line.includes('"status":"invalid"')).length;
  equal(
    report.ok,
    true,
    JSON.stringify(report.findings.filter((f) => f.severity === "error").slice(0, 3)),
  );
  equal(report.rows, lines.length);
  equal(report.invalid, invalidLines);
  // Every planned agent scored every planned task exactly once.
  equal(report.scored, plan.tasks.length * plan.agents.length);
  equal(report.planned_scored, report.scored);
  deepEqual(report.finding_counts, { invalid_attempt: invalidLines });
  ok(report.findings.every((f) => f.code === "invalid_attempt" && f.line !== null));
});

Deno.test("validateLedgerFile() flags a resolved row without spend and a row with unmetered requests", async () => {
  // Issue 8: a Codex on the Responses API "resolved" tasks with 0 calls and 0 tokens recorded.
  const evidence = (unmetered: number) => ({
    server_model_id: "m",
    usage_source: "server",
    request_fingerprint: null,
    unmetered_requests: unmetered,
    read_requests: 0,
  });
  const text = chained([
    episode("a", "t1", { model_calls: 0, prompt_tokens: 0, completion_tokens: 0 }), // 1
    episode("a", "t2", { prompt_tokens: 0, completion_tokens: 0 }), // 2: calls, no tokens
    episode("a", "t3", { resolved: false, model_calls: 0, prompt_tokens: 0, completion_tokens: 0 }), // 3
    episode("b", "t1", { evidence: evidence(4) }), // 4
    episode("b", "t2", { evidence: evidence(0) }), // 5
    episode("b", "t3"), // 6
  ]);
  const { report } = await validateText(text, PLAN);
  const spend = report.findings.filter((f) =>
    f.code === "resolved_without_spend" || f.code === "unmetered_requests"
  );
  deepEqual(brief(spend), [
    ["resolved_without_spend", 1, "a", "t1", "error"],
    ["resolved_without_spend", 2, "a", "t2", "error"],
    ["unmetered_requests", 4, "b", "t1", "warning"],
  ]);
  deepEqual(spend.map((f) => f.field), [
    "model_calls",
    "prompt_tokens",
    "evidence.unmetered_requests",
  ]);
  equal(report.ok, false);
});

/** Runs the pure validator over in-memory rows (lines 1..n, a clean unchained scan). */
function validateRows(rows: Record<string, unknown>[], plan: Plan) {
  const validator = ledgerValidator(plan);
  rows.forEach((raw, i) => validator.add(Episode.parse(raw), i + 1));
  return validator.finish({
    file: "rows",
    sha256: "0".repeat(64),
    lines: rows.length,
    valid_rows: rows.length,
    chained: false,
    problems: [],
  });
}

const TEN_TASKS = Array.from({ length: 10 }, (_, i) => ({ task_id: `t${i + 1}` }));
const tasks = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `t${from + i}`);

Deno.test("ledgerValidator() calls tasks not reached only after the SPRT decided (seed 002 defaults)", () => {
  // Seed 002's defaults: LLR = ln 1.5 × (passes − fails) = 0.405465 per net pass, boundaries
  // ±ln 9 = ±2.197225; +5 net is 2.027326 (undecided), +6 net is 2.432790 (adopt).
  const plan = Plan.parse({
    plan_id: "sprt-defaults",
    tasks: TEN_TASKS,
    agents: [{ agent_id: "a" }, { agent_id: "b" }, { agent_id: "c" }],
    stopping: { kind: "sprt", params: {} },
  });
  const rows = [
    // a: five passes, then the ledger ends (truncated run): LLR 2.027 < 2.197, undecided
    ...tasks(1, 5).map((t) => episode("a", t)),
    // b: a fail then seven passes: net +6 first at t8, LLR 7 ln 1.5 + ln(2/3) = 2.433: adopt
    episode("b", "t1", { resolved: false }),
    ...tasks(2, 8).map((t) => episode("b", t)),
    // c: six fails, LLR −6 ln 1.5 = −2.433 ≤ −2.197: drop at t6
    ...tasks(1, 6).map((t) => episode("c", t, { resolved: false })),
  ];
  const report = validateRows(rows, plan);
  deepEqual(brief(report.findings), [
    ...tasks(6, 10).map((t) => ["missing_task", null, "a", t, "error"]),
    ...tasks(9, 10).map((t) => ["not_reached", null, "b", t, "info"]),
    ...tasks(7, 10).map((t) => ["not_reached", null, "c", t, "info"]),
  ]);
  equal(report.ok, false);
  const message = (agent: string, task: string) =>
    report.findings.find((f) => f.agent_id === agent && f.task_id === task)!.message;
  equal(
    message("a", "t6"),
    'task "t6" has no row for agent "a" (the SPRT is undecided after 5 valid results)',
  );
  equal(
    message("b", "t9"),
    'task "t9" was not reached by agent "b": the SPRT decided "adopt" at task "t8" after 8 valid results',
  );
  equal(
    message("c", "t7"),
    'task "t7" was not reached by agent "c": the SPRT decided "drop" at task "t6" after 6 valid results',
  );
  // One more pass for a (t6) decides: the rest is not reached and the ledger fits.
  const decided = validateRows([...rows, episode("a", "t6")], plan);
  equal(decided.ok, true);
  deepEqual(
    decided.findings.filter((f) => f.agent_id === "a").map((f) => f.task_id),
    tasks(7, 10),
  );
});

Deno.test("ledgerValidator() counts the cap fallback as a decision and invalid attempts as none", () => {
  // n_cap 3: pass, fail, pass is LLR ln 1.5 = 0.405 (inside ±ln 9) at n = 3 = n_cap; 2/3 ≥ 0.6 gives
  // cap-adopt at t4 (t2's invalid attempt counts neither way, seed 002), so t5 is not reached.
  const plan = Plan.parse({
    plan_id: "sprt-cap",
    tasks: TEN_TASKS.slice(0, 5),
    agents: [{ agent_id: "a" }],
    stopping: { kind: "sprt", params: { n_cap: 3 } },
    invalid_policy: "rerun-task",
  });
  const report = validateRows([
    episode("a", "t1"),
    invalid("a", "t2", "provider_fault"),
    episode("a", "t3", { resolved: false }),
    episode("a", "t4"),
  ], plan);
  deepEqual(brief(report.findings), [
    ["invalid_attempt", 2, "a", "t2", "info"],
    ["no_scored_attempt", null, "a", "t2", "error"],
    ["not_reached", null, "a", "t5", "info"],
  ]);
  equal(
    report.findings.at(-1)!.message,
    'task "t5" was not reached by agent "a": the SPRT decided "cap-adopt" at task "t4" after 3 valid results',
  );
});

Deno.test("ledgerValidator() never lets a ledger without rows fit a plan", () => {
  const empty = "the ledger has no readable rows, the plan calls for 10 task(s) per agent";
  // A plan without agents takes the ledger's agents: none, so only the row count speaks.
  const open = validateRows([], Plan.parse({ plan_id: "open", tasks: TEN_TASKS }));
  equal(open.ok, false);
  deepEqual(brief(open.findings), [["row_count", null, null, null, "error"]]);
  equal(open.findings[0].message, empty);
  // Under SPRT an empty ledger is undecided: every planned task is missing.
  const sprt = validateRows(
    [],
    Plan.parse({
      plan_id: "sprt",
      tasks: TEN_TASKS,
      agents: [{ agent_id: "a" }],
      stopping: { kind: "sprt", params: {} },
    }),
  );
  equal(sprt.ok, false);
  equal(sprt.finding_counts.missing_task, 10);
  equal(sprt.finding_counts.not_reached, undefined);
  equal(sprt.findings.at(-1)!.message, empty);
});

Deno.test("validateLedgerFile() lists shared-mode verdicts and flagged verdicts with their flags", async () => {
  const verification = (hijacks: { flag: string; path: string }[]) => ({
    verification: {
      mode: "shared",
      reward: { reward: 1 },
      reward_file: "reward.txt",
      decided_by: "the one number of reward.txt",
      hijacks,
    },
  });
  const text = chained([
    episode("a", "t1", verification([])),
    episode("a", "t2", verification([{ flag: "loader_config", path: "/etc/ld.so.preload" }])),
    episode("a", "t3"),
    episode("b", "t1"),
    episode("b", "t2"),
    episode("b", "t3"),
  ]);
  const { report } = await validateText(text, PLAN);
  equal(report.ok, true);
  deepEqual(brief(report.findings), [
    ["shared_mode_verdict", 1, "a", "t1", "info"],
    ["shared_mode_verdict", 2, "a", "t2", "info"],
    ["flagged_verdict", 2, "a", "t2", "warning"],
  ]);
  equal(
    report.findings[2].message,
    'task "t2" resolved with a hijack flag: loader_config "/etc/ld.so.preload"',
  );
});
