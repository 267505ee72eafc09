/**
 * The one interface behind which the relay meters each model API (issue 8,
 * "The relay meters every model API"): what a request of the API looks like
 * (its output cap fields, what a stream needs), what its responses and
 * stream events carry (server model id, usage, tool calls) and how its
 * errors are worded. `relay.ts` dispatches on a {@linkcode ModelApi} and
 * knows no API's field names; adding an API is one module implementing this
 * interface plus one line in `model_apis.ts`.
 *
 * @module
 */
import type { RelayUsage, RelayUsageDetail } from "../../../analysis/schema/relay_call_record.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import type { UpstreamKind } from "./upstream_kind.ts";

/**
 * How an agent asked to be answered: `whole`, one JSON body; `sse`, server-sent
 * events; `json_array`, Gemini's stream without `alt=sse`, one JSON array
 * whose elements are sent as they are made.
 */
export type AnswerForm = "whole" | "sse" | "json_array";

/** What the relay reads from one call's response (whole or streamed). */
export interface CallEvidence {
  /** The server-reported model id; null when none was reported. */
  model: string | null;
  /**
   * Usage in the relay's terms: `prompt_tokens` every billed input token,
   * `completion_tokens` every output token (each API module documents its
   * mapping); null unless the server reported it whole.
   */
  usage: RelayUsage | null;
  /** The API's own usage counts as reported (recorded as `usage_detail`); null when none. */
  usageDetail: RelayUsageDetail | null;
  /** Tool calls the response asked the agent to run. */
  toolCalls: number;
}

/** An error the relay words itself: `message`, a `type` and a machine-readable `code`. */
export interface RelayError {
  message: string;
  type: string;
  code: string | null;
}

/** What {@linkcode StreamReader.add} decided for one event. */
export interface EventVerdict {
  /** False: withhold the event from the agent (it is still read for the evidence). */
  pass: boolean;
  /** True: the API's last event of a stream; the relay reads no further. */
  end: boolean;
}

/** Reads one streamed call's events, in order, for its evidence. */
export interface StreamReader {
  /** Reads one complete event. */
  add(event: SseEvent): EventVerdict;
  /** The evidence seen so far. */
  evidence(): CallEvidence;
  /**
   * For an API whose streams have no last event of their own and end with
   * the body (Gemini's): whether the events read so far make a whole stream,
   * asked when the body ended without error. Absent: a stream is whole only
   * through the event {@linkcode StreamReader.add} says is the last.
   */
  wholeAtEnd?(): boolean;
  /** The message of the first error the stream carried (an error event); null when none. */
  upstreamError(): string | null;
  /**
   * Remarks for the record's `detail` (models disagreeing, events that are
   * not JSON, a stream that ended without its last event).
   *
   * @param ended false only for a stream that ended without error and without the API's last event
   */
  notes(ended: boolean): string[];
}

/** One model API the relay meters. */
export interface ModelApi {
  /** Short name used in messages, e.g. `Responses`. */
  readonly name: string;
  /** Which upstream kind serves it: the relay forwards only its upstream kind's APIs. */
  readonly kind: UpstreamKind;
  /**
   * The request paths of its model calls as its reference writes them, e.g.
   * `/v1/responses` or `/v1beta/models/{model}:generateContent` (for
   * messages and documentation; {@linkcode ModelApi.matches} decides).
   */
  readonly paths: readonly string[];
  /**
   * Whether a request path in canonical form is one of its model calls.
   *
   * @param path the path, without a query
   */
  matches(path: string): boolean;
  /**
   * The query to forward for a model call's query: the query itself when it
   * is one the API's clients send and the upstream should see (Messages'
   * `beta=true`), "" when it is read by the relay and not forwarded (Gemini's
   * `alt=sse`, an agent's own `key=`), null when it is refused.
   *
   * @param path the call's path
   * @param query what follows `?` ("" when the target has none)
   */
  forwardedQuery(path: string, query: string): string | null;
  /**
   * The model a call names: its body's `model` for the OpenAI and Anthropic
   * APIs; Gemini names it in the path (`models/{model}`).
   *
   * @param path the call's path
   * @param body the agent's request
   */
  requestedModel(path: string, body: Record<string, unknown>): unknown;
  /**
   * How the agent asked to be answered: whole, as server-sent events, or (Gemini
   * without `alt=sse`) as one JSON array whose elements come as they are made.
   *
   * @param path the call's path
   * @param query its query ("" when none)
   * @param body the agent's request
   */
  answerForm(path: string, query: string, body: Record<string, unknown>): AnswerForm;
  /** Request fields that cap the output, in the order the recorded `output_cap` reads them. */
  readonly outputCapFields: readonly string[];
  /** The field the relay sets to the plan's output cap when the agent set none. */
  readonly defaultOutputCapField: string;
  /**
   * Prompt tokens the provider bills for this request beyond its bytes and
   * media parts (`prompt_token_bound.ts`), e.g. a tool-use system prompt; 0
   * when none is documented.
   *
   * @param body the request as it will be forwarded
   */
  promptAllowance(body: Record<string, unknown>): number;
  /**
   * Why a request of this API cannot be metered if forwarded (e.g. a
   * Responses call run in the background), or null.
   *
   * @param body the agent's request
   */
  requestProblem(body: Record<string, unknown>): string | null;
  /**
   * The request to forward in stream form, which the relay uses for every
   * model call, streamed or not (`startRelay`, step 6): the target with any
   * change of path a stream needs (Gemini's `:streamGenerateContent?alt=sse`)
   * and the body with any change it needs (`"stream": true`; Chat
   * Completions' `stream_options.include_usage`, without which its streams
   * carry no usage). The body is returned as it is when unchanged.
   *
   * @param target the path and forwarded query of the call
   * @param body the request as it will be forwarded otherwise (output policy applied)
   */
  streamedCall(
    target: string,
    body: Record<string, unknown>,
  ): { target: string; body: Record<string, unknown> };
  /**
   * The evidence of a 2xx whole response.
   *
   * @param response the parsed response body (undefined when not JSON)
   */
  wholeEvidence(response: unknown): CallEvidence;
  /**
   * A reader for one 2xx event stream.
   *
   * @param request the agent's request as received
   */
  streamReader(request: Record<string, unknown>): StreamReader;
  /**
   * The whole response of a call the agent sent without `"stream": true`,
   * reassembled from the 2xx event stream the relay asked the upstream for
   * instead (issue 21, "Invalid only when the harness failed": a streamed
   * upstream is never silent while it answers, so a long answer is the
   * agent's spend, not a timeout). The result has the API's whole-response
   * shape, so that the agent gets what a whole call would have returned
   * (each module documents where it may differ). Pure.
   *
   * @param events every event of the stream in order, through the API's last
   * @param path the call's path (one module may serve two APIs, e.g.
   *   `/v1/chat/completions` and `/v1/completions`)
   * @returns the whole response body; null when the events do not make one
   *   (no chunk, no final response, an error event, tool input that is not JSON)
   */
  wholeFromEvents(events: readonly SseEvent[], path: string): Record<string, unknown> | null;
  /**
   * The raw text of the event the relay sends as a stream's last when the
   * stream failed, in the form the API's clients read as an error.
   *
   * @param error what to report
   */
  streamErrorEvent(error: RelayError): string;
}

/**
 * True for a plain JSON object (not null, not an array).
 *
 * @param value any value
 * @returns whether it is an object with string keys
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * True for a token count: a non-negative integer.
 *
 * @param value any value
 * @returns whether it counts tokens
 */
export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/**
 * The server model id of a parsed JSON object: its `model` when a non-empty
 * string, else null.
 *
 * @param value a parsed response or event payload
 * @returns the id or null
 */
export function modelOf(value: unknown): string | null {
  if (!isRecord(value)) return null;
  return typeof value.model === "string" && value.model !== "" ? value.model : null;
}

/**
 * The members of a {@linkcode ModelApi} that the OpenAI and Anthropic APIs
 * share: fixed paths, the model in the body's `model`, a stream asked for with
 * `"stream": true`, a stream ended by its own last event.
 *
 * @param paths the API's paths
 * @param queries the exact queries its clients send, forwarded as they are
 * @returns the members
 */
export function bodyStreamedApi(
  paths: readonly string[],
  queries: readonly string[],
): Pick<
  ModelApi,
  "paths" | "matches" | "forwardedQuery" | "requestedModel" | "answerForm"
> {
  return {
    paths,
    matches: (path) => paths.includes(path),
    forwardedQuery: (_path, query) => query === "" || queries.includes(query) ? query : null,
    requestedModel: (_path, body) => body.model,
    answerForm: (_path, _query, body) => body.stream === true ? "sse" : "whole",
  };
}

/**
 * A request in stream form for the APIs that ask for a stream with
 * `"stream": true` in the body.
 *
 * @param target the call's target, forwarded as it is
 * @param body the request
 * @returns the target, and the body with `stream: true` (itself when it had it)
 */
export function withStreamFlag(
  target: string,
  body: Record<string, unknown>,
): { target: string; body: Record<string, unknown> } {
  return { target, body: body.stream === true ? body : { ...body, stream: true } };
}

/**
 * Parses one event's `data` as JSON.
 *
 * @param text the event's data
 * @returns the value, or undefined when it is not JSON
 */
export function parseEventData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What every stream reader does alike, as the base of the three readers: it
 * tracks the first model id (and whether a later event named another), the
 * first upstream error reported and the events that are not JSON, and from
 * them answers {@link StreamReader.upstreamError} and
 * {@link StreamReader.notes}. A reader adds its API's events (`add`) and
 * evidence (`evidence`).
 */
export abstract class TalliedStreamReader implements StreamReader {
  /** The first non-empty model id seen. */
  protected model: string | null = null;
  /** The first error an upstream event reported (the stream's failure); null: none. */
  #error: string | null = null;
  #otherModel: string | null = null;
  #notJson = 0;
  readonly #missingEnd: string;

  /** @param missingEnd the remark for a stream that ended without the API's last event */
  constructor(missingEnd: string) {
    this.#missingEnd = missingEnd;
  }

  abstract add(event: SseEvent): EventVerdict;
  abstract evidence(): CallEvidence;

  /**
   * Parses an event's data, counting it when it is not JSON.
   *
   * @param data the event's data
   * @returns the parsed value, or undefined when not JSON
   */
  protected parse(data: string): unknown {
    const value = parseEventData(data);
    if (value === undefined) this.#notJson += 1;
    return value;
  }

  /**
   * Notes a model id an event carried (null: none).
   *
   * @param id the id
   */
  protected seeModel(id: string | null): void {
    if (id === null) return;
    if (this.model === null) this.model = id;
    else if (id !== this.model) this.#otherModel ??= id;
  }

  /**
   * Notes an error an event reported; only the first is kept.
   *
   * @param message what the upstream said
   */
  protected seeError(message: string): void {
    this.#error ??= message;
  }

  upstreamError(): string | null {
    return this.#error;
  }

  notes(ended: boolean): string[] {
    const notes: string[] = [];
    if (this.#otherModel !== null) {
      notes.push(
        `Chunks disagree on the model: first "${this.model}", later "${this.#otherModel}"`,
      );
    }
    if (this.#notJson > 0) notes.push(`${this.#notJson} upstream events are not JSON`);
    if (!ended) notes.push(this.#missingEnd);
    return notes;
  }
}
