/**
 * Test helper: a forwarded, successful call record with evidence, to be
 * overridden field by field.
 *
 * @module
 */
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import { requestFingerprint } from "./request_fingerprint.ts";

/**
 * A successful forwarded call: status 200, model `m-1`, usage 10 + 5 tokens,
 * fingerprint of `{"call": index}`.
 *
 * @param index The call's arrival index.
 * @param overrides Fields to replace.
 * @returns The record.
 */
export function callRecord(
  index: number,
  overrides: Partial<RelayCallRecord> = {},
): RelayCallRecord {
  return {
    index,
    endpoint: "/v1/chat/completions",
    forwarded: true,
    refusal: null,
    status: 200,
    upstream_status: 200,
    server_model_id: "m-1",
    usage: { prompt_tokens: 10, completion_tokens: 5 },
    tool_calls: 0,
    fingerprint: requestFingerprint({ call: index }),
    fault: null,
    latency_ms: 1,
    detail: "",
    ...overrides,
  };
}

/** A call the relay refused for `refusal` (never forwarded). */
export function refusedRecord(
  index: number,
  refusal: RelayCallRecord["refusal"],
): RelayCallRecord {
  return callRecord(index, {
    forwarded: false,
    refusal,
    status: refusal === "step_cap" || refusal === "token_cap" ? 403 : 400,
    upstream_status: null,
    server_model_id: null,
    usage: null,
    latency_ms: 0,
  });
}
