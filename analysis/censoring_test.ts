import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { censoringClaim, censoringSummary } from "./censoring.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { Episode } from "./schema/records.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;
const TOLERANCE = 1e-12;

function row(fields: Record<string, unknown>): Episode {
  return Episode.parse({
    run_id: "r",
    seed: 1,
    tool_calls: 1,
    wall_ms: 1000,
    price_table_id: "p",
    ...fields,
  });
}

Deno.test("censoringSummary() pins the seed-001 sample: nothing censored, headline allowed", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const { agents, overall } = censoringSummary(rows);
  equal(agents.length, 2);
  const [a, b] = agents;
  // Seed 001: agent a resolves 3/4, agent b 2/4; no stop_reason field, so every row is completed.
  equal(a.score_all_tasks, 0.75);
  equal(a.score_completed_only, 0.75);
  equal(a.censoring_rate, 0);
  equal(a.claim, "headline");
  // Seed 001: TPR a = (2700 + 7300 + 9500 + 3800) / 3 = 23300 / 3 = 7766.67.
  equal(a.tokens, 23300);
  ok(Math.abs(a.tokens_per_success! - 7766.666666666667) < TOLERANCE);
  // Seed 001: TPR b = (1300 + 2400 + 1600 + 2200) / 2 = 7500 / 2 = 3750.
  equal(b.score_all_tasks, 0.5);
  equal(b.tokens_per_success, 3750);
  // Pooled: 5 passes over 8 rows, (23300 + 7500) / 5 = 6160 tokens per success.
  equal(overall.agent_id, "*");
  equal(overall.score_all_tasks, 0.625);
  equal(overall.tokens_per_success, 6160);
});

Deno.test("censoringSummary() pins a hand-computed capped run with invalid rows", () => {
  const rows = [
    // Agent x: 7 completed (5 passed), 3 censored (one of them passed), 1 invalid.
    ...[true, true, true, true, true, false, false].map((resolved, i) =>
      row({
        agent_id: "x",
        task_id: `c${i}`,
        resolved,
        prompt_tokens: 1000,
        completion_tokens: 500,
      })
    ),
    row({
      agent_id: "x",
      task_id: "k1",
      resolved: false,
      stop_reason: "token_cap",
      prompt_tokens: 4000,
      completion_tokens: 1000,
    }),
    row({
      agent_id: "x",
      task_id: "k2",
      resolved: true,
      stop_reason: "step_cap",
      prompt_tokens: 2000,
      completion_tokens: 1000,
    }),
    row({
      agent_id: "x",
      task_id: "k3",
      resolved: false,
      stop_reason: "rate_limited",
      prompt_tokens: 500,
      completion_tokens: 0,
    }),
    row({
      agent_id: "x",
      task_id: "v1",
      status: "invalid",
      resolved: null,
      invalid_reason: "provider_fault",
      stop_reason: "rate_limited",
      prompt_tokens: 9999,
      completion_tokens: 9999,
    }),
  ];
  const [x] = censoringSummary(rows).agents;
  deepEqual(
    { scored: x.scored, invalid: x.invalid, completed: x.completed, censored: x.censored },
    { scored: 10, invalid: 1, completed: 7, censored: 3 },
  );
  // passed = 5 completed + 1 censored (k2) = 6; 6 / 10 = 0.6.
  equal(x.passed, 6);
  equal(x.score_all_tasks, 0.6);
  // 5 / 7 = 0.714285714285714...
  ok(Math.abs(x.score_completed_only! - 5 / 7) < TOLERANCE);
  ok(Math.abs(x.score_completed_only! - 0.7142857142857143) < TOLERANCE);
  // 3 / 10 censored > 10%: budget adequacy only.
  equal(x.censoring_rate, 0.3);
  equal(x.claim, "budget_adequacy_only");
  // Scored tokens: 7 × 1500 + 5000 + 3000 + 500 = 19000 (the invalid row's 19998 is left out); 19000 / 6.
  equal(x.tokens, 19000);
  ok(Math.abs(x.tokens_per_success! - 3166.6666666666665) < TOLERANCE);
  // The invalid rate_limited row is not counted among stop reasons of scored rows.
  deepEqual(x.stop_reasons, {
    completed: 7,
    step_cap: 1,
    token_cap: 1,
    wall_cap: 0,
    rate_limited: 1,
    error: 0,
  });
});

Deno.test("censoringClaim() follows seed 003's table with an inclusive middle band", () => {
  // "under 2%": 1/51 = 0.0196... < 0.02.
  equal(censoringClaim(1 / 51), "headline");
  equal(censoringClaim(0), "headline");
  // Exactly 2% is not "under 2%": 1/50 and 2/100.
  equal(censoringClaim(1 / 50), "both_labelled");
  equal(censoringClaim(2 / 100), "both_labelled");
  // Exactly 10% is "2% to 10%", not "above 10%": 5/50.
  equal(censoringClaim(5 / 50), "both_labelled");
  // 6/50 = 12% and 11/100 are above 10%.
  equal(censoringClaim(6 / 50), "budget_adequacy_only");
  equal(censoringClaim(11 / 100), "budget_adequacy_only");
  // A stricter plan policy (0% / 5%): any censoring loses the headline.
  const strict = { headline_max: 0, labelled_max: 0.05 };
  equal(censoringClaim(0, strict), "both_labelled");
  equal(censoringClaim(0.05, strict), "both_labelled");
  equal(censoringClaim(0.06, strict), "budget_adequacy_only");
  throws(
    () => censoringClaim(Number.NaN),
    /Cannot classify censoring rate: expected a number in \[0, 1\]/,
  );
  throws(() => censoringClaim(1.5), RangeError);
});

Deno.test("censoringSummary() reports nulls, not zeros, when a denominator is empty", () => {
  const onlyInvalid = row({
    agent_id: "z",
    task_id: "t",
    status: "invalid",
    resolved: null,
    invalid_reason: "verifier_fault",
    prompt_tokens: 10,
    completion_tokens: 10,
  });
  const allCensored = row({
    agent_id: "y",
    task_id: "t",
    resolved: false,
    stop_reason: "wall_cap",
    prompt_tokens: 10,
    completion_tokens: 5,
  });
  const [y, z] = censoringSummary([onlyInvalid, allCensored]).agents;
  // y: one scored censored row, nothing completed, nothing passed.
  equal(y.agent_id, "y");
  equal(y.score_all_tasks, 0);
  equal(y.score_completed_only, null);
  equal(y.censoring_rate, 1);
  equal(y.tokens_per_success, null);
  equal(y.claim, "budget_adequacy_only");
  // z: nothing scored at all.
  equal(z.scored, 0);
  equal(z.invalid, 1);
  equal(z.score_all_tasks, null);
  equal(z.censoring_rate, null);
  equal(z.claim, null);
});

Deno.test("censoringSummary() uses the policy passed in (a plan's thresholds)", () => {
  // 1 censored out of 25 = 4%: both labelled under the default, headline under a 5% / 20% policy.
  const rows = Array.from({ length: 25 }, (_, i) =>
    row({
      agent_id: "w",
      task_id: `t${i}`,
      resolved: i % 2 === 0,
      stop_reason: i === 0 ? "error" : "completed",
      prompt_tokens: 1,
      completion_tokens: 1,
    }));
  equal(censoringSummary(rows).agents[0].claim, "both_labelled");
  const summary = censoringSummary(rows, { policy: { headline_max: 0.05, labelled_max: 0.2 } });
  equal(summary.agents[0].censoring_rate, 0.04);
  equal(summary.agents[0].claim, "headline");
  deepEqual(summary.policy, { headline_max: 0.05, labelled_max: 0.2 });
});
