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
  assert.equal(relayStopReason([callRecord(1), callRecord(2)]), "completed");
  assert.equal(relayStopReason([]), "completed");
});

Deno.test("relayStopReason() reports a refusal for a cap", () => {
  assert.equal(relayStopReason([callRecord(1), refusedRecord(2, "step_cap")]), "step_cap");
  assert.equal(relayStopReason([callRecord(1), refusedRecord(2, "token_cap")]), "token_cap");
});

Deno.test("relayStopReason() is token_cap only for a call the cap shortened", () => {
  // callRecord completes 5 tokens: a lowered cap of 5 was used up, one of 6 was not.
  const shortened = callRecord(2, { output_cap: 5, cap_lowered: true });
  assert.equal(relayStopReason([callRecord(1), shortened]), "token_cap");
  const roomLeft = callRecord(2, { output_cap: 6, cap_lowered: true });
  assert.equal(relayStopReason([callRecord(1), roomLeft]), "completed");
  // The agent's own cap reached is the agent's doing, not the token cap's.
  const ownCap = callRecord(2, { output_cap: 5, cap_lowered: false });
  assert.equal(relayStopReason([callRecord(1), ownCap]), "completed");
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
