/**
 * One admitted model call forwarded (issue 21, "The relay, in parts"): its
 * record begun, the request sent upstream in stream form, and the answer
 * relayed however it comes: a stream passed back event by event
 * (`stream_accounting.ts`), a stream reassembled into the whole answer the
 * agent asked for (`reassemble_stream.ts`), a whole answer passed back
 * (`forward_call.ts`), or a failure worded in the API's error form.
 *
 * @module
 */
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import type { Admitted } from "./admission.ts";
import type { CallLog } from "./call_log.ts";
import type { ModelApi, RelayError } from "./api/model_api.ts";
import {
  describeFailure,
  isEventStream,
  openUpstream,
  passBack,
  readWhole,
  recordWholeAnswer,
  SilenceTimer,
  streamedForWhole,
  type Upstream,
} from "./forward_call.ts";
import { accountStream, roundMs } from "./stream_accounting.ts";
import { reassembleStream } from "./reassemble_stream.ts";

/** The call to forward. */
export interface ForwardedCall {
  /** Its arrival index. */
  index: number;
  /** The canonical path called, e.g. `/v1/responses`. */
  endpoint: string;
  api: ModelApi;
  /** The agent's request headers (those the upstream's kind takes are passed on). */
  headers: Headers;
  /** What admission decided. */
  admitted: Admitted;
}

/** What {@linkcode forwardModelCall} needs of its relay. */
export interface ForwardContext {
  upstream: Upstream;
  /** The relay's log: the record is begun here, bodies are appended. */
  log: CallLog;
  /** The relay's own error answer in the API's form (its body logged). */
  answer(status: number, error: RelayError): Response;
  /** Called once with the finished record (the relay settles the budget and logs it). */
  onFinished(record: RelayCallRecord): void;
}

/**
 * The record of an admitted call before the upstream answered: status 502
 * (what the agent gets if no answer comes), its fingerprint, output cap,
 * prompt bound and whether the token cap lowered its cap, its provider
 * features.
 *
 * @param call the call
 * @returns its record so far
 */
export function admittedRecord(call: ForwardedCall): RelayCallRecord {
  const { admitted } = call;
  return {
    index: call.index,
    endpoint: call.endpoint,
    forwarded: true,
    refusal: null,
    status: 502,
    upstream_status: null,
    server_model_id: null,
    usage: null,
    tool_calls: 0,
    fingerprint: admitted.fingerprint,
    output_cap: admitted.outputCap,
    ...(admitted.ticket === null ? {} : {
      prompt_bound: admitted.promptBound!,
      prompt_bound_source: admitted.promptBoundSource!,
      cap_lowered: admitted.ticket.lowered,
    }),
    ...(admitted.features.length === 0 ? {} : { provider_features: admitted.features }),
    fault: null,
    latency_ms: 0,
    detail: "",
  };
}

/**
 * Forwards one admitted call and answers the agent (steps 6 to 8 of
 * `startRelay`, `relay.ts`).
 *
 * @param call the call and what admission decided
 * @param context the upstream, the log and the relay's callbacks
 * @returns the agent's response, and a promise settled once the call is over (a passed-back
 *   stream's end; at once otherwise)
 */
export async function forwardModelCall(
  call: ForwardedCall,
  context: ForwardContext,
): Promise<{ response: Response; over: Promise<void> }> {
  const { index, api, admitted } = call;
  const { upstream, log } = context;
  const record = admittedRecord(call);
  const done = Promise.resolve();
  log.begin(record);
  const silence = new SilenceTimer(upstream.timeoutMs);
  const started = performance.now();
  const sent = admitted.streamed
    ? { target: admitted.target, bytes: admitted.forwarded }
    : streamedForWhole(api, admitted);
  try {
    const response = await openUpstream(upstream, {
      pathAndSearch: sent.target,
      method: "POST",
      incoming: call.headers,
      body: sent.bytes,
      silence,
    });
    const stream = response.ok && isEventStream(response.headers);
    if (stream && !admitted.streamed) {
      const back = await reassembleStream(response, {
        record,
        path: call.endpoint,
        started,
        reader: api.streamReader(admitted.body),
        api,
        key: upstream.key,
        silence,
        timeoutMs: upstream.timeoutMs,
        closing: upstream.closing,
        onFinished: context.onFinished,
      });
      log.bodies.append(index, back.text);
      return { response: back.response, over: done };
    }
    if (stream) {
      const relayed = accountStream(response, {
        record,
        form: admitted.form,
        started,
        reader: api.streamReader(admitted.body),
        api,
        key: upstream.key,
        silence,
        closing: upstream.closing,
        onSent: (text) => log.bodies.append(index, text),
        onFinished: context.onFinished,
      });
      return { response: relayed.response, over: relayed.finished };
    }
    const whole = await readWhole(response, silence);
    silence.stop();
    record.latency_ms = roundMs(performance.now() - started);
    recordWholeAnswer(record, whole, api);
    context.onFinished(record);
    const back = passBack(whole, upstream.key);
    log.bodies.append(index, back.text);
    return { response: back.response, over: done };
  } catch (error) {
    silence.stop();
    record.latency_ms = roundMs(performance.now() - started);
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    if (timedOut || upstream.closing.aborted) record.spend_unknown = true;
    if (upstream.closing.aborted) {
      record.status = 503;
      record.fault = "aborted";
      record.detail = "Aborted: the relay closed before the upstream answered";
      context.onFinished(record);
      const error = { message: record.detail, type: "upstream_error", code: "aborted" };
      return { response: context.answer(503, error), over: done };
    }
    record.fault = "provider_fault";
    record.detail = timedOut
      ? `The upstream sent nothing for the upstream timeout of ${upstream.timeoutMs} ms`
      : `Upstream unreachable: ${describeFailure(error)}`;
    context.onFinished(record);
    const fault = { message: record.detail, type: "upstream_error", code: "provider_fault" };
    return { response: context.answer(502, fault), over: done };
  }
}
