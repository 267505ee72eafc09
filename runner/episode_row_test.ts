import assert from "node:assert/strict";
import { Plan } from "../analysis/schema/records.ts";
import {
  type CandidateFacts,
  classifyEpisode,
  harnessFailureRow,
  type RowBase,
  type VerifyResult,
} from "./episode_row.ts";
import { callRecord, refusedRecord } from "./relay/_call_record_for_test.ts";

const BASE: RowBase = {
  run_id: "r",
  agent_id: "a",
  task_id: "t",
  seed: 1,
  episode_id: "r/a/t/1",
  attempt: 1,
  lane: "A",
  caps: { token_cap: null, step_cap: null, wall_ms_cap: null },
  price_table_id: "p",
  environment: null,
};

const CANDIDATE: CandidateFacts = {
  stopReason: "completed",
  exitCode: 0,
  oomKilled: false,
  wallMs: 10,
  startedAt: "2026-11-30T00:00:00.000Z",
  finishedAt: "2026-11-30T00:00:01.000Z",
  stdoutTail: "",
  artifactDigest: `sha256:${"cd".repeat(32)}`,
  artifactError: null,
};

/** A relay that refused nothing it cannot meter and passed no reads. */
const NO_SURFACE = { unmeteredRequests: 0, readRequests: 0, budgetRequests: 0 };

function plan(modelLimits?: Record<string, number | null>): Plan {
  return Plan.parse({
    plan_id: "p",
    tasks: [{ task_id: "t" }],
    ...(modelLimits === undefined ? {} : { model_limits: modelLimits }),
  });
}

Deno.test("classifyEpisode() applies the plan's model_limits before running the verifier", async () => {
  let verified = 0;
  const verify = () => {
    verified++;
    return Promise.resolve({ kind: "verdict" as const, resolved: true, failedChecks: [] });
  };
  // callRecord: 10 prompt + 5 completion tokens; sent with a cap of 4, so 5 is over it.
  const records = [callRecord(1, { output_cap: 4 })];
  const common = {
    base: BASE,
    notes: [],
    records,
    relayStop: "completed" as const,
    surface: NO_SURFACE,
    verify,
  };
  const limited = await classifyEpisode({
    ...common,
    plan: plan({ max_output_tokens: 4 }),
    candidate: CANDIDATE,
  });
  assert.deepEqual([limited.status, limited.resolved, limited.invalid_reason], [
    "invalid",
    null,
    "evidence_missing",
  ]);
  assert.equal(limited.notes, "Call 1 reports 5 completion tokens, over its output cap of 4");
  assert.deepEqual(
    [
      limited.evidence?.max_output_tokens,
      limited.evidence?.context_limit_tokens,
      limited.evidence?.max_call_tokens,
    ],
    [4, null, 15],
  );
  assert.equal(verified, 0);
  // The same call under a plan without limits is scored as today, without the limit keys.
  const plain = await classifyEpisode({ ...common, plan: plan(), candidate: CANDIDATE });
  assert.deepEqual([plain.status, plain.resolved], ["scored", true]);
  assert.deepEqual(Object.keys(plain.evidence!), [
    "server_model_id",
    "usage_source",
    "request_fingerprint",
    "unmetered_requests",
    "read_requests",
  ]);
  assert.equal(verified, 1);
});

Deno.test("harnessFailureRow() records the plan's model_limits in the evidence it has", () => {
  const row = harnessFailureRow(BASE, {
    notes: [],
    records: [callRecord(1, { output_cap: 8 })],
    error: new Error("engine gone"),
    wallMs: 5,
    startedAt: "2026-11-30T00:00:00.000Z",
    modelLimits: { max_output_tokens: 8, context_limit_tokens: 100 },
  });
  assert.deepEqual([row.status, row.invalid_reason], ["invalid", "harness_error"]);
  // 10 + 5 tokens from callRecord's usage.
  assert.deepEqual(
    [
      row.evidence?.max_output_tokens,
      row.evidence?.context_limit_tokens,
      row.evidence?.max_call_tokens,
    ],
    [8, 100, 15],
  );
});

Deno.test("classifyEpisode() makes a prompt alone over the context limit the agent's scored failure", async () => {
  let verified = 0;
  const verify = () => {
    verified++;
    return Promise.resolve({ kind: "verdict" as const, resolved: true, failedChecks: [] });
  };
  // 9000 prompt tokens against a declared 8192-token context, sent with the plan's cap of 512.
  const records = [
    callRecord(1, { output_cap: 512, usage: { prompt_tokens: 9000, completion_tokens: 1 } }),
  ];
  const row = await classifyEpisode({
    base: BASE,
    notes: [],
    records,
    relayStop: "completed",
    surface: NO_SURFACE,
    verify,
    plan: plan({ max_output_tokens: 512, context_limit_tokens: 8192 }),
    candidate: CANDIDATE,
  });
  assert.deepEqual([row.status, row.resolved, row.invalid_reason], ["scored", false, null]);
  assert.equal(verified, 0);
  assert.equal(
    row.notes,
    "prompt_over_context_limit: Call 1 sent a prompt of 9000 tokens, over the declared context limit of 8192: the agent sent a prompt the declared configuration would refuse, a scored failure",
  );
  assert.equal(row.prompt_tokens, 9000);
});

Deno.test("classifyEpisode() takes tool_calls from the relay's records, never from the agent's stdout", async () => {
  const row = await classifyEpisode({
    base: BASE,
    notes: [],
    records: [callRecord(1, { tool_calls: 2 })],
    relayStop: "completed",
    surface: NO_SURFACE,
    verify: () => Promise.resolve({ kind: "verdict", resolved: true, failedChecks: [] }),
    plan: plan(),
    candidate: { ...CANDIDATE, stdoutTail: '{"tool_calls": 999}\n' },
  });
  assert.equal(row.tool_calls, 2);
});

Deno.test("classifyEpisode() makes zero metered calls with only refused requests a scored failure", async () => {
  let verified = 0;
  const verify = () => {
    verified++;
    return Promise.resolve({ kind: "verdict" as const, resolved: true, failedChecks: [] });
  };
  const common = { base: BASE, notes: [], relayStop: "completed" as const, verify, plan: plan() };
  // Issue 21 item 6: what an agent sends is its choice; an agent whose every request the relay
  // refused (6 outside its surface, 2 over the token cap) cannot make its attempt invalid.
  const refused = await classifyEpisode({
    ...common,
    records: [refusedRecord(1, "token_cap"), refusedRecord(2, "token_cap")],
    surface: { unmeteredRequests: 6, readRequests: 1, budgetRequests: 3 },
    candidate: CANDIDATE,
  });
  assert.deepEqual([refused.status, refused.resolved, refused.invalid_reason], [
    "scored",
    false,
    null,
  ]);
  assert.equal(
    refused.notes,
    "zero metered model calls: the relay refused all 8 request(s) the agent made (6 outside " +
      "the relay's surface, 2 token_cap), a scored failure: what an agent sends is its choice " +
      "(issue 21); `ledgerbench agent check` finds an agent the relay cannot serve before a batch",
  );
  assert.deepEqual(
    [
      refused.evidence?.unmetered_requests,
      refused.evidence?.read_requests,
      refused.evidence?.budget_requests,
      refused.model_calls,
    ],
    [6, 1, 3, 0],
  );
  // Zero calls and nothing refused stays seed 000's scored failure.
  const silent = await classifyEpisode({
    ...common,
    records: [],
    surface: NO_SURFACE,
    candidate: CANDIDATE,
  });
  assert.deepEqual([silent.status, silent.resolved], ["scored", false]);
  // With a metered call, a stray refused request is only noted: it cannot make the attempt invalid.
  const stray = await classifyEpisode({
    ...common,
    records: [callRecord(1)],
    surface: { unmeteredRequests: 2, readRequests: 0, budgetRequests: 0 },
    candidate: CANDIDATE,
  });
  assert.deepEqual([stray.status, stray.resolved], ["scored", true]);
  assert.match(
    stray.notes ?? "",
    /2 request\(s\) the relay cannot meter were refused, never forwarded/,
  );
  assert.equal(verified, 1);
});

Deno.test("classifyEpisode() makes a wall cap over a call unanswered past the plan's upstream timeout a provider fault", async () => {
  let verified = 0;
  const verify = () => {
    verified++;
    return Promise.resolve({ kind: "verdict" as const, resolved: false, failedChecks: [] });
  };
  // The episode: one call the upstream accepted and never answered, cut off by
  // close() once the wall cap killed the candidate (exit 137), 0 tokens.
  const cut = (latency_ms: number) =>
    callRecord(1, {
      status: 503,
      upstream_status: null,
      server_model_id: null,
      usage: null,
      fault: "aborted",
      latency_ms,
      detail: "Aborted: the relay closed before the upstream answered",
    });
  const capped: CandidateFacts = { ...CANDIDATE, stopReason: "wall_cap", exitCode: 137 };
  const timed = Plan.parse({ plan_id: "p", tasks: [{ task_id: "t" }], upstream_timeout_ms: 1000 });
  const common = {
    base: BASE,
    notes: [],
    relayStop: "completed" as const,
    surface: NO_SURFACE,
    candidate: capped,
    verify,
  };
  const row = await classifyEpisode({ ...common, plan: timed, records: [cut(1500)] });
  assert.deepEqual(
    [row.status, row.resolved, row.invalid_reason, row.stop_reason, row.prompt_tokens],
    ["invalid", null, "provider_fault", "wall_cap", 0],
  );
  assert.equal(
    row.notes,
    "candidate exit code 137; Call 1 got no answer within the upstream timeout of 1000 ms (cut off after 1500 ms)",
  );
  assert.equal(verified, 0);
  // Before: the same episode under the default 300000 ms timeout is the agent's scored failure.
  const before = await classifyEpisode({ ...common, plan: plan(), records: [cut(1500)] });
  assert.deepEqual(
    [before.status, before.resolved, before.invalid_reason, before.stop_reason],
    ["scored", false, null, "wall_cap"],
  );
  assert.equal(verified, 1);
});

Deno.test("classifyEpisode() records the verifier's verification on verdicts and verifier faults, never on a harness error", async () => {
  const verification = {
    mode: "sealed" as const,
    reward: { correctness: 1, performance: 0.7 },
    reward_file: "reward.json" as const,
    decided_by: "min of 2 keys",
    hijacks: [],
    egress_allowed: 0,
    egress_denied: 0,
  };
  const output = { stdout_tail: "1 failed\n", stderr_tail: "" };
  const classify = (verify: () => Promise<VerifyResult>) =>
    classifyEpisode({
      base: BASE,
      plan: plan(),
      notes: [],
      records: [callRecord(1)],
      relayStop: "completed",
      surface: NO_SURFACE,
      candidate: CANDIDATE,
      verify,
    });
  const scored = await classify(() =>
    Promise.resolve({
      kind: "verdict",
      resolved: false,
      failedChecks: ["reward"],
      verification,
      output,
    })
  );
  assert.deepEqual([scored.status, scored.resolved, scored.verification], [
    "scored",
    false,
    verification,
  ]);
  // the output tails are the episode log's, never the row's
  assert.equal(JSON.stringify(scored).includes("1 failed"), false);
  const faulted = await classify(() =>
    Promise.resolve({
      kind: "fault",
      fault: "verdict_malformed",
      detail:
        'The verifier\'s reward.json has no "reward" key (keys found: correctness, performance)',
      verification: { ...verification, decided_by: null },
      output,
    })
  );
  assert.deepEqual([faulted.status, faulted.invalid_reason], ["invalid", "verifier_fault"]);
  assert.deepEqual(faulted.verification, { ...verification, decided_by: null });
  // a verifier that records nothing (the host sandbox) leaves the field absent
  const bare = await classify(() =>
    Promise.resolve({ kind: "verdict", resolved: true, failedChecks: [] })
  );
  assert.equal("verification" in bare, false);
  const harness = await classify(() => Promise.reject(new Error("engine gone")));
  assert.deepEqual([harness.invalid_reason, "verification" in harness], ["harness_error", false]);
});
