import assert from "node:assert/strict";
import { CallLog, MAX_DENIED_LOGGED } from "./call_log.ts";
import { callRecord } from "./_call_record_for_test.ts";

Deno.test("CallLog numbers arrivals, moves finished calls out of flight and sums them", () => {
  const log = new CallLog("sk-key");
  assert.deepEqual([log.arrive(), log.arrive(), log.arrive()], [1, 2, 3]);
  const first = callRecord(1);
  log.begin(first);
  assert.deepEqual(log.inFlight().map((r) => r.index), [1]);
  log.finish(first);
  log.refuse({ index: 2, endpoint: "/v1/chat/completions" }, "token_cap", 403, null, "full");
  log.finish(callRecord(3, { usage: null, fault: "aborted", spend_unknown: true }));
  log.countOther();
  assert.deepEqual(log.inFlight(), []);
  assert.deepEqual(log.records().map((r) => [r.index, r.forwarded, r.refusal]), [
    [1, true, null],
    [2, false, "token_cap"],
    [3, true, null],
  ]);
  // callRecord spends 10 + 5; the cut-off call's spend is unknown, not 0 in the record.
  assert.deepEqual(log.totals(), {
    model_calls: 2,
    refused_calls: 1,
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    tool_calls: 0,
    rate_limited_calls: 0,
    provider_faults: 0,
    aborted_calls: 1,
    spend_unknown_calls: 1,
    other_requests: 1,
    budget_requests: 0,
    denied_requests: 0,
    unsupported_requests: 0,
  });
});

Deno.test("CallLog keeps denied requests with method and target, bounded", () => {
  const log = new CallLog("sk-key");
  log.deny({ method: "HEAD", target: "/api/hello", status: 404, code: "not_found" }, true);
  log.deny({ method: "POST", target: "/v1/chat/completions", status: 429, code: "x" }, false);
  log.deny({ method: "GET", target: `/${"a".repeat(1000)}`, status: 404, code: "not_found" }, true);
  const denied = log.denied();
  assert.deepEqual(denied[0], {
    method: "HEAD",
    target: "/api/hello",
    status: 404,
    code: "not_found",
  });
  assert.equal(denied[2].target.length, 256);
  assert.deepEqual([log.totals().denied_requests, log.totals().unsupported_requests], [3, 2]);
  for (let i = 0; i < MAX_DENIED_LOGGED; i++) {
    log.deny({ method: "GET", target: "/x", status: 404, code: "not_found" }, true);
  }
  assert.equal(log.denied().length, MAX_DENIED_LOGGED);
  assert.equal(log.totals().denied_requests, MAX_DENIED_LOGGED + 3);
});

Deno.test("CallLog hands out copies", () => {
  const log = new CallLog("sk-key");
  log.finish(callRecord(1));
  log.records()[0].detail = "changed";
  assert.equal(log.records()[0].detail, "");
});
