/**
 * Forwarding (issue 21, "The relay, in parts"): how the relay sends an
 * admitted request upstream, reads a whole answer, records what it says and
 * passes it back to the agent with the key redacted.
 *
 * @module
 */
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import type { ModelApi } from "./api/model_api.ts";
import { errorBody, upstreamHeaders, type UpstreamKind } from "./api/upstream_kind.ts";
import { concatBytes } from "../../analysis/concat_bytes.ts";

/** Response headers passed back to the agent (and any `x-ratelimit-*`, `anthropic-ratelimit-*`). */
const FORWARDED_RESPONSE_HEADERS = ["content-type", "retry-after", "x-request-id", "request-id"];

/** Where and how calls go upstream. */
export interface Upstream {
  /** Base URL ending in its API version (`/v1`, `/v1beta`), without a trailing slash. */
  base: string;
  kind: UpstreamKind;
  key: string;
  /** Longest silence of the upstream, in ms (see {@linkcode SilenceTimer}). */
  timeoutMs: number;
  /** Aborted by the relay's `close()` once its grace ran out. */
  closing: AbortSignal;
}

/** A request to send upstream. */
export interface UpstreamRequest {
  /** The path as called, its API version first, and any query, e.g. `/v1/messages?beta=true`. */
  pathAndSearch: string;
  method: string;
  /** The agent's request headers (those its kind forwards go along). */
  incoming: Headers;
  /** The body; null: none. */
  body: Uint8Array<ArrayBuffer> | null;
}

/** An upstream response read to its end. */
export interface WholeResponse {
  status: number;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * The upstream timeout as a limit on silence (issue 21: tell a silent
 * upstream, a provider fault, from one answering slowly, the agent's spend):
 * the timer starts when the request is sent and starts again whenever
 * upstream bytes arrive; it fires only after `timeoutMs` without any. A
 * whole answer arrives at once at its end, so for it this is the time to the
 * answer; a stream that keeps sending events never times out (the wall cap
 * and the relay's close bound it).
 */
export class SilenceTimer {
  readonly #controller = new AbortController();
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout>;

  /** @param ms the longest silence allowed */
  constructor(ms: number) {
    this.#ms = ms;
    this.#timer = this.#arm();
  }

  /** Aborts with a `TimeoutError` after the silence; `stop()` ends it. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Upstream bytes arrived: the silence starts again. */
  heard(): void {
    clearTimeout(this.#timer);
    this.#timer = this.#arm();
  }

  /** The call is over: no timeout any more. */
  stop(): void {
    clearTimeout(this.#timer);
  }

  #arm(): ReturnType<typeof setTimeout> {
    return setTimeout(
      () => this.#controller.abort(new DOMException("Upstream silent", "TimeoutError")),
      this.#ms,
    );
  }
}

/**
 * The request to forward for a call the agent sent without asking for a
 * stream (seed 000: a harness failure is not the agent's, so only a silent
 * upstream may be a provider fault): the request as
 * admitted in its API's stream form ({@linkcode ModelApi.streamedCall}:
 * `"stream": true`, Chat Completions' `stream_options.include_usage`,
 * Gemini's `:streamGenerateContent?alt=sse`), compact JSON. The relay reads
 * the stream and answers the agent whole (`reassembleStream`,
 * `reassemble_stream.ts`), so that an upstream answering slowly sends bytes
 * all along and only a silent one times out.
 *
 * @param api the call's API
 * @param admitted the target and the request as admission would forward them
 * @returns the target and the bytes to send
 * @example
 * ```ts
 * import { streamedForWhole } from "./forward_call.ts";
 * import { openaiChat } from "./api/openai_chat.ts";
 * const { bytes } = streamedForWhole(openaiChat, {
 *   target: "/v1/chat/completions",
 *   sent: { model: "m", messages: [] },
 * });
 * const sent = JSON.parse(new TextDecoder().decode(bytes));
 * if (sent.stream !== true || sent.stream_options.include_usage !== true) throw new Error();
 * ```
 */
export function streamedForWhole(
  api: ModelApi,
  admitted: { target: string; sent: Record<string, unknown> },
): { target: string; bytes: Uint8Array<ArrayBuffer> } {
  const { target, body } = api.streamedCall(admitted.target, admitted.sent);
  return { target, bytes: new TextEncoder().encode(JSON.stringify(body)) };
}

/**
 * Sends a request upstream; resolves when the response headers arrive.
 *
 * Rule: the path after its first segment (the API version: `/v1`, Gemini's
 * `/v1beta`) is appended to the upstream's base, which ends in the version
 * the upstream serves; headers
 * are {@linkcode upstreamHeaders} (the agent's `Content-Type` and `Accept`,
 * for Anthropic its `anthropic-version` and `anthropic-beta`, the key where
 * the kind expects it); redirects are not followed.
 *
 * @param upstream where to send it
 * @param request path, method, the agent's headers, the body (null: none) and the call's
 *   silence timer
 * @returns the upstream's response (its body unread)
 */
export function openUpstream(
  upstream: Upstream,
  request: UpstreamRequest & { silence: SilenceTimer },
): Promise<Response> {
  const headers = upstreamHeaders(upstream.kind, {
    key: upstream.key,
    incoming: request.incoming,
    withBody: request.body !== null,
  });
  const afterVersion = request.pathAndSearch.indexOf("/", 1);
  return fetch(`${upstream.base}${request.pathAndSearch.slice(afterVersion)}`, {
    method: request.method,
    headers,
    body: request.body === null ? undefined : request.body,
    signal: AbortSignal.any([request.silence.signal, upstream.closing]),
    redirect: "manual",
  });
}

/**
 * Reads a response to its end, each arrival of bytes restarting the silence timer.
 *
 * @param response the upstream's response
 * @param silence the call's timer
 * @returns status, headers and body
 */
export async function readWhole(
  response: Response,
  silence: SilenceTimer,
): Promise<WholeResponse> {
  const chunks: Uint8Array[] = [];
  const reader = response.body?.getReader();
  while (reader !== undefined) {
    const { value, done } = await reader.read();
    if (done) break;
    silence.heard();
    chunks.push(value);
  }
  return { status: response.status, headers: response.headers, body: concatBytes(chunks) };
}

/**
 * The headers of an upstream response that go back to the agent.
 *
 * @param upstream the upstream's headers
 * @returns `content-type`, `retry-after`, the request ids and the rate-limit headers
 */
export function passedHeaders(upstream: Headers): Headers {
  const headers = new Headers();
  for (const [name, value] of upstream) {
    if (
      FORWARDED_RESPONSE_HEADERS.includes(name) || name.startsWith("x-ratelimit-") ||
      name.startsWith("anthropic-ratelimit-")
    ) {
      headers.set(name, value);
    }
  }
  return headers;
}

/**
 * The agent's response to a whole upstream answer, and its body as text,
 * every occurrence of the key replaced by `[redacted]`.
 *
 * @param upstream the whole answer
 * @param key the upstream key
 * @returns the response and the text kept for the evidence
 */
export function passBack(
  upstream: WholeResponse,
  key: string,
): { response: Response; text: string } {
  let body: Uint8Array<ArrayBuffer> | string = upstream.body;
  let text = new TextDecoder().decode(upstream.body);
  if (text.includes(key)) body = text = text.replaceAll(key, "[redacted]");
  const nullBody = upstream.status === 204 || upstream.status === 304;
  const response = new Response(nullBody ? null : body, {
    status: upstream.status,
    headers: passedHeaders(upstream.headers),
  });
  return { response, text: nullBody ? "" : text };
}

/**
 * Records what a whole answer says (step 6 of `startRelay`): for 2xx the
 * API's evidence (server model, usage, tool calls); 429 is `rate_limited`;
 * 5xx and 401/403 (the relay's key rejected, a harness problem) are
 * `provider_fault`.
 *
 * @param record the call's record, updated in place
 * @param upstream the whole answer
 * @param api the call's API
 */
export function recordWholeAnswer(
  record: RelayCallRecord,
  upstream: WholeResponse,
  api: ModelApi,
): void {
  record.status = upstream.status;
  record.upstream_status = upstream.status;
  if (upstream.status >= 200 && upstream.status < 300) {
    const response = parseJson(upstream.body);
    const evidence = api.wholeEvidence(response);
    record.server_model_id = evidence.model;
    record.usage = evidence.usage;
    if (evidence.usageDetail !== null) record.usage_detail = evidence.usageDetail;
    record.tool_calls = evidence.toolCalls;
    if (response === undefined) record.detail = "Upstream response is not JSON";
  } else if (upstream.status === 429) {
    record.fault = "rate_limited";
    record.detail = "Upstream answered 429";
  } else if (upstream.status >= 500) {
    record.fault = "provider_fault";
    record.detail = `Upstream answered ${upstream.status}`;
  } else if (upstream.status === 401 || upstream.status === 403) {
    record.fault = "provider_fault";
    record.detail = `Upstream rejected the relay's key: status ${upstream.status}`;
  }
}

/**
 * True for an event-stream content type.
 *
 * @param headers a response's headers
 * @returns whether its body is `text/event-stream`
 */
export function isEventStream(headers: Headers): boolean {
  const type = headers.get("content-type") ?? "";
  return type.split(";")[0].trim().toLowerCase() === "text/event-stream";
}

/**
 * A short description of a fetch failure.
 *
 * @param error what was thrown
 * @returns `timed out` for a timeout, else the message
 */
export function describeFailure(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return "timed out";
  return error instanceof Error ? error.message : String(error);
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * Forwards a request that is not a model call (the model list, token
 * counting) and passes the answer back as it came, the key redacted; an
 * upstream that cannot be reached, or stays silent for its timeout, is
 * answered 502 `provider_fault` in the kind's error form. Nothing is
 * recorded or metered.
 *
 * @param upstream where to send it
 * @param request path and query, method, the agent's headers, the body (null: none)
 * @returns the agent's response
 */
export async function forwardOther(
  upstream: Upstream,
  request: UpstreamRequest,
): Promise<Response> {
  const silence = new SilenceTimer(upstream.timeoutMs);
  try {
    const response = await openUpstream(upstream, { ...request, silence });
    return passBack(await readWhole(response, silence), upstream.key).response;
  } catch (error) {
    return Response.json(
      errorBody(upstream.kind, {
        message: `Upstream unreachable: ${describeFailure(error)}`,
        type: "upstream_error",
        code: "provider_fault",
      }, 502),
      { status: 502 },
    );
  } finally {
    silence.stop();
  }
}
