/**
 * Seed 000's evidence gate ("证据门禁", BenchmarkProviderEvidenceGate) as a
 * pure function of the relay's call records: decides whether an episode can
 * be scored at all, before anyone looks at the verifier's verdict.
 *
 * @module
 */
import {
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  type EpisodeStatus,
  type Evidence,
  type InvalidReason,
  type ModelLimits,
} from "../../analysis/schema/records.ts";
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import { combineFingerprints } from "./request_fingerprint.ts";

/** Options of {@linkcode evidenceGate}. */
export interface EvidenceGateOptions {
  /**
   * The model ids the episode may be served by. When given, a successful call
   * whose server-reported id is not in the list leaves the model identity
   * unproven (`model_unexpected`, an evidence problem). Absent: any id counts.
   */
  expectedModelIds?: readonly string[];
  /**
   * The plan's `model_limits` (seed 000's output policy and context limit).
   * Absent, or both limits null: neither is checked nor recorded.
   */
  modelLimits?: ModelLimits;
  /**
   * The relay's upstream timeout per call in ms (the plan's
   * `upstream_timeout_ms`); absent: `DEFAULT_UPSTREAM_TIMEOUT_MS`. A call cut
   * off by the relay closing after waiting at least this long was never
   * answered in time: a provider fault (rule 3 of {@linkcode evidenceGate}).
   */
  upstreamTimeoutMs?: number;
}

/** One reason the gate found, tied to the call it came from. */
export interface EvidenceProblem {
  /** The call's `index` (arrival order). */
  index: number;
  code:
    | "model_missing"
    | "usage_missing"
    | "model_unexpected"
    | "output_policy_unproven"
    | "context_limit_unproven"
    | "prompt_over_context_limit"
    | "provider_fault"
    | "aborted";
  message: string;
}

/** The gate's decision, shaped to be copied into the episode row. */
export interface EvidenceGateResult {
  /** `invalid` when evidence is missing or the provider failed; else `scored`. */
  status: EpisodeStatus;
  /** `evidence_missing`, `provider_fault`, or null when scored. */
  invalid_reason: InvalidReason | null;
  /**
   * True when no call was forwarded: the episode is a scored failure
   * (`resolved` false) whatever the verifier says.
   */
  zero_calls: boolean;
  evidence: Evidence;
  /** Forwarded model calls. */
  model_calls: number;
  /** Sums of server-reported usage over forwarded calls. */
  prompt_tokens: number;
  completion_tokens: number;
  /** Tool calls the model asked for. */
  tool_calls: number;
  /** Everything the gate found, evidence problems first, then faults, each in call order. */
  problems: EvidenceProblem[];
  /**
   * Calls whose server-reported `prompt_tokens` alone passed the plan's
   * declared context limit (`prompt_over_context_limit`): the agent sent a
   * prompt the declared configuration would refuse. Not evidence problems
   * (they do not make the episode invalid); the episode is the agent's
   * scored failure (`classifyEpisode`). Empty without a context limit.
   */
  agent_over_limit: EvidenceProblem[];
}

/**
 * Applies seed 000's evidence gate to one episode's call records.
 *
 * Rule, in the seed's order (evidence first, then call count, then call
 * success):
 * 1. Every successful forwarded call (upstream status 2xx and no fault) must
 *    carry a server-reported model id and usage (prompt and completion
 *    tokens); with `expectedModelIds`, the id must be one of them. With the
 *    plan's `modelLimits`:
 *    - output policy (`max_output_tokens` set): the call must have been
 *      sent with an output cap (`output_cap`) of at most `max_output_tokens`
 *      (the relay sees to that) and the server must report at most that
 *      cap as `completion_tokens`; else `output_policy_unproven`;
 *    - context limit (`context_limit_tokens` set): a call whose server
 *      reports more `prompt_tokens` alone than `context_limit_tokens` is the
 *      agent's doing (it sent a prompt the declared configuration would
 *      refuse, and a lenient server must not let a candidate turn its own
 *      attempt invalid): listed in `agent_over_limit` as
 *      `prompt_over_context_limit`, not an evidence problem. Otherwise the
 *      server must report at most `context_limit_tokens` as `prompt_tokens +
 *      completion_tokens` (a server that served more is not the declared
 *      configuration); else `context_limit_unproven`.
 *
 *    (A call without usage is `usage_missing` only: its token counts cannot
 *    be checked against either limit.) Any miss: `invalid`,
 *    `evidence_missing`. Calls that failed (429, 5xx, or a
 *    streamed call whose 2xx stream failed midway or was cut off by the relay
 *    closing) need no evidence: the failure is judged in 3; refused calls
 *    never reached the model.
 * 2. Zero forwarded calls: `scored` with `zero_calls` true, a scored failure,
 *    not an invalid one (seed 000: "A zero-call Candidate ... is a scored
 *    Candidate failure").
 * 3. Any `provider_fault` (upstream 5xx, key rejected, connection failure or
 *    timeout): `invalid`, `provider_fault` (the seed's PROVIDER_CALL_FAILED);
 *    the plan's invalid policy decides what happens next. Upstream 429 is not
 *    an invalidity here: it is the `rate_limited` stop reason
 *    (`relayStopReason`), reported as censoring (seed 003).
 *    A call cut off by the relay closing (`aborted`: the runner ended the
 *    episode, whose stop reason is then `wall_cap` or `error`) is listed in
 *    `problems` but does not invalidate; its unknown usage is not counted.
 *    Except: an `aborted` call whose `latency_ms` (from sending it to the
 *    cut) is at least `upstreamTimeoutMs` had waited out the upstream
 *    timeout unanswered (the relay's timer lost the race with `close()`):
 *    it is a `provider_fault` like a call the timeout ended (issue 9,
 *    item 3). An agent cannot turn its own wall-cap failure invalid by a
 *    call just before the cap: a call cut off sooner stays `aborted`.
 * 4. Otherwise `scored`.
 *
 * Evidence recorded (schema `Evidence`):
 * - `server_model_id`: the single id reported by the successful calls; when
 *   several distinct ids were reported, all of them sorted and joined with
 *   `,` (so a mixed episode is visible in the row); null when none.
 * - `usage_source`: `absent` when a successful call lacked usage, else
 *   `server` (vacuously `server` for zero calls: the zero tokens recorded are
 *   exact, nothing was sent).
 * - `request_fingerprint`: {@linkcode combineFingerprints} of the forwarded
 *   calls' fingerprints in arrival order; null for zero calls.
 * - Only when `modelLimits` sets at least one limit (else these keys are
 *   absent, and the evidence is exactly what it was before they existed):
 *   `max_output_tokens` and `context_limit_tokens`, the plan's limits
 *   (null: not declared); `max_call_tokens`, the largest
 *   `prompt_tokens + completion_tokens` of a successful call with usage
 *   (null when there is none).
 *
 * These are seed 000's five evidence kinds: server-reported model identity,
 * token usage, output policy, context limit and request fingerprint.
 * O(n log n) in the number of records.
 *
 * @param records The relay's call records (any order; sorted by `index` here).
 * @param options The expected model ids and the plan's model limits, if any.
 * @returns The decision, the evidence and the token sums.
 * @example
 * ```ts
 * import { evidenceGate } from "./evidence_gate.ts";
 * const gate = evidenceGate([]);
 * if (gate.status !== "scored" || !gate.zero_calls) throw new Error("zero calls is a scored failure");
 * ```
 */
export function evidenceGate(
  records: readonly RelayCallRecord[],
  options: EvidenceGateOptions = {},
): EvidenceGateResult {
  const calls = records.filter((record) => record.forwarded).sort((a, b) => a.index - b.index);
  const expected = options.expectedModelIds === undefined
    ? null
    : new Set(options.expectedModelIds);
  const outputLimit = options.modelLimits?.max_output_tokens ?? null;
  const contextLimit = options.modelLimits?.context_limit_tokens ?? null;
  const timeoutMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  let maxCallTokens: number | null = null;
  const evidenceProblems: EvidenceProblem[] = [];
  const faults: EvidenceProblem[] = [];
  const agentOverLimit: EvidenceProblem[] = [];
  const ids = new Set<string>();
  let usageAbsent = false;
  let promptTokens = 0;
  let completionTokens = 0;
  let toolCalls = 0;
  for (const call of calls) {
    toolCalls += call.tool_calls;
    if (call.usage !== null) {
      promptTokens += call.usage.prompt_tokens;
      completionTokens += call.usage.completion_tokens;
    }
    if (call.fault === "aborted" && call.latency_ms >= timeoutMs && call.first_byte_ms == null) {
      faults.push({
        index: call.index,
        code: "provider_fault",
        message:
          `Call ${call.index} got no answer within the upstream timeout of ${timeoutMs} ms (cut off after ${call.latency_ms} ms)`,
      });
    } else if (call.fault === "aborted") {
      faults.push({
        index: call.index,
        code: "aborted",
        message: `Call ${call.index} was cut off when the relay closed: its usage is unknown`,
      });
    }
    if (call.fault === "provider_fault") {
      faults.push({
        index: call.index,
        code: "provider_fault",
        message: `Call ${call.index} failed at the provider: ${call.detail}`,
      });
    }
    const ok = call.upstream_status !== null && call.upstream_status >= 200 &&
      call.upstream_status < 300 && call.fault === null;
    if (!ok) continue;
    if (call.server_model_id === null) {
      evidenceProblems.push({
        index: call.index,
        code: "model_missing",
        message: `Call ${call.index} has no server-reported "model"`,
      });
    } else {
      ids.add(call.server_model_id);
      if (expected !== null && !expected.has(call.server_model_id)) {
        evidenceProblems.push({
          index: call.index,
          code: "model_unexpected",
          message:
            `Call ${call.index} was served by "${call.server_model_id}", not an expected model`,
        });
      }
    }
    if (call.usage === null) {
      usageAbsent = true;
      evidenceProblems.push({
        index: call.index,
        code: "usage_missing",
        message: `Call ${call.index} has no server-reported "usage"`,
      });
    }
    const served = call.usage === null
      ? null
      : call.usage.prompt_tokens + call.usage.completion_tokens;
    if (served !== null && (maxCallTokens === null || served > maxCallTokens)) {
      maxCallTokens = served;
    }
    if (outputLimit !== null) {
      const cap = call.output_cap ?? null;
      if (cap === null || cap > outputLimit) {
        evidenceProblems.push({
          index: call.index,
          code: "output_policy_unproven",
          message: cap === null
            ? `Call ${call.index} was sent without an output cap; the plan's is ${outputLimit}`
            : `Call ${call.index} was sent with output cap ${cap}, over the plan's ${outputLimit}`,
        });
      } else if (call.usage !== null && call.usage.completion_tokens > cap) {
        evidenceProblems.push({
          index: call.index,
          code: "output_policy_unproven",
          message:
            `Call ${call.index} reports ${call.usage.completion_tokens} completion tokens, over its output cap of ${cap}`,
        });
      }
    }
    if (contextLimit !== null && call.usage !== null && call.usage.prompt_tokens > contextLimit) {
      agentOverLimit.push({
        index: call.index,
        code: "prompt_over_context_limit",
        message:
          `Call ${call.index} sent a prompt of ${call.usage.prompt_tokens} tokens, over the declared context limit of ${contextLimit}`,
      });
    } else if (contextLimit !== null && served !== null && served > contextLimit) {
      evidenceProblems.push({
        index: call.index,
        code: "context_limit_unproven",
        message:
          `Call ${call.index} reports ${served} prompt + completion tokens, over the declared context limit of ${contextLimit}`,
      });
    }
  }
  const evidence: Evidence = {
    server_model_id: ids.size === 0 ? null : [...ids].sort().join(","),
    usage_source: usageAbsent ? "absent" : "server",
    request_fingerprint: combineFingerprints(calls.map((call) => call.fingerprint ?? "")),
  };
  if (outputLimit !== null || contextLimit !== null) {
    evidence.max_output_tokens = outputLimit;
    evidence.context_limit_tokens = contextLimit;
    evidence.max_call_tokens = maxCallTokens;
  }
  Object.assign(evidence, spendEvidence(calls));
  let status: EpisodeStatus = "scored";
  let invalidReason: InvalidReason | null = null;
  if (evidenceProblems.length > 0) {
    status = "invalid";
    invalidReason = "evidence_missing";
  } else if (faults.some((fault) => fault.code === "provider_fault")) {
    status = "invalid";
    invalidReason = "provider_fault";
  }
  return {
    status,
    invalid_reason: invalidReason,
    zero_calls: calls.length === 0,
    evidence,
    model_calls: calls.length,
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    tool_calls: toolCalls,
    problems: [...evidenceProblems, ...faults],
    agent_over_limit: agentOverLimit,
  };
}

/**
 * The spend evidence of the forwarded calls (issue 21), each field only
 * when it applies: `prompt_bound_excess`, when some call was reserved under
 * a token cap, the prompt tokens reported beyond each call's `prompt_bound`,
 * summed; `spend_unknown_calls`, when some call's usage never came though
 * the provider may have billed it; `provider_features`, the features the
 * plan allowed that calls used, sorted.
 *
 * @param calls the forwarded calls' records
 * @returns the fields to add to the row's evidence
 */
export function spendEvidence(
  calls: readonly RelayCallRecord[],
): Pick<Evidence, "prompt_bound_excess" | "spend_unknown_calls" | "provider_features"> {
  const evidence: Pick<
    Evidence,
    "prompt_bound_excess" | "spend_unknown_calls" | "provider_features"
  > = {};
  const features = new Set<string>();
  let unknown = 0;
  for (const call of calls) {
    if (call.prompt_bound !== undefined) {
      const excess = call.usage === null ? 0 : call.usage.prompt_tokens - call.prompt_bound;
      evidence.prompt_bound_excess = (evidence.prompt_bound_excess ?? 0) + Math.max(0, excess);
    }
    if (call.spend_unknown === true) unknown += 1;
    for (const feature of call.provider_features ?? []) features.add(feature);
  }
  if (unknown > 0) evidence.spend_unknown_calls = unknown;
  if (features.size > 0) evidence.provider_features = [...features].sort();
  return evidence;
}
