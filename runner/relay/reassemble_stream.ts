/**
 * Whole answers from streams (issue 21, "Invalid only when the harness
 * failed"): a call the agent sent without `"stream": true` is forwarded
 * streamed (`streamedForWhole`, `forward_call.ts`), and this reads the
 * upstream's event stream, with the API's stream reader collecting the
 * evidence and the silence timer restarted whenever bytes arrive, and
 * answers the agent with the one whole JSON response the events make
 * ({@linkcode ModelApi.wholeFromEvents}). A long answer is then the agent's
 * spend however long it takes, and only an upstream that falls silent is a
 * provider fault.
 *
 * @module
 */
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import type { SseEvent } from "./_sse_splitter.ts";
import { readEvents } from "./_read_events.ts";
import type { ModelApi, RelayError, StreamReader } from "./api/model_api.ts";
import { errorBody } from "./api/upstream_kind.ts";
import { describeFailure, passedHeaders, type SilenceTimer } from "./forward_call.ts";
import { eventCount, roundMs, takeEvidence } from "./stream_accounting.ts";

/** What {@linkcode reassembleStream} needs besides the upstream's response. */
export interface ReassembledCall {
  /** The call's record, updated in place as events arrive. */
  record: RelayCallRecord;
  /** The path the agent called (the API module may serve two). */
  path: string;
  /** `performance.now()` when the request was sent. */
  started: number;
  /** The API's reader of this stream. */
  reader: StreamReader;
  api: ModelApi;
  /** The upstream key, redacted from the answer. */
  key: string;
  /** The call's silence timer and its limit in ms. */
  silence: SilenceTimer;
  timeoutMs: number;
  /** Aborted once the relay's close ran out of grace. */
  closing: AbortSignal;
  /** Called once with the finished record. */
  onFinished(record: RelayCallRecord): void;
}

/** How a reassembled call failed: the agent's status and error. */
interface Failure {
  status: number;
  error: RelayError;
}

/**
 * Reads a 2xx event stream to its last event and answers the agent whole.
 *
 * Rules (step 8 of `startRelay`): the record gets `reassembled`,
 * `upstream_status`, `first_byte_ms` and the evidence the reader collected
 * (also while in flight); a stream that reached the API's last event
 * without an error event is answered with its reassembled body, status as
 * the upstream's, `content-type: application/json`, the key redacted. Any
 * other end is a fault, and the agent gets an error body in the API's
 * form: cut off by the relay's close, `aborted` (503); reading failed
 * (reset, or silent for the upstream timeout), an error event, a stream
 * that ended before its last event or one whose events make no whole
 * response, `provider_fault` (502). A failed or cut-short read without
 * usage is `spend_unknown`, as for a stream passed back.
 *
 * @param response the upstream's 2xx event-stream response
 * @param call the record, reader and callbacks
 * @returns the agent's response and its body's text (for the body log), once the record is finished
 */
export async function reassembleStream(
  response: Response,
  call: ReassembledCall,
): Promise<{ response: Response; text: string }> {
  const { record, reader, api } = call;
  record.upstream_status = response.status;
  record.reassembled = true;
  const events: SseEvent[] = [];
  const { error, done, firstByteAt } = await readEvents(
    response,
    (event) => {
      events.push(event);
      const end = reader.add(event).end;
      takeEvidence(record, reader);
      return end;
    },
    () => call.silence.heard(),
    reader.wholeAtEnd?.bind(reader),
  );
  call.silence.stop();
  record.latency_ms = roundMs(performance.now() - call.started);
  record.first_byte_ms = firstByteAt === null ? null : roundMs(firstByteAt - call.started);
  takeEvidence(record, reader);

  const count = eventCount(events.length);
  let failure: Failure | null = null;
  let whole: Record<string, unknown> | null = null;
  const fault = (status: number, code: string, message: string): Failure => ({
    status,
    error: { message, type: "upstream_error", code },
  });
  if (error !== null && call.closing.aborted) {
    failure = fault(
      503,
      "aborted",
      `Aborted: the relay closed after ${count} of the upstream stream`,
    );
  } else if (error !== null) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    failure = fault(
      502,
      "provider_fault",
      timedOut
        ? `The upstream sent nothing for the upstream timeout of ${call.timeoutMs} ms after ${count}`
        : `Upstream stream failed after ${count}: ${describeFailure(error)}`,
    );
  } else if (reader.upstreamError() !== null) {
    failure = fault(
      502,
      "provider_fault",
      `Upstream sent an error event: "${reader.upstreamError()}"`,
    );
  } else if (!done) {
    failure = fault(
      502,
      "provider_fault",
      `The upstream stream ended after ${count}, before its last event: no whole answer to give`,
    );
  } else {
    whole = api.wholeFromEvents(events, call.path);
    if (whole === null) {
      failure = fault(
        502,
        "provider_fault",
        `The upstream stream's ${count} make no whole ${api.name} response`,
      );
    }
  }
  if ((error !== null || !done) && record.usage === null) record.spend_unknown = true;
  const notes = reader.notes(done || error !== null);
  if (failure !== null) {
    record.status = failure.status;
    record.fault = failure.error.code === "aborted" ? "aborted" : "provider_fault";
    notes.unshift(failure.error.message);
  } else {
    record.status = response.status;
  }
  record.detail = notes.join("; ");
  call.onFinished(record);

  const headers = passedHeaders(response.headers);
  headers.set("content-type", "application/json");
  const text = JSON.stringify(
    failure === null ? whole : errorBody(api.kind, failure.error, failure.status),
  )
    .replaceAll(call.key, "[redacted]");
  return {
    response: new Response(text, { status: record.status, headers }),
    text,
  };
}
