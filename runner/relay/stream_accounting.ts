/**
 * Stream accounting (issue 21, "The relay, in parts"): a streamed call's
 * events are passed back to the agent as they arrive while the API's stream
 * reader collects the evidence (server model, usage, tool calls) from every
 * one, and the call's record is written when the stream ends, however it
 * ends: at its last event, failed midway, cut off by the relay's close, or
 * after the agent left (the relay reads on for the usage).
 *
 * @module
 */
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import { streamBack, type StreamEnd } from "./_stream_back.ts";
import type { AnswerForm, ModelApi, StreamReader } from "./api/model_api.ts";
import type { SseEvent } from "./_sse_splitter.ts";
import { describeFailure, passedHeaders, type SilenceTimer } from "./forward_call.ts";

/** What {@linkcode accountStream} needs besides the upstream's response. */
export interface StreamCall {
  /** The call's record, updated in place as events arrive. */
  record: RelayCallRecord;
  /** How the agent asked for the stream: server-sent events, or Gemini's JSON array. */
  form: AnswerForm;
  /** `performance.now()` when the request was sent. */
  started: number;
  /** The API's reader of this stream. */
  reader: StreamReader;
  api: ModelApi;
  /** The upstream key, redacted from every event. */
  key: string;
  /** The call's silence timer, told whenever bytes arrive. */
  silence: SilenceTimer;
  /** Aborted once the relay's close ran out of grace. */
  closing: AbortSignal;
  /** Sees the text of every event passed back (for the body log). */
  onSent(text: string): void;
  /** Called once with the finished record. */
  onFinished(record: RelayCallRecord): void;
}

/**
 * Relays a 2xx event stream (step 8 of `startRelay`) and records the call
 * when it ends: `latency_ms` to the end, `first_byte_ms` to the first body
 * bytes, the evidence the reader collected; a stream cut off by the relay's
 * close is `aborted`, one that failed or carried an error event a
 * `provider_fault`, and in both cases the agent (if still reading) gets a
 * last error event in its API's form. An agent that closed early is noted in
 * `detail`.
 *
 * @param response the upstream's 2xx event-stream response
 * @param call the record, reader and callbacks
 * @returns the response for the agent, and a promise settled once the record is finished
 */
export function accountStream(
  response: Response,
  call: StreamCall,
): { response: Response; finished: Promise<void> } {
  const { record, reader, api } = call;
  record.status = response.status;
  record.upstream_status = response.status;
  const headers = passedHeaders(response.headers);
  if (call.form === "json_array") headers.set("content-type", "application/json");
  return streamBack(response, {
    headers,
    key: call.key,
    wholeAtEnd: reader.wholeAtEnd?.bind(reader),
    framing: call.form === "json_array" ? JSON_ARRAY : undefined,
    onEvent: (event) => {
      const verdict = reader.add(event);
      takeEvidence(record, reader);
      return verdict;
    },
    onSent: call.onSent,
    onBytes: () => call.silence.heard(),
    onAgentClosed: (passed) => {
      record.detail = `Agent closed the stream after ${eventCount(passed)} passed back; ` +
        "the relay reads the rest of the upstream stream for the evidence";
    },
    onEnd: (end) => {
      call.silence.stop();
      record.latency_ms = roundMs(performance.now() - call.started);
      record.first_byte_ms = end.firstByteAt === null
        ? null
        : roundMs(end.firstByteAt - call.started);
      takeEvidence(record, reader);
      const notes: string[] = [];
      let last: string | null = null;
      if (end.error !== null && call.closing.aborted) {
        record.fault = "aborted";
        notes.push(
          `Aborted: the relay closed after ${eventCount(end.events)} of the upstream stream`,
        );
        last = api.streamErrorEvent({ message: notes[0], type: "upstream_error", code: "aborted" });
      } else if (end.error !== null) {
        record.fault = "provider_fault";
        notes.push(
          `Upstream stream failed after ${eventCount(end.events)}: ${describeFailure(end.error)}`,
        );
        last = api.streamErrorEvent({
          message: notes[0],
          type: "upstream_error",
          code: "provider_fault",
        });
      } else if (reader.upstreamError() !== null) {
        record.fault = "provider_fault";
        notes.push(`Upstream sent an error event: "${reader.upstreamError()}"`);
      }
      if (end.error !== null && record.usage === null) record.spend_unknown = true;
      if (end.agentClosedAfter !== null) notes.push(agentClosedNote(end));
      notes.push(...reader.notes(end.done || end.error !== null));
      record.detail = notes.join("; ");
      call.onFinished(record);
      return end.agentClosedAfter === null ? last : null;
    },
  });
}

/**
 * Gemini's stream without `alt=sse` (Gemini API reference,
 * `models.streamGenerateContent`: "a stream of GenerateContentResponse
 * instances"): one JSON array whose elements, each event's `data`, are sent
 * as they come; events without data are not sent.
 */
const JSON_ARRAY = {
  event: (event: SseEvent, index: number) =>
    event.data === null ? "" : `${index === 0 ? "[" : ",\r\n"}${event.data}`,
  close: (sent: number) => sent === 0 ? "[]" : "]",
};

function agentClosedNote(end: StreamEnd): string {
  const passed = `Agent closed the stream after ${
    eventCount(end.agentClosedAfter ?? 0)
  } passed back`;
  return end.error === null
    ? `${passed}; the relay read all ${
      eventCount(end.events)
    } of the upstream stream for the evidence`
    : `${passed}; the relay went on reading the upstream stream for the evidence`;
}

/**
 * Copies the evidence a stream's reader has collected so far onto the
 * call's record: the server's model id, usage (and its detail, once known)
 * and tool calls.
 *
 * @param record the call's record, updated in place
 * @param reader the stream's reader
 */
export function takeEvidence(record: RelayCallRecord, reader: StreamReader): void {
  const evidence = reader.evidence();
  record.server_model_id = evidence.model;
  record.usage = evidence.usage;
  if (evidence.usageDetail !== null) record.usage_detail = evidence.usageDetail;
  record.tool_calls = evidence.toolCalls;
}

/**
 * A count of events in words, for notes: `1 event`, `3 events`.
 *
 * @param n the count
 * @returns the words
 */
export function eventCount(n: number): string {
  return n === 1 ? "1 event" : `${n} events`;
}

/**
 * Milliseconds rounded to microseconds, as records keep them.
 *
 * @param ms a duration
 * @returns it, rounded to three decimals
 */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
