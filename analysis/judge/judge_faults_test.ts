import { deepEqual, equal } from "node:assert/strict";
import { agentJudgeFaults } from "./judge_faults.ts";
import { agentStandings, assessClaims } from "../agent_standing.ts";
import { invalidSummary } from "../invalid_attempts.ts";
import { censoringSummary } from "../censoring.ts";
import { Episode } from "../schema/records.ts";

const SHA = "ab".repeat(32);
const POLICY = { headline_max: 0.02, labelled_max: 0.1 };

/**
 * A seed-001 minimal row of agent `agent_id`: `"pass"` or `"fail"` (scored),
 * `"fault"` (invalid `judge_fault`) or `"provider"` (invalid `provider_fault`),
 * with a calibrated judge record when `judged`.
 */
function row(agent_id: string, task_id: string, kind: string, judged = true): Episode {
  const invalid = kind === "fault" || kind === "provider";
  return Episode.parse({
    run_id: "r1",
    agent_id,
    task_id,
    seed: 1,
    status: invalid ? "invalid" : "scored",
    resolved: invalid ? null : kind === "pass",
    invalid_reason: kind === "fault"
      ? "judge_fault"
      : kind === "provider"
      ? "provider_fault"
      : null,
    prompt_tokens: 100,
    completion_tokens: 20,
    tool_calls: 3,
    wall_ms: 1000,
    price_table_id: "p1",
    ...(judged
      ? {
        judge: {
          rubric_id: "essay",
          rubric_sha256: SHA,
          model: "judge-model",
          calibrated: true,
          max_attempts: 2,
          attempts: [],
          scores: null,
          total: kind === "pass" ? 80 : kind === "fail" ? 20 : null,
          pass_threshold: 60,
          passed: kind === "pass" ? true : kind === "fail" ? false : null,
          prompt_tokens: 500,
          completion_tokens: 40,
          model_calls: kind === "provider" ? 1 : 2,
          evidence: null,
        },
      }
      : {}),
  });
}

/** `n` rows of one kind, tasks `<prefix>0`, `<prefix>1`, ... */
function rows(agent: string, prefix: string, kind: string, n: number, judged = true): Episode[] {
  return Array.from({ length: n }, (_, i) => row(agent, `${prefix}${i}`, kind, judged));
}

Deno.test("agentJudgeFaults() holds each agent's judge-fault rate to the censoring thresholds", () => {
  const ledger = [
    // 50 judged rows, none a fault: under 2%, a headline.
    ...rows("clean", "j", "pass", 30),
    ...rows("clean", "k", "fail", 20),
    // 49 judged rows scored and 1 fault: 1/50 = 2%, the labelled band (both bounds inclusive).
    ...rows("edge", "j", "pass", 40),
    ...rows("edge", "k", "fail", 9),
    ...rows("edge", "f", "fault", 1),
    // 10 judged rows, 2 faults: 20%, above 10%. A provider fault is the harness's: in neither count.
    ...rows("farmer", "j", "pass", 6),
    ...rows("farmer", "k", "fail", 2),
    ...rows("farmer", "f", "fault", 2),
    ...rows("farmer", "p", "provider", 3),
    // Program-verified rows count in the resolved rates, never in the judged rows.
    ...rows("farmer", "t", "pass", 4, false),
    // No judged row: no entry.
    ...rows("unjudged", "t", "pass", 3, false),
  ];
  const faults = agentJudgeFaults(ledger, POLICY);
  deepEqual(
    faults.map((f) => [
      f.agent_id,
      f.judged,
      f.judge_faults,
      f.judge_fault_rate,
      f.claim,
      f.scored,
      f.resolved,
      f.resolved_rate_faults_as_failures,
    ]),
    [
      ["clean", 50, 0, 0, "headline", 50, 30, 30 / 50],
      ["edge", 50, 1, 1 / 50, "both_labelled", 49, 40, 40 / 50],
      // 10 of 12 scored rows resolved (6 judged + 4 program-verified); with the 2 faults as
      // failures, 10 of 14.
      ["farmer", 10, 2, 2 / 10, "budget_adequacy_only", 12, 10, 10 / 14],
    ],
  );
});

Deno.test("agentJudgeFaults(): farming faults never raises the lower bound", () => {
  // The same agent twice: its 5 failing judged answers as failures, or as judge faults.
  const honest = [...rows("a", "j", "pass", 45), ...rows("a", "k", "fail", 5)];
  const farmed = [...rows("a", "j", "pass", 45), ...rows("a", "k", "fault", 5)];
  const [h] = agentJudgeFaults(honest, POLICY);
  const [f] = agentJudgeFaults(farmed, POLICY);
  // Left out of the score, the faults would lift the resolved rate from 45/50 to 45/45 ...
  deepEqual([h.resolved / h.scored, f.resolved / f.scored], [0.9, 1]);
  // ... but the lower bound that counts them as failures is the honest rate, and the 10% rate
  // puts the farmer in the labelled band, where that bound must be stated.
  deepEqual([h.resolved_rate_faults_as_failures, f.resolved_rate_faults_as_failures], [0.9, 0.9]);
  deepEqual([h.claim, f.claim], ["headline", "both_labelled"]);
});

Deno.test("agentStandings(): a judge-fault rate above 10% withholds the agent, 2% to 10% labels it", () => {
  const ledger = [
    ...rows("edge", "j", "pass", 40),
    ...rows("edge", "k", "fail", 9),
    ...rows("edge", "f", "fault", 1),
    ...rows("farmer", "j", "pass", 8),
    ...rows("farmer", "f", "fault", 2),
    ...rows("plain", "t", "pass", 3, false),
  ];
  const censoring = censoringSummary(ledger, { policy: POLICY });
  const standings = agentStandings(
    ["edge", "farmer", "plain"],
    censoring,
    null,
    null,
    agentJudgeFaults(ledger, POLICY),
    invalidSummary(ledger, POLICY),
  );
  deepEqual(standings.map((s) => [s.agent_id, s.judge_fault_claim, s.claim, s.withheld]), [
    ["edge", "both_labelled", "both_labelled", null],
    ["farmer", "budget_adequacy_only", "budget_adequacy_only", "judge_faults"],
    // Without judged rows the standing has no judge_fault_claim (its bytes are unchanged).
    ["plain", undefined, "headline", null],
  ]);
  equal("judge_fault_claim" in standings[2], false);
  // assessClaims() makes the same call on the rows it is given.
  const assessed = assessClaims({
    recorded: { rows: ledger, row_lines: ledger.map((_, i) => i + 1) } as never,
    rows: ledger,
    plan: null,
    taskList: null,
    policy: POLICY,
  });
  deepEqual(assessed.standings, standings);
  deepEqual(assessed.judge_faults.map((f) => f.agent_id), ["edge", "farmer"]);
});
