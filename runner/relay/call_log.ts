/**
 * The relay's record of one episode (issue 21, "The relay, in parts"): the
 * model calls as they finish, those still in flight, the bodies kept for the
 * evidence, the requests refused outside the model APIs with their method
 * and path, and the totals over all of them.
 *
 * @module
 */
import type {
  RelayCallRecord,
  RelayDeniedRequest,
  RelayRefusal,
} from "../../analysis/schema/relay_call_record.ts";
import { type CallBodies, type CallBodyLimits, CallBodyLog } from "./call_bodies.ts";

/** Sums over an episode's call records. */
export interface RelayTotals {
  /** Forwarded model calls (the episode's `model_calls`). */
  model_calls: number;
  /**
   * Model-call requests the relay answered itself (caps, bad bodies, another
   * model, a provider feature the plan does not allow, an API its upstream
   * does not serve).
   */
  refused_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Tool calls the model asked for, summed over responses. */
  tool_calls: number;
  /** Forwarded calls the upstream answered with 429. */
  rate_limited_calls: number;
  /** Forwarded calls that got an upstream 5xx, a connection failure or a timeout. */
  provider_faults: number;
  /**
   * Forwarded calls cut off by `close()` before the upstream answered or
   * finished its stream, after the grace given to them (usage unknown unless
   * the stream had delivered it).
   */
  aborted_calls: number;
  /** Forwarded calls whose usage never arrived though the upstream may have billed them. */
  spend_unknown_calls: number;
  /** Non-model requests forwarded (the model list, token counting). */
  other_requests: number;
  /** `GET /relay/budget` requests, answered by the relay (`budget_left.ts`). */
  budget_requests: number;
  /**
   * Requests answered locally and never forwarded because they are outside
   * the relay's surface (not canonical, unknown path, wrong method) or over
   * its concurrency limit; not model calls, so not in `refused_calls`.
   */
  denied_requests: number;
  /**
   * Requests refused because the relay does not speak or meter what the
   * agent asked: the `denied_requests` outside the surface (not those over
   * the concurrency limit), plus the model-call requests refused
   * `unsupported` (a body that is not a JSON object, a model call of an API
   * the upstream's kind does not serve), which are also in `refused_calls`.
   * Never forwarded.
   */
  unsupported_requests: number;
}

/** A request answered locally outside the model APIs ({@linkcode RelayDeniedRequest}). */
export type DeniedRequest = RelayDeniedRequest;

/** Denied requests kept with their method and path; later ones are counted only. */
export const MAX_DENIED_LOGGED = 256;

/** Longest target kept of a denied request. */
const MAX_TARGET_CHARS = 256;

/**
 * The log of one relay: records, in-flight calls, bodies and counts.
 *
 * Memory: O(records + in-flight calls + {@linkcode MAX_DENIED_LOGGED}) plus
 * the bounded bodies of {@linkcode CallBodyLog}.
 */
export class CallLog {
  readonly bodies: CallBodyLog;
  readonly #records: RelayCallRecord[] = [];
  readonly #inFlight = new Map<number, RelayCallRecord>();
  readonly #denied: DeniedRequest[] = [];
  #arrivals = 0;
  #otherRequests = 0;
  #budgetRequests = 0;
  #deniedRequests = 0;
  #deniedUnsupported = 0;

  /**
   * @param key the upstream key, redacted from the bodies
   * @param limits bounds of the bodies kept
   */
  constructor(key: string, limits?: Partial<CallBodyLimits>) {
    this.bodies = new CallBodyLog(key, limits);
  }

  /** @returns the next model call's 1-based arrival index */
  arrive(): number {
    this.#arrivals += 1;
    return this.#arrivals;
  }

  /**
   * Records a model call the relay answered itself (never forwarded).
   *
   * @param call the call's index and endpoint
   * @param refusal why
   * @param status the status answered
   * @param fingerprint the request's fingerprint, null when it was not JSON
   * @param message the refusal's message
   */
  refuse(
    call: { index: number; endpoint: string },
    refusal: RelayRefusal,
    status: number,
    fingerprint: string | null,
    message: string,
  ): void {
    this.#records.push({
      index: call.index,
      endpoint: call.endpoint,
      forwarded: false,
      refusal,
      status,
      upstream_status: null,
      server_model_id: null,
      usage: null,
      tool_calls: 0,
      fingerprint,
      fault: null,
      latency_ms: 0,
      detail: message,
    });
  }

  /**
   * Notes a forwarded call that has not finished; `record` is updated in
   * place until {@linkcode CallLog.finish}.
   *
   * @param record the call's record so far
   */
  begin(record: RelayCallRecord): void {
    this.#inFlight.set(record.index, record);
  }

  /**
   * Moves a forwarded call's record from in flight to the records.
   *
   * @param record the finished record
   */
  finish(record: RelayCallRecord): void {
    this.#inFlight.delete(record.index);
    this.#records.push(record);
  }

  /** Counts a non-model request forwarded (`GET /v1/models`). */
  countOther(): void {
    this.#otherRequests += 1;
  }

  /** Counts a request for the budget left (`GET /relay/budget`). */
  countBudget(): void {
    this.#budgetRequests += 1;
  }

  /**
   * Counts a request answered locally outside the model APIs and keeps its
   * method and target (the first {@linkcode MAX_DENIED_LOGGED}).
   *
   * @param request what was asked and answered
   * @param unsupported true when the relay does not speak it (not a concurrency refusal)
   */
  deny(request: DeniedRequest, unsupported: boolean): void {
    this.#deniedRequests += 1;
    if (unsupported) this.#deniedUnsupported += 1;
    if (this.#denied.length < MAX_DENIED_LOGGED) {
      this.#denied.push({ ...request, target: request.target.slice(0, MAX_TARGET_CHARS) });
    }
  }

  /** @returns copies of the records, in the order the calls finished */
  records(): RelayCallRecord[] {
    return this.#records.map((record) => structuredClone(record));
  }

  /** @returns copies of the in-flight records, in arrival order */
  inFlight(): RelayCallRecord[] {
    return [...this.#inFlight.values()].map((record) => structuredClone(record));
  }

  /** @returns the denied requests kept, in arrival order */
  denied(): DeniedRequest[] {
    return this.#denied.map((request) => ({ ...request }));
  }

  /** @returns the bodies kept, in index order */
  callBodies(): CallBodies[] {
    return this.bodies.list();
  }

  /** @returns the sums over the records and the counts */
  totals(): RelayTotals {
    const totals: RelayTotals = {
      model_calls: 0,
      refused_calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      tool_calls: 0,
      rate_limited_calls: 0,
      provider_faults: 0,
      aborted_calls: 0,
      spend_unknown_calls: 0,
      other_requests: this.#otherRequests,
      budget_requests: this.#budgetRequests,
      denied_requests: this.#deniedRequests,
      unsupported_requests: this.#deniedUnsupported,
    };
    for (const record of this.#records) {
      if (record.forwarded) totals.model_calls += 1;
      else totals.refused_calls += 1;
      if (record.refusal === "unsupported") totals.unsupported_requests += 1;
      if (record.usage !== null) {
        totals.prompt_tokens += record.usage.prompt_tokens;
        totals.completion_tokens += record.usage.completion_tokens;
      }
      totals.tool_calls += record.tool_calls;
      if (record.fault === "rate_limited") totals.rate_limited_calls += 1;
      if (record.fault === "provider_fault") totals.provider_faults += 1;
      if (record.fault === "aborted") totals.aborted_calls += 1;
      if (record.spend_unknown === true) totals.spend_unknown_calls += 1;
    }
    totals.total_tokens = totals.prompt_tokens + totals.completion_tokens;
    return totals;
  }
}
