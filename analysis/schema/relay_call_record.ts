/**
 * What the host relay records for each model call (issue 3, "One episode" 2):
 * the server-reported model id, usage, request fingerprint, HTTP status and
 * latency, plus why a call was refused or failed. Seed 000 requires this
 * evidence to be recorded by the host, never by the candidate.
 *
 * The record is a zod schema so that a call log written next to an episode's
 * artifact can be read back and the evidence gate re-run on it.
 *
 * @module
 */
import { z } from "zod";
import { RelayDeniedRequest, Sha256 } from "./records.ts";

export { RelayDeniedRequest };

const Count = z.number().int().nonnegative();

/**
 * Why the relay answered a model call itself instead of forwarding it:
 * `bad_request` (body too large or too slow to arrive, `stream` not a
 * boolean, `n` or `best_of` other than 1, a request of the API that could
 * not be metered such as a Responses call in the background),
 * `model_not_allowed` (a `model` other than the plan's), `provider_feature`
 * (a provider-side capability the plan does not allow: a hosted tool,
 * provider-stored state, a URL the provider would fetch; issue 21), `step_cap`,
 * `token_cap` (including a call whose output cap could cross what is left
 * of it), `unsupported` (the relay does not speak what the agent sent: a
 * body that is not a JSON object, or a model call of an API its upstream
 * does not serve, e.g. `/v1/messages` with an OpenAI upstream; counted in
 * `RelayTotals.unsupported_requests`).
 */
export const RelayRefusal = z.enum([
  "bad_request",
  "model_not_allowed",
  "provider_feature",
  "step_cap",
  "token_cap",
  "unsupported",
]);
export type RelayRefusal = z.infer<typeof RelayRefusal>;

/**
 * How a forwarded call failed: `rate_limited` (upstream 429, passed through),
 * `provider_fault` (upstream 5xx, upstream 401/403 rejecting the relay's key,
 * connection failure or timeout, or a stream that failed midway or carried an
 * `error` event), or `aborted` (the relay was closed, i.e. the runner ended
 * the episode, before the upstream answered or finished its stream; the
 * call's usage is unknown unless the stream had already delivered it).
 */
export const RelayFault = z.enum(["rate_limited", "provider_fault", "aborted"]);
export type RelayFault = z.infer<typeof RelayFault>;

/** Token usage as the server reported it. */
export const RelayUsage = z.object({ prompt_tokens: Count, completion_tokens: Count }).strict();
export type RelayUsage = z.infer<typeof RelayUsage>;

/**
 * The API's own usage counts as the server reported them, by their field
 * names: Responses `input_tokens`, `output_tokens`, `cached_tokens`,
 * `cache_write_tokens`, `reasoning_tokens`; Messages `input_tokens`,
 * `output_tokens`, `cache_creation_input_tokens`, `cache_read_input_tokens`
 * (how each maps to {@linkcode RelayUsage}: `runner/relay/api/`).
 */
export const RelayUsageDetail = z.record(z.string(), Count);
export type RelayUsageDetail = z.infer<typeof RelayUsageDetail>;

/** One model call as the relay saw it. */
export const RelayCallRecord = z.object({
  /** 1-based arrival order among the episode's model-call requests. */
  index: z.number().int().positive(),
  /** Path the agent called, e.g. `/v1/chat/completions`. */
  endpoint: z.string().min(1),
  /** True when the request reached the upstream (a "model call" of the episode). */
  forwarded: z.boolean(),
  refusal: RelayRefusal.nullable(),
  /** Status the agent saw. */
  status: z.number().int().min(100).max(599),
  /** Status the upstream sent; null when not forwarded or when no response came. */
  upstream_status: z.number().int().min(100).max(599).nullable(),
  /**
   * `model` of the upstream's JSON response, when a non-empty string; for a
   * streamed call, the first non-empty `model` of its chunks (Responses:
   * of the events' `response`; Messages: of `message_start`'s `message`).
   */
  server_model_id: z.string().min(1).nullable(),
  /**
   * The server-reported usage as prompt and completion tokens, when the
   * API's counts are non-negative integers. Chat Completions: `usage` of
   * the response, or of the last chunk carrying one (normally the final
   * chunk, with empty `choices`). Responses: `input_tokens` and
   * `output_tokens` (of the final event's response in a stream). Messages:
   * `input_tokens` + `cache_creation_input_tokens` +
   * `cache_read_input_tokens` as prompt (all billed input), `output_tokens`
   * as completion (in a stream, once `message_delta` reported them).
   */
  usage: RelayUsage.nullable(),
  /**
   * Responses and Messages calls with usage only: the API's own counts
   * behind `usage` ({@linkcode RelayUsageDetail}); absent for Chat
   * Completions and in records written before it was recorded.
   */
  usage_detail: RelayUsageDetail.optional(),
  /**
   * Tool calls the response asked the agent to run: Chat Completions, the
   * `tool_calls` of its choices (streamed: the distinct tool-call deltas
   * carrying an `id`); Responses, its tool-call output items such as
   * `function_call`; Messages, its `tool_use` content blocks.
   */
  tool_calls: Count,
  /** {@linkcode requestFingerprint} of the body; null when it was not JSON. */
  fingerprint: Sha256.nullable(),
  /**
   * Forwarded calls only: the output cap the forwarded request carried, in
   * the API's field (Chat Completions `max_completion_tokens` ??
   * `max_tokens`, Responses `max_output_tokens`, Messages `max_tokens`)
   * when a non-negative integer, else null (the request set no cap). With a plan output policy
   * (`RelayOptions.maxOutputTokens`) this is the cap after the relay applied
   * the policy. Absent for refused calls, and in records written before it
   * was recorded (optional, so they still parse).
   */
  output_cap: Count.nullable().optional(),
  /**
   * Forwarded calls under a token cap only: the bound of the call's prompt
   * tokens that the cap reserved (`prompt_token_bound.ts`). Absent without a
   * token cap and in records written before it was recorded.
   */
  prompt_bound: Count.optional(),
  /**
   * Forwarded calls under a token cap only: where `prompt_bound` came from:
   * `count`, the provider's own count of the request (Anthropic's and
   * Gemini's count endpoints); `tokenizer`, the model's published tokenizer
   * (OpenAI's); `bytes`, one token per byte of the request, which holds for
   * any text. Absent without a token cap and in records written before it
   * was recorded (their bound was a third of the bytes, which dense text
   * could pass).
   */
  prompt_bound_source: z.enum(["count", "tokenizer", "bytes"]).optional(),
  /**
   * Forwarded calls under a token cap only: true when the relay lowered the
   * call's output cap (or set one it lacked) to what was left of the token
   * cap (issue 21). Absent otherwise.
   */
  cap_lowered: z.boolean().optional(),
  /**
   * Forwarded calls only: the provider features the plan allowed and the
   * call used (`provider_features.ts`), sorted; absent when none.
   */
  provider_features: z.array(z.string().min(1)).optional(),
  /**
   * Forwarded calls only: true when the upstream may have billed the call
   * but its usage never arrived (cut off or timed out after it was sent):
   * its spend is unknown, never 0. Absent otherwise.
   */
  spend_unknown: z.boolean().optional(),
  fault: RelayFault.nullable(),
  /**
   * Upstream round trip including reading the body (for a streamed call: to
   * the end of the stream); 0 for refused calls.
   */
  latency_ms: z.number().nonnegative(),
  /**
   * Forwarded calls the agent sent without `"stream": true` and the upstream
   * answered with an event stream only: true, the relay asked for the
   * stream and answered the agent with the whole response reassembled from
   * it (issue 21: a slow answer is spend, a silent upstream a fault). Absent
   * otherwise.
   */
  reassembled: z.literal(true).optional(),
  /**
   * Calls the upstream answered with an event stream only (streamed, or
   * `reassembled`): ms from sending the request to the first bytes of the
   * stream (null when none came); absent for other calls. Optional, so
   * records written before streaming was relayed still parse.
   */
  first_byte_ms: z.number().nonnegative().nullable().optional(),
  /**
   * Short explanation for refusals and faults, and remarks on a stream (the
   * agent closed it early, chunks disagreed on the model); empty otherwise.
   */
  detail: z.string(),
}).strict();
export type RelayCallRecord = z.infer<typeof RelayCallRecord>;
