import assert from "node:assert/strict";
import { Evidence } from "../../analysis/schema/records.ts";
import { evidenceGate } from "./evidence_gate.ts";
import { combineFingerprints, requestFingerprint } from "./request_fingerprint.ts";
import { callRecord, refusedRecord } from "./_call_record_for_test.ts";

Deno.test("evidenceGate() scores an episode whose every call carries evidence", () => {
  const gate = evidenceGate([callRecord(2, { tool_calls: 3 }), callRecord(1)]);
  assert.equal(gate.status, "scored");
  assert.equal(gate.invalid_reason, null);
  assert.equal(gate.zero_calls, false);
  assert.equal(gate.model_calls, 2);
  // Two calls of 10 prompt + 5 completion tokens each.
  assert.equal(gate.prompt_tokens, 20);
  assert.equal(gate.completion_tokens, 10);
  assert.equal(gate.tool_calls, 3);
  assert.deepEqual(gate.problems, []);
  // The episode fingerprint hashes the call fingerprints in arrival order, not record order.
  assert.deepEqual(gate.evidence, {
    server_model_id: "m-1",
    usage_source: "server",
    request_fingerprint: combineFingerprints([
      requestFingerprint({ call: 1 }),
      requestFingerprint({ call: 2 }),
    ]),
  });
  assert.equal(Evidence.safeParse(gate.evidence).success, true);
});

Deno.test("evidenceGate() makes a response without usage evidence_missing", () => {
  const gate = evidenceGate([callRecord(1), callRecord(2, { usage: null })]);
  assert.equal(gate.status, "invalid");
  assert.equal(gate.invalid_reason, "evidence_missing");
  assert.equal(gate.evidence.usage_source, "absent");
  assert.deepEqual(gate.problems, [{
    index: 2,
    code: "usage_missing",
    message: 'Call 2 has no server-reported "usage"',
  }]);
  // The tokens that were reported still count.
  assert.equal(gate.prompt_tokens, 10);
});

Deno.test("evidenceGate() makes a response without a model id evidence_missing", () => {
  const gate = evidenceGate([callRecord(1, { server_model_id: null })]);
  assert.equal(gate.status, "invalid");
  assert.equal(gate.invalid_reason, "evidence_missing");
  assert.equal(gate.evidence.server_model_id, null);
  assert.equal(gate.evidence.usage_source, "server");
  assert.deepEqual(gate.problems.map((p) => p.code), ["model_missing"]);
});

Deno.test("evidenceGate() makes zero calls a scored failure, not an invalid one", () => {
  for (const records of [[], [refusedRecord(1, "bad_request"), refusedRecord(2, "bad_request")]]) {
    const gate = evidenceGate(records);
    assert.equal(gate.status, "scored");
    assert.equal(gate.invalid_reason, null);
    assert.equal(gate.zero_calls, true);
    assert.equal(gate.model_calls, 0);
    assert.deepEqual(gate.evidence, {
      server_model_id: null,
      usage_source: "server",
      request_fingerprint: null,
    });
  }
});

Deno.test("evidenceGate() joins several model ids, sorted", () => {
  const gate = evidenceGate([
    callRecord(1, { server_model_id: "zeta-2" }),
    callRecord(2, { server_model_id: "alpha-1" }),
    callRecord(3, { server_model_id: "zeta-2" }),
  ]);
  assert.equal(gate.status, "scored");
  assert.equal(gate.evidence.server_model_id, "alpha-1,zeta-2");
});

Deno.test("evidenceGate() refuses an unexpected model id when expected ids are given", () => {
  const records = [callRecord(1), callRecord(2, { server_model_id: "m-2" })];
  assert.equal(evidenceGate(records, { expectedModelIds: ["m-1", "m-2"] }).status, "scored");
  const gate = evidenceGate(records, { expectedModelIds: ["m-1"] });
  assert.equal(gate.invalid_reason, "evidence_missing");
  assert.deepEqual(gate.problems, [{
    index: 2,
    code: "model_unexpected",
    message: 'Call 2 was served by "m-2", not an expected model',
  }]);
});

Deno.test("evidenceGate() makes a provider fault invalid, after the evidence check", () => {
  const fault = callRecord(2, {
    status: 502,
    upstream_status: null,
    server_model_id: null,
    usage: null,
    fault: "provider_fault",
    detail: "Upstream unreachable: connection refused",
  });
  const gate = evidenceGate([callRecord(1), fault, callRecord(3)]);
  assert.equal(gate.status, "invalid");
  assert.equal(gate.invalid_reason, "provider_fault");
  assert.deepEqual(gate.problems, [{
    index: 2,
    code: "provider_fault",
    message: "Call 2 failed at the provider: Upstream unreachable: connection refused",
  }]);
  // Seed 000 checks evidence first: missing usage wins over the fault.
  const both = evidenceGate([callRecord(1, { usage: null }), fault]);
  assert.equal(both.invalid_reason, "evidence_missing");
  assert.deepEqual(both.problems.map((p) => p.code), ["usage_missing", "provider_fault"]);
});

Deno.test("evidenceGate() does not invalidate a rate-limited call", () => {
  const limited = callRecord(2, {
    status: 429,
    upstream_status: 429,
    server_model_id: null,
    usage: null,
    fault: "rate_limited",
  });
  const gate = evidenceGate([callRecord(1), limited]);
  assert.equal(gate.status, "scored");
  assert.equal(gate.model_calls, 2);
  assert.equal(gate.evidence.usage_source, "server");
});

Deno.test("evidenceGate() judges a stream that failed or was cut off by its fault", () => {
  // A streamed call's upstream answered 200, then its stream failed (or the relay closed):
  // its evidence is incomplete because of the fault, which is what the gate reports.
  const streamed = { status: 200, upstream_status: 200, usage: null, first_byte_ms: 3 };
  const failed = callRecord(2, { ...streamed, fault: "provider_fault", detail: "timed out" });
  const gate = evidenceGate([callRecord(1), failed]);
  assert.equal(gate.invalid_reason, "provider_fault");
  assert.deepEqual(gate.problems.map((p) => p.code), ["provider_fault"]);
  assert.equal(gate.evidence.usage_source, "server");
  const cut = evidenceGate([callRecord(1), callRecord(2, { ...streamed, fault: "aborted" })]);
  assert.equal(cut.status, "scored");
  assert.deepEqual(cut.problems.map((p) => p.code), ["aborted"]);
  // The same stream without a fault but without usage is missing evidence.
  const bare = evidenceGate([callRecord(1), callRecord(2, streamed)]);
  assert.equal(bare.invalid_reason, "evidence_missing");
  assert.deepEqual(bare.problems.map((p) => p.code), ["usage_missing"]);
});

Deno.test("evidenceGate() makes a call cut off after the upstream timeout a provider fault", () => {
  // What the relay records for a whole call the upstream never answered when close() cut it.
  const unanswered = (latency_ms: number) =>
    callRecord(2, {
      status: 503,
      upstream_status: null,
      server_model_id: null,
      usage: null,
      fault: "aborted",
      latency_ms,
      detail: "Aborted: the relay closed before the upstream answered",
    });
  // Waited 2000 ms, the plan's timeout 2000 ms: at the timeout is past it.
  const waited = evidenceGate([callRecord(1), unanswered(2000)], { upstreamTimeoutMs: 2000 });
  assert.equal(waited.status, "invalid");
  assert.equal(waited.invalid_reason, "provider_fault");
  assert.deepEqual(waited.problems, [{
    index: 2,
    code: "provider_fault",
    message: "Call 2 got no answer within the upstream timeout of 2000 ms (cut off after 2000 ms)",
  }]);
  // Tokens are those of call 1 only: the cut-off call's usage is unknown.
  assert.deepEqual([waited.prompt_tokens, waited.completion_tokens], [10, 5]);
  // Cut off 1 ms sooner: the agent's wall cap fell first; listed, not invalidating.
  const sooner = evidenceGate([callRecord(1), unanswered(1999)], { upstreamTimeoutMs: 2000 });
  assert.equal(sooner.status, "scored");
  assert.deepEqual(sooner.problems.map((p) => p.code), ["aborted"]);
  // Without a plan timeout the relay's default of 300000 ms applies.
  assert.equal(evidenceGate([unanswered(299_999)]).status, "scored");
  assert.equal(evidenceGate([unanswered(300_000)]).invalid_reason, "provider_fault");
});

/** A plan's `model_limits`: output cap 8 tokens, context limit 20 tokens. */
const LIMITS = { max_output_tokens: 8, context_limit_tokens: 20 };

Deno.test("evidenceGate() scores calls within the plan's output cap and context limit", () => {
  // callRecord: 10 prompt + 5 completion tokens; sent with the cap the relay applied (8), or a
  // smaller one the agent chose (5, equal to the completion: the bound is inclusive).
  const records = [
    callRecord(1, { output_cap: 8 }),
    callRecord(2, { output_cap: 5, usage: { prompt_tokens: 12, completion_tokens: 5 } }),
  ];
  const gate = evidenceGate(records, { modelLimits: LIMITS });
  assert.equal(gate.status, "scored");
  assert.equal(gate.invalid_reason, null);
  assert.deepEqual(gate.problems, []);
  assert.deepEqual(gate.evidence, {
    ...evidenceGate(records).evidence,
    max_output_tokens: 8,
    context_limit_tokens: 20,
    // max(10 + 5, 12 + 5); 17 <= 20 is also the context check's bound.
    max_call_tokens: 17,
  });
  assert.equal(Evidence.safeParse(gate.evidence).success, true);
});

Deno.test("evidenceGate() makes completion tokens over the call's cap evidence_missing", () => {
  const over = callRecord(2, { output_cap: 4 }); // 5 completion tokens against a cap of 4
  const gate = evidenceGate([callRecord(1, { output_cap: 8 }), over], { modelLimits: LIMITS });
  assert.equal(gate.status, "invalid");
  assert.equal(gate.invalid_reason, "evidence_missing");
  assert.deepEqual(gate.problems, [{
    index: 2,
    code: "output_policy_unproven",
    message: "Call 2 reports 5 completion tokens, over its output cap of 4",
  }]);
  // The tokens still count, and the row still records what was served.
  assert.equal(gate.completion_tokens, 10);
  assert.equal(gate.evidence.max_call_tokens, 15);
});

Deno.test("evidenceGate() makes a call sent without the plan's cap, or with a larger one, unproven", () => {
  const gate = evidenceGate([
    callRecord(1), // a record without output_cap (written before it was recorded)
    callRecord(2, { output_cap: null }),
    callRecord(3, { output_cap: 9 }),
  ], { modelLimits: { max_output_tokens: 8, context_limit_tokens: null } });
  assert.equal(gate.invalid_reason, "evidence_missing");
  assert.deepEqual(gate.problems.map((p) => p.message), [
    "Call 1 was sent without an output cap; the plan's is 8",
    "Call 2 was sent without an output cap; the plan's is 8",
    "Call 3 was sent with output cap 9, over the plan's 8",
  ]);
  assert.deepEqual(gate.problems.map((p) => p.code), Array(3).fill("output_policy_unproven"));
  assert.equal(gate.evidence.context_limit_tokens, null);
});

Deno.test("evidenceGate() makes prompt + completion over the context limit evidence_missing", () => {
  // 16 + 5 = 21 tokens served against a declared 20-token context.
  const over = callRecord(2, { output_cap: 8, usage: { prompt_tokens: 16, completion_tokens: 5 } });
  const gate = evidenceGate([callRecord(1, { output_cap: 8 }), over], { modelLimits: LIMITS });
  assert.equal(gate.status, "invalid");
  assert.equal(gate.invalid_reason, "evidence_missing");
  assert.deepEqual(gate.problems, [{
    index: 2,
    code: "context_limit_unproven",
    message: "Call 2 reports 21 prompt + completion tokens, over the declared context limit of 20",
  }]);
  assert.equal(gate.evidence.max_call_tokens, 21);
  // Without an output cap declared, only the context limit is checked (no cap needed on calls).
  const contextOnly = evidenceGate([callRecord(1), over], {
    modelLimits: { max_output_tokens: null, context_limit_tokens: 20 },
  });
  assert.deepEqual(contextOnly.problems.map((p) => p.code), ["context_limit_unproven"]);
  assert.equal(contextOnly.evidence.max_output_tokens, null);
});

Deno.test("evidenceGate() leaves a prompt alone over the context limit to the agent, not invalid", () => {
  // 21 prompt tokens against a declared 20-token context: the agent's doing, not missing evidence.
  const huge = callRecord(2, { output_cap: 8, usage: { prompt_tokens: 21, completion_tokens: 1 } });
  const gate = evidenceGate([callRecord(1, { output_cap: 8 }), huge], { modelLimits: LIMITS });
  assert.equal(gate.status, "scored");
  assert.equal(gate.invalid_reason, null);
  assert.deepEqual(gate.problems, []);
  assert.deepEqual(gate.agent_over_limit, [{
    index: 2,
    code: "prompt_over_context_limit",
    message: "Call 2 sent a prompt of 21 tokens, over the declared context limit of 20",
  }]);
  assert.equal(gate.evidence.max_call_tokens, 22);
  // Another call's missing evidence still makes the episode invalid.
  const mixed = evidenceGate([callRecord(1, { output_cap: 8, server_model_id: null }), huge], {
    modelLimits: LIMITS,
  });
  assert.equal(mixed.invalid_reason, "evidence_missing");
  assert.deepEqual(mixed.problems.map((p) => p.code), ["model_missing"]);
  // Exactly at the limit is within it: 20 prompt + 1 completion is the server's excess.
  const edge = callRecord(1, { output_cap: 8, usage: { prompt_tokens: 20, completion_tokens: 1 } });
  const atLimit = evidenceGate([edge], { modelLimits: LIMITS });
  assert.deepEqual(atLimit.problems.map((p) => p.code), ["context_limit_unproven"]);
  assert.deepEqual(atLimit.agent_over_limit, []);
});

Deno.test("evidenceGate() checks limits on successful calls only, and reports missing usage alone", () => {
  const failed = callRecord(2, {
    status: 500,
    upstream_status: 500,
    usage: { prompt_tokens: 100, completion_tokens: 100 },
    fault: "provider_fault",
    detail: "Upstream answered 500",
  });
  const gate = evidenceGate([callRecord(1, { output_cap: 8 }), failed], { modelLimits: LIMITS });
  assert.equal(gate.invalid_reason, "provider_fault");
  assert.deepEqual(gate.problems.map((p) => p.code), ["provider_fault"]);
  // Only successful calls count toward the largest call.
  assert.equal(gate.evidence.max_call_tokens, 15);
  const bare = evidenceGate([callRecord(1, { output_cap: 8, usage: null })], {
    modelLimits: LIMITS,
  });
  assert.deepEqual(bare.problems.map((p) => p.code), ["usage_missing"]);
  assert.equal(bare.evidence.max_call_tokens, null);
});

Deno.test("evidenceGate() records null for the largest call of a zero-call episode with limits", () => {
  const gate = evidenceGate([], { modelLimits: LIMITS });
  assert.equal(gate.status, "scored");
  assert.equal(gate.zero_calls, true);
  assert.deepEqual(gate.evidence, {
    server_model_id: null,
    usage_source: "server",
    request_fingerprint: null,
    max_output_tokens: 8,
    context_limit_tokens: 20,
    max_call_tokens: null,
  });
});

Deno.test("evidenceGate() with null limits gives exactly today's result", () => {
  // Calls that would break both limits, had any been declared.
  const records = [
    callRecord(1),
    callRecord(2, { output_cap: 1, usage: { prompt_tokens: 5000, completion_tokens: 900 } }),
    callRecord(3, { usage: null }),
  ];
  const today = evidenceGate(records);
  for (
    const modelLimits of [undefined, { max_output_tokens: null, context_limit_tokens: null }]
  ) {
    const gate = evidenceGate(records, { modelLimits });
    assert.deepEqual(gate, today);
    // Same bytes in the row: no limit keys in the evidence.
    assert.equal(JSON.stringify(gate.evidence), JSON.stringify(today.evidence));
  }
  assert.deepEqual(Object.keys(today.evidence), [
    "server_model_id",
    "usage_source",
    "request_fingerprint",
  ]);
});
