import assert from "node:assert/strict";
import { relayStopReason } from "./relay_stop_reason.ts";
import { callRecord, refusedRecord } from "./_call_record_for_test.ts";

const limited = (index: number) =>
  callRecord(index, {
    status: 429,
    upstream_status: 429,
    server_model_id: null,
    usage: null,
    fault: "rate_limited",
  });

Deno.test("relayStopReason() is completed when no budget event happened", () => {
  assert.equal(relayStopReason([callRecord(1), callRecord(2)], { tokenCap: 30 }), "completed");
  assert.equal(relayStopReason([]), "completed");
});

Deno.test("relayStopReason() reports a refusal for a cap", () => {
  assert.equal(relayStopReason([callRecord(1), refusedRecord(2, "step_cap")]), "step_cap");
  assert.equal(relayStopReason([callRecord(1), refusedRecord(2, "token_cap")]), "token_cap");
});

Deno.test("relayStopReason() treats spend above the cap as token_cap, spend at the cap as completed", () => {
  // Each callRecord spends 10 + 5 = 15 tokens: two calls spend 30.
  assert.equal(relayStopReason([callRecord(1), callRecord(2)], { tokenCap: 30 }), "completed");
  assert.equal(relayStopReason([callRecord(1), callRecord(2)], { tokenCap: 29 }), "token_cap");
  assert.equal(relayStopReason([callRecord(1), callRecord(2)], { tokenCap: null }), "completed");
});

Deno.test("relayStopReason() keeps rate_limited even after a successful retry", () => {
  assert.equal(relayStopReason([callRecord(1), limited(2), callRecord(3)]), "rate_limited");
});

Deno.test("relayStopReason() reports the first event in finishing order", () => {
  assert.equal(relayStopReason([limited(1), refusedRecord(2, "step_cap")]), "rate_limited");
  assert.equal(relayStopReason([refusedRecord(2, "step_cap"), limited(1)]), "step_cap");
});

Deno.test("relayStopReason() ignores provider faults and non-budget refusals", () => {
  const fault = callRecord(1, {
    status: 500,
    upstream_status: 500,
    usage: null,
    server_model_id: null,
    fault: "provider_fault",
  });
  assert.equal(
    relayStopReason([
      fault,
      callRecord(2, {
        status: 503,
        upstream_status: null,
        usage: null,
        server_model_id: null,
        fault: "aborted",
      }),
      refusedRecord(3, "bad_request"),
    ]),
    "completed",
  );
});
