/**
 * The host relay (seed 000 §04 "宿主中转", issue 3 "One episode" 2, issue 8):
 * the only way an agent reaches a model. It listens on a unix socket on the
 * host, exposes an allow-list (model calls of the APIs it meters, the model
 * list; everything else is refused locally), forwards to an OpenAI or an
 * Anthropic upstream with the upstream key (which lives nowhere else),
 * records the evidence of every call and enforces the episode's token and
 * step caps. Streamed calls (`"stream": true`) are relayed event by event,
 * with the same evidence recorded. What each API's requests, responses and
 * streams look like is in its module under `api/` ({@linkcode ModelApi});
 * this file knows no API's field names.
 *
 * One relay serves one episode: its records, totals and stop reason are the
 * episode's.
 *
 * @module
 */
import { DEFAULT_UPSTREAM_TIMEOUT_MS, type StopReason } from "../../analysis/schema.ts";
import type { RelayCallRecord, RelayRefusal } from "./relay_call_record.ts";
import { relayStopReason } from "./relay_stop_reason.ts";
import { requestFingerprint } from "./request_fingerprint.ts";
import { streamBack, type StreamEnd } from "./_stream_back.ts";
import { readBody } from "./_read_body.ts";
import { rawTarget, routeRequest } from "./relay_surface.ts";
import { type Ticket, TokenBudget } from "./token_budget.ts";
import { type CallBodies, type CallBodyLimits, CallBodyLog } from "./call_bodies.ts";
import {
  isCount,
  isRecord,
  type ModelApi,
  type RelayError,
  type StreamReader,
} from "./api/model_api.ts";
import {
  errorBody as kindErrorBody,
  upstreamHeaders,
  type UpstreamKind,
} from "./api/upstream_kind.ts";

export { MODEL_CALL_PATHS } from "./relay_surface.ts";

/** Options of {@linkcode startRelay}. */
export interface RelayOptions {
  /**
   * Base URL of the upstream, ending in its `/v1`, e.g.
   * `https://api.openai.com/v1` or `https://api.anthropic.com/v1`.
   */
  upstreamBaseUrl: string;
  /**
   * Which APIs the upstream serves (default `openai`): only model calls of
   * its kind's APIs are forwarded; one of another kind is refused
   * `unsupported` (an agent speaks one vendor's API).
   */
  upstreamKind?: UpstreamKind;
  /**
   * The upstream key, sent upstream only, where the kind expects it:
   * `Authorization: Bearer <key>` (openai) or `x-api-key: <key>`
   * (anthropic).
   */
  upstreamKey: string;
  /** Prompt + completion tokens after which calls are refused; null or absent: no cap. */
  tokenCap?: number | null;
  /** Number of forwarded model calls allowed; null or absent: no cap. */
  stepCap?: number | null;
  /**
   * The plan's output policy (`model_limits.max_output_tokens`, seed 000's
   * "输出策略"): every forwarded model call is made to carry an output cap of
   * at most this many tokens (see step 5 of {@linkcode startRelay}); null or
   * absent: requests are not changed for it. A positive integer.
   */
  maxOutputTokens?: number | null;
  /**
   * Upstream limit per call in ms (the plan's `upstream_timeout_ms`; default
   * `DEFAULT_UPSTREAM_TIMEOUT_MS`, 300000), from sending the request to the
   * end of the response body (of the whole event stream for streamed calls);
   * past it the call is a provider fault.
   */
  upstreamTimeoutMs?: number;
  /** Largest request body accepted, in bytes (default 33554432, 32 MiB). */
  maxBodyBytes?: number;
  /** Time allowed to receive a model call's body once its headers arrived, in ms (default 30000). */
  bodyDeadlineMs?: number;
  /** Requests served at once; more are answered 429 locally (default 64). */
  maxConcurrentRequests?: number;
  /**
   * The plan's agent model (`PlannedAgent.model`): a model call whose
   * `model` is anything else is refused 403 `model_not_allowed` and never
   * forwarded. Null or absent: any model the agent names is forwarded.
   */
  pinnedModel?: string | null;
  /** Bounds of the per-call bodies kept for the evidence ({@linkcode Relay.callBodies}). */
  callBodyLimits?: Partial<CallBodyLimits>;
}

/** Sums over an episode's call records. */
export interface RelayTotals {
  /** Forwarded model calls (the episode's `model_calls`). */
  model_calls: number;
  /**
   * Model-call requests the relay answered itself (caps, bad bodies, another
   * model, an API its upstream does not serve).
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
   * finished its stream (usage unknown unless the stream had delivered it).
   */
  aborted_calls: number;
  /** Non-model requests forwarded (`GET /v1/models` and `GET /v1/models/<id>`). */
  other_requests: number;
  /**
   * Requests answered locally and never forwarded because they are outside
   * the relay's surface (not canonical, unknown path, wrong method) or over
   * its concurrency limit; not model calls, so not in `refused_calls`.
   */
  denied_requests: number;
  /**
   * Requests refused because the relay does not speak or meter what the
   * agent asked (issue 8: a harness limitation, not the agent's failure):
   * the `denied_requests` outside the surface (not canonical, unknown path,
   * wrong method; not those over the concurrency limit), plus the model-call
   * requests refused `unsupported` (a body that is not a JSON object, a
   * model call of an API the upstream's kind does not serve, e.g.
   * `/v1/messages` with an OpenAI upstream), which are also in
   * `refused_calls`. Never forwarded. Refusals for caps, another model,
   * a body too large or too slow, or a request the relay understood and
   * will not forward (`stream` not a boolean, `n` 4, a background response)
   * are not in it.
   */
  unsupported_requests: number;
}

/** A running relay. */
export interface Relay {
  /** The unix socket it listens on. */
  socketPath: string;
  /** A copy of the call records, in the order the calls finished. */
  records(): RelayCallRecord[];
  /**
   * A copy of the records of forwarded calls that have not finished yet
   * (waiting for the upstream, or still streaming), in arrival order, with
   * what has been seen so far: a stream's model, usage and tool calls as its
   * events arrive, and in `detail` whether the agent has closed it. `status`
   * stays 502 (what the agent gets if the upstream never answers) until the
   * upstream's status is known.
   */
  inFlight(): RelayCallRecord[];
  /** Sums over the records. */
  totals(): RelayTotals;
  /**
   * The bodies of the model-call requests so far, in index order (one per
   * record with a logged body, same `index`): each request as the agent
   * sent it and the response as the agent received it (streams: the events
   * passed back, concatenated), the upstream key redacted, each kept up to
   * 64 KiB with its whole length, and at most 8 MiB and 2048 calls per
   * episode ({@linkcode CallBodyLimits}, `callBodyLimits`); copies.
   */
  callBodies(): CallBodies[];
  /** {@linkcode relayStopReason} of the records under this relay's token cap. */
  stopReason(): StopReason;
  /**
   * Stops listening and removes the socket file. Calls still waiting for the
   * upstream, or still streaming from it, are cut off and recorded with fault
   * `aborted` (their usage is unknown and not counted, unless a stream had
   * already delivered it): the runner closes the relay after the agent has
   * gone, so nobody is waiting for those answers. Resolves once every
   * call's record is in `records()`.
   */
  close(): Promise<void>;
}

/** Longest unix socket path Linux accepts (`sun_path` is 108 bytes with its final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/** Response headers passed back to the agent (and any `x-ratelimit-*`, `anthropic-ratelimit-*`). */
const FORWARDED_RESPONSE_HEADERS = ["content-type", "retry-after", "x-request-id", "request-id"];

/**
 * Starts a relay on a unix socket.
 *
 * Surface, an explicit allow-list ({@linkcode routeRequest}): the request
 * target must be in canonical form (no `%` encoding, no `//`, no trailing
 * slash, no `.`/`..` segment, no query but an API's own, such as Messages'
 * `?beta=true`, forwarded as it is); then `POST` to a path of
 * {@linkcode MODEL_CALL_PATHS} is a model call of that path's API,
 * `GET /v1/models` and `GET /v1/models/<id>` are forwarded without a body
 * and counted in `other_requests`, and `GET /relay/health` answers
 * `{"ok":true}` locally (a readiness probe that never reaches the
 * upstream). Everything else (other paths and methods, non-canonical
 * variants of the model paths) is answered locally, 400, 404 or 405, its
 * body unread, and counted in `denied_requests` and
 * `unsupported_requests`: nothing outside the allow-list is ever forwarded.
 * At most `maxConcurrentRequests` requests are served at once; more get 429
 * (`concurrency_limit`), counted in `denied_requests` only. The path after
 * `/v1` is appended to `upstreamBaseUrl`.
 *
 * For each model call, in order (field names are each API's, from its
 * {@linkcode ModelApi} module: Chat Completions, Responses, Messages):
 * 0. A model call of an API that the upstream's kind (`upstreamKind`) does
 *    not serve (e.g. `/v1/messages` with an OpenAI upstream) gets 404
 *    (`unsupported`), its body unread.
 * 1. The body is read incrementally: one whose `Content-Length` or bytes so
 *    far pass `maxBodyBytes` gets 413 at once (the rest is never read), one
 *    not received within `bodyDeadlineMs` gets 408 (both `bad_request`),
 *    one that is not a JSON object 400 (`unsupported`: nothing the relay
 *    cannot parse is forwarded).
 * 2. A `stream` present and not a boolean, or an `n` or `best_of` present
 *    and not null or 1, gets 400 (`bad_request`): one call forwards one
 *    choice, so the output policy and the token reservation below hold per
 *    call; so does a request the API's module cannot meter (a Responses
 *    call with `"background": true`). With `pinnedModel`, a `model` other
 *    than it gets 403 (`model_not_allowed`).
 * 3. Step cap: once `stepCap` calls have been forwarded, further calls get
 *    403 with error code `step_cap`.
 * 4. Token cap ({@linkcode TokenBudget}): the call's largest possible output
 *    is its output cap as forwarded (the first integer of the API's output
 *    cap fields: Chat Completions `max_completion_tokens` ?? `max_tokens`,
 *    Responses `max_output_tokens`, Messages `max_tokens`; after the plan's
 *    `maxOutputTokens` of step 5; null when none is known). With `used` the
 *    prompt + completion tokens of finished calls and `reserved` the output
 *    caps of calls in flight, the call is refused 403 `token_cap` when
 *    `used >= tokenCap` or `used + cap > tokenCap`; it is held (in arrival
 *    order) while `used + reserved + cap > tokenCap`; a call with no known
 *    cap is held while any call is in flight, and holds every later call
 *    while it is; otherwise it is forwarded with its cap reserved. A
 *    finished call releases its reservation and adds its server-reported
 *    usage (a streamed call finishes when its stream ends). So completion
 *    tokens never take the total past the cap; what is left is the prompt:
 *    its size is unknown until the server reports it, and the recorded total
 *    may exceed the cap by the prompt tokens of the calls in flight together
 *    (or by the one call with no known cap), after which
 *    {@linkcode relayStopReason} reports `token_cap`.
 * 5. Forward the body with the headers of {@linkcode upstreamHeaders}: the
 *    agent's `Content-Type` and `Accept` (and for an Anthropic upstream its
 *    `anthropic-version` and `anthropic-beta`), and the key where the kind
 *    expects it (`Authorization: Bearer <upstreamKey>` or
 *    `x-api-key: <upstreamKey>`); the agent's own `Authorization`,
 *    `x-api-key` and other headers are dropped. The body bytes go
 *    unchanged, except in two cases, where the relay changes the JSON and
 *    re-serializes it (compact; numbers in shortest round-trip form):
 *    - a streamed call (`"stream": true`) of an API whose streams carry
 *      usage only when asked (Chat Completions: `stream_options.include_usage`
 *      set to true, the agent's other `stream_options` members kept),
 *      because seed 000's evidence gate needs server-reported usage;
 *      Responses and Messages streams carry usage unasked and go unchanged;
 *    - with `maxOutputTokens` (the plan's output policy): a request whose
 *      output cap is absent or larger gets the plan's value. Each of the
 *      API's output cap fields the agent set (null included) that is not an
 *      integer at most `maxOutputTokens` is set to it; when the agent set
 *      none, the relay sets the API's own (`max_tokens` for Chat
 *      Completions, the field every OpenAI-compatible server accepts;
 *      `max_output_tokens` for Responses; `max_tokens`, which the API
 *      requires, for Messages). A request already capped at or below the
 *      value goes unchanged.
 *
 *    These are the only changes the relay ever makes to a request; the
 *    fingerprint is that of the agent's request as received.
 * 6. Record status, latency, `model`, `usage` (and the API's own counts in
 *    `usage_detail`), tool calls, the request fingerprint and the output
 *    cap the forwarded request carried. Upstream 429 is passed through (with `Retry-After`) and
 *    marked `rate_limited`; upstream 5xx and 401/403 (the relay's key was
 *    rejected, a harness problem) are passed through and a connection failure
 *    or timeout is answered 502, all marked `provider_fault`. The
 *    relay never retries.
 * 7. Any occurrence of the upstream key in the response body is replaced by
 *    `[redacted]` before the agent sees it.
 * 8. A streamed call whose upstream answers 2xx with `text/event-stream` is
 *    passed back event by event as the events arrive (each complete event,
 *    up to its blank line, redacted as in 7). The API's stream reader reads
 *    every event for the server model id (the first; a later different one
 *    is noted in `detail`), the usage and the tool calls, and says which
 *    event is the last (`data: [DONE]`, `response.completed`,
 *    `message_stop`). The usage-only chunk that the relay's `include_usage`
 *    adds to a Chat Completions stream is withheld from an agent that did
 *    not ask for it itself, so that it sees the stream it asked for. The call
 *    is recorded when the stream ends: `latency_ms` to the end,
 *    `first_byte_ms` to the first body bytes. An agent that closes the
 *    stream early gets nothing more, but the relay reads the upstream to its
 *    end for the usage (the spend is real and counts toward the token cap,
 *    exactly as for a non-streamed call the agent stopped waiting for), and
 *    `detail` says after how many events the agent left. A stream that fails
 *    midway (timeout, reset, an upstream error event) is a
 *    `provider_fault`; the agent gets a last error event in the API's form.
 *    A stream without usage leaves `usage` null, which the evidence gate
 *    makes `evidence_missing`. Any other answer to a streamed call (non-2xx,
 *    or a body that is not an event stream) is handled as in 6 and 7.
 * 9. When {@linkcode Relay.close} is called, calls still waiting for the
 *    upstream or still streaming are aborted and recorded with fault
 *    `aborted` (a cut-off stream ends with an `aborted` error event); calls
 *    still held for the token cap are refused `token_cap`.
 *
 * Refusal bodies are in the error form of the API the agent called
 * ({@linkcode kindErrorBody}): OpenAI's `{"error":{"message","type","param","code"}}`,
 * Anthropic's `{"type":"error","error":{"type","message","details":{"error_code"}}}`;
 * requests outside the surface get the upstream kind's form.
 *
 * @param socketPath Where to listen (at most 107 bytes); a stale socket file there is replaced.
 * @param options Upstream, key and caps.
 * @returns The running relay, once it listens.
 * @throws {Error} when the key is empty, the base URL is not http(s), `maxOutputTokens` is not a
 * positive integer, the socket path is too long, or the path exists and is not a socket
 * @example
 * ```ts
 * import { startRelay } from "./relay.ts";
 * import { startScriptedProvider } from "./scripted_provider.ts";
 * const provider = await startScriptedProvider({ default: { content: "ok" } }, { apiKey: "up" });
 * const socketPath = `${await Deno.makeTempDir()}/relay.sock`;
 * const relay = await startRelay(socketPath, { upstreamBaseUrl: provider.baseUrl, upstreamKey: "up" });
 * const client = Deno.createHttpClient({ proxy: { transport: "unix", path: socketPath } });
 * const response = await fetch("http://relay/v1/chat/completions", {
 *   client,
 *   method: "POST",
 *   body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
 * });
 * await response.body?.cancel();
 * client.close();
 * await relay.close();
 * await provider.close();
 * if (relay.totals().model_calls !== 1) throw new Error("one call expected");
 * ```
 */
export async function startRelay(socketPath: string, options: RelayOptions): Promise<Relay> {
  if (options.upstreamKey === "") throw new Error("Cannot start relay: the upstream key is empty");
  const pathBytes = new TextEncoder().encode(socketPath).length;
  if (pathBytes > MAX_SOCKET_PATH_BYTES) {
    throw new Error(
      `Cannot start relay: socket path "${socketPath}" is ${pathBytes} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit of unix sockets`,
    );
  }
  const base = parseBaseUrl(options.upstreamBaseUrl);
  const maxOutputTokens = options.maxOutputTokens ?? null;
  if (
    maxOutputTokens !== null && !(Number.isSafeInteger(maxOutputTokens) && maxOutputTokens > 0)
  ) {
    throw new Error(
      `Cannot start relay: the output cap "maxOutputTokens" must be a positive integer, not ${maxOutputTokens}`,
    );
  }
  const tokenCap = options.tokenCap ?? null;
  const stepCap = options.stepCap ?? null;
  const timeoutMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const bodyDeadlineMs = options.bodyDeadlineMs ?? 30_000;
  const maxConcurrentRequests = options.maxConcurrentRequests ?? 64;
  const pinnedModel = options.pinnedModel ?? null;
  const upstreamKind = options.upstreamKind ?? "openai";
  const key = options.upstreamKey;
  const closing = new AbortController();
  const upstreamConfig: Upstream = {
    base,
    kind: upstreamKind,
    key,
    timeoutMs,
    closing: closing.signal,
  };

  const records: RelayCallRecord[] = [];
  const inFlight = new Map<number, RelayCallRecord>();
  const bodies = new CallBodyLog(key, options.callBodyLimits);
  let arrivals = 0;
  let admitted = 0;
  let otherRequests = 0;
  let deniedRequests = 0;
  let deniedUnsupported = 0;
  let active = 0;
  const budget = tokenCap === null ? null : new TokenBudget(tokenCap);
  const tickets = new Map<number, Ticket>();

  /** The answer to a model call the relay words itself, its body logged. */
  const answer = (index: number, api: ModelApi, status: number, error: RelayError) => {
    const text = JSON.stringify(kindErrorBody(api.kind, error));
    bodies.append(index, text);
    return new Response(text, { status, headers: { "content-type": "application/json" } });
  };

  const refuse = (
    call: { index: number; endpoint: string; api: ModelApi },
    refusal: RelayRefusal,
    status: number,
    fingerprint: string | null,
    message: string,
  ): Response => {
    records.push({
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
    const type = refusal === "step_cap" || refusal === "token_cap"
      ? "budget_exhausted"
      : "invalid_request_error";
    return answer(call.index, call.api, status, { message, type, code: refusal });
  };

  const modelCall = async (
    request: Request,
    { path: endpoint, target, api }: { path: string; target: string; api: ModelApi },
  ) => {
    arrivals += 1;
    const call = { index: arrivals, endpoint, api };
    const index = call.index;
    if (api.kind !== upstreamKind) {
      await request.body?.cancel().catch(() => {});
      bodies.open(index, endpoint, "", Number(request.headers.get("content-length")) || 0);
      return refuse(
        call,
        "unsupported",
        404,
        null,
        `Not served by this relay: "POST ${endpoint}" is the ${api.name} API, and this ` +
          `episode's upstream serves the "${upstreamKind}" APIs only`,
      );
    }
    const read = await readBody(request, { maxBytes: maxBodyBytes, deadlineMs: bodyDeadlineMs });
    if (read.kind === "too_large") {
      bodies.open(index, endpoint, "", read.bytesRead);
      return refuse(
        call,
        "bad_request",
        413,
        null,
        `Request body too large: over the relay limit of ${maxBodyBytes} bytes ` +
          `(refused after reading ${read.bytesRead})`,
      );
    }
    if (read.kind === "timed_out") {
      bodies.open(index, endpoint, "", read.bytesRead);
      return refuse(
        call,
        "bad_request",
        408,
        null,
        `Request body not received within ${bodyDeadlineMs} ms (${read.bytesRead} bytes read)`,
      );
    }
    const bytes = read.bytes;
    const text = new TextDecoder().decode(bytes);
    bodies.open(index, endpoint, text, bytes.length);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!isRecord(parsed)) {
      return refuse(
        call,
        "unsupported",
        400,
        null,
        "Request body must be a JSON object: the relay forwards nothing it cannot meter",
      );
    }
    const body = parsed;
    const fingerprint = requestFingerprint(body);
    const problem = requestProblem(body, pinnedModel, api);
    if (problem !== null) {
      return refuse(call, problem.refusal, problem.status, fingerprint, problem.message);
    }
    const streamed = body.stream === true;
    const stepRefusal = () =>
      refuse(
        call,
        "step_cap",
        403,
        fingerprint,
        `Step cap reached: ${admitted} model calls of ${stepCap} allowed`,
      );
    if (stepCap !== null && admitted >= stepCap) return stepRefusal();
    const capped = maxOutputTokens === null ? null : withOutputCap(api, body, maxOutputTokens);
    const sent = capped ?? body;
    let ticket: Ticket | null = null;
    if (budget !== null) {
      const admission = await budget.admit(outputCapOf(api, sent));
      if (admission.kind === "refused") {
        return refuse(call, "token_cap", 403, fingerprint, admission.message);
      }
      ticket = admission.ticket;
      if (stepCap !== null && admitted >= stepCap) {
        budget.settle(ticket, 0);
        return stepRefusal();
      }
    }
    admitted += 1;
    const record: RelayCallRecord = {
      index,
      endpoint,
      forwarded: true,
      refusal: null,
      status: 502,
      upstream_status: null,
      server_model_id: null,
      usage: null,
      tool_calls: 0,
      fingerprint,
      output_cap: outputCapOf(api, sent),
      fault: null,
      latency_ms: 0,
      detail: "",
    };
    inFlight.set(index, record);
    if (ticket !== null) tickets.set(index, ticket);
    const changed = streamed ? api.streamedRequest(sent) ?? capped : capped;
    const forwardedBytes = changed === null
      ? bytes
      : new TextEncoder().encode(JSON.stringify(changed));
    const started = performance.now();
    let upstream: WholeResponse;
    try {
      const response = await open(
        upstreamConfig,
        target,
        "POST",
        request.headers,
        forwardedBytes,
      );
      if (streamed && response.ok && isEventStream(response.headers)) {
        return relayStream(response, record, started, api.streamReader(body), api);
      }
      upstream = await readWhole(response);
    } catch (error) {
      record.latency_ms = roundMs(performance.now() - started);
      if (closing.signal.aborted) {
        record.status = 503;
        record.fault = "aborted";
        record.detail = "Aborted: the relay closed before the upstream answered";
        finish(record);
        return answer(index, api, 503, {
          message: record.detail,
          type: "upstream_error",
          code: "aborted",
        });
      }
      record.fault = "provider_fault";
      record.detail = error instanceof DOMException && error.name === "TimeoutError"
        ? `No answer from the upstream within the upstream timeout of ${timeoutMs} ms`
        : `Upstream unreachable: ${describe(error)}`;
      finish(record);
      return answer(index, api, 502, {
        message: record.detail,
        type: "upstream_error",
        code: "provider_fault",
      });
    }
    record.latency_ms = roundMs(performance.now() - started);
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
    finish(record);
    const back = passBack(upstream, key);
    bodies.append(index, back.text);
    return back.response;
  };

  /**
   * Pushes a finished call's record, releases its reservation and counts its
   * usage toward the token cap.
   */
  const finish = (record: RelayCallRecord): void => {
    const ticket = tickets.get(record.index);
    if (ticket !== undefined && budget !== null) {
      tickets.delete(record.index);
      const usage = record.usage;
      budget.settle(ticket, usage === null ? 0 : usage.prompt_tokens + usage.completion_tokens);
    }
    inFlight.delete(record.index);
    records.push(record);
  };

  /** Streams still being read; `close()` waits for their records. */
  const streams = new Set<Promise<void>>();

  const relayStream = (
    response: Response,
    record: RelayCallRecord,
    started: number,
    seen: StreamReader,
    api: ModelApi,
  ): Response => {
    record.status = response.status;
    record.upstream_status = response.status;
    const take = () => {
      const evidence = seen.evidence();
      record.server_model_id = evidence.model;
      record.usage = evidence.usage;
      if (evidence.usageDetail !== null) record.usage_detail = evidence.usageDetail;
      record.tool_calls = evidence.toolCalls;
    };
    const { response: toAgent, finished } = streamBack(response, {
      headers: passedHeaders(response.headers),
      key,
      onEvent: (event) => {
        const verdict = seen.add(event);
        take();
        return verdict;
      },
      onSent: (text) => bodies.append(record.index, text),
      onAgentClosed: (passed) => {
        record.detail = `Agent closed the stream after ${eventCount(passed)} passed back; ` +
          "the relay reads the rest of the upstream stream for the evidence";
      },
      onEnd: (end) => {
        record.latency_ms = roundMs(performance.now() - started);
        record.first_byte_ms = end.firstByteAt === null ? null : roundMs(end.firstByteAt - started);
        take();
        const notes: string[] = [];
        let last: string | null = null;
        if (end.error !== null && closing.signal.aborted) {
          record.fault = "aborted";
          notes.push(
            `Aborted: the relay closed after ${eventCount(end.events)} of the upstream stream`,
          );
          last = api.streamErrorEvent({
            message: notes[0],
            type: "upstream_error",
            code: "aborted",
          });
        } else if (end.error !== null) {
          record.fault = "provider_fault";
          notes.push(
            `Upstream stream failed after ${eventCount(end.events)}: ${describe(end.error)}`,
          );
          last = api.streamErrorEvent({
            message: notes[0],
            type: "upstream_error",
            code: "provider_fault",
          });
        } else if (seen.upstreamError() !== null) {
          record.fault = "provider_fault";
          notes.push(`Upstream sent an error event: "${seen.upstreamError()}"`);
        }
        if (end.agentClosedAfter !== null) notes.push(agentClosedNote(end));
        notes.push(...seen.notes(end.done || end.error !== null));
        record.detail = notes.join("; ");
        finish(record);
        return end.agentClosedAfter === null ? last : null;
      },
    });
    streams.add(finished);
    finished.finally(() => streams.delete(finished)).catch(() => {});
    return toAgent;
  };

  const deny = (
    status: number,
    message: string,
    code: string,
    unsupported: boolean,
  ): Response => {
    deniedRequests += 1;
    if (unsupported) deniedUnsupported += 1;
    return Response.json(
      kindErrorBody(upstreamKind, { message, type: "invalid_request_error", code }),
      { status },
    );
  };

  const handler = async (request: Request): Promise<Response> => {
    const route = routeRequest(request.method, rawTarget(request.url));
    if (route.kind === "health") return Response.json({ ok: true });
    if (route.kind === "denied") {
      await request.body?.cancel().catch(() => {});
      const code = route.status === 405 ? "method_not_allowed" : "not_found";
      return deny(route.status, route.message, route.status === 400 ? "bad_request" : code, true);
    }
    if (active >= maxConcurrentRequests) {
      await request.body?.cancel().catch(() => {});
      return deny(
        429,
        `Too many concurrent requests: the relay serves at most ${maxConcurrentRequests} at once`,
        "concurrency_limit",
        false,
      );
    }
    active += 1;
    try {
      if (route.kind === "model_call") return await modelCall(request, route);
      otherRequests += 1;
      try {
        const upstream = await readWhole(
          await open(upstreamConfig, route.path, "GET", request.headers, null),
        );
        return passBack(upstream, key).response;
      } catch (error) {
        return Response.json(
          kindErrorBody(upstreamKind, {
            message: `Upstream unreachable: ${describe(error)}`,
            type: "upstream_error",
            code: "provider_fault",
          }),
          { status: 502 },
        );
      }
    } finally {
      active -= 1;
    }
  };

  await clearStaleSocket(socketPath);
  const { promise: listening, resolve } = Promise.withResolvers<void>();
  const server = Deno.serve({ path: socketPath, onListen: () => resolve() }, handler);
  await listening;
  await Deno.chmod(socketPath, 0o600);

  return {
    socketPath,
    records: () => records.map((record) => structuredClone(record)),
    inFlight: () => [...inFlight.values()].map((record) => structuredClone(record)),
    totals: () => totalsOf(records, { otherRequests, deniedRequests, deniedUnsupported }),
    callBodies: () => bodies.list(),
    stopReason: () => relayStopReason(records, { tokenCap }),
    close: async () => {
      closing.abort();
      budget?.refuseHeld("Token cap: the call was held for calls in flight until the relay closed");
      await Promise.allSettled([...streams]);
      await server.shutdown();
      await Deno.remove(socketPath).catch(() => {});
    },
  };
}

function parseBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`Cannot start relay: upstream base URL "${text}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`Cannot start relay: upstream base URL "${text}" must be http or https`);
  }
  return url.href.replace(/\/+$/, "");
}

async function clearStaleSocket(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (!info.isSocket) {
    throw new Error(`Cannot start relay: "${path}" exists and is not a socket`);
  }
  await Deno.remove(path);
}

interface Upstream {
  base: string;
  kind: UpstreamKind;
  key: string;
  timeoutMs: number;
  /** Aborted by `close()`: cuts off calls still waiting for the upstream. */
  closing: AbortSignal;
}

/** An upstream response read to its end. */
interface WholeResponse {
  status: number;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
}

/** Sends a request upstream; resolves when the response headers arrive. */
function open(
  upstream: Upstream,
  pathAndSearch: string,
  method: string,
  incoming: Headers,
  body: Uint8Array<ArrayBuffer> | null,
): Promise<Response> {
  const headers = upstreamHeaders(upstream.kind, {
    key: upstream.key,
    incoming,
    withBody: body !== null,
  });
  const signal = AbortSignal.any([AbortSignal.timeout(upstream.timeoutMs), upstream.closing]);
  return fetch(`${upstream.base}${pathAndSearch.slice("/v1".length)}`, {
    method,
    headers,
    body: body === null ? undefined : body,
    signal,
    redirect: "manual",
  });
}

async function readWhole(response: Response): Promise<WholeResponse> {
  return {
    status: response.status,
    headers: response.headers,
    body: new Uint8Array(await response.arrayBuffer()),
  };
}

function passedHeaders(upstream: Headers): Headers {
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

/** The agent's response to a whole upstream answer, and its body as text (redacted). */
function passBack(upstream: WholeResponse, key: string): { response: Response; text: string } {
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

function isEventStream(headers: Headers): boolean {
  const type = headers.get("content-type") ?? "";
  return type.split(";")[0].trim().toLowerCase() === "text/event-stream";
}

/** Why {@linkcode requestProblem} refuses a model call. */
interface RequestProblem {
  refusal: RelayRefusal;
  status: number;
  message: string;
}

/**
 * A model call the relay must not forward (step 2 of `startRelay`): a
 * `stream` present and not a boolean; an `n` or `best_of` present and not
 * null or 1 (each choice would be another output under the output and token
 * caps); a request the API's module cannot meter; with `pinned`, a `model`
 * that is not exactly it. Null when none.
 */
function requestProblem(
  body: Record<string, unknown>,
  pinned: string | null,
  api: ModelApi,
): RequestProblem | null {
  if (Object.hasOwn(body, "stream") && typeof body.stream !== "boolean") {
    return {
      refusal: "bad_request",
      status: 400,
      message: `Field "stream" must be a boolean, not ${JSON.stringify(body.stream)}`,
    };
  }
  for (const field of ["n", "best_of"]) {
    const value = body[field];
    if (value !== undefined && value !== null && value !== 1) {
      return {
        refusal: "bad_request",
        status: 400,
        message: `Field "${field}" must be 1 when given, not ${JSON.stringify(value)}: ` +
          "the relay forwards one choice per call",
      };
    }
  }
  const unmetered = api.requestProblem(body);
  if (unmetered !== null) return { refusal: "bad_request", status: 400, message: unmetered };
  if (pinned !== null && body.model !== pinned) {
    return {
      refusal: "model_not_allowed",
      status: 403,
      message: `Model not allowed: ${
        JSON.stringify(body.model ?? null)
      }; this episode's model is "${pinned}"`,
    };
  }
  return null;
}

/** The first of the API's output cap fields that is a non-negative integer, or null. */
function outputCapOf(api: ModelApi, body: Record<string, unknown>): number | null {
  for (const field of api.outputCapFields) {
    const value = body[field];
    if (isCount(value)) return value;
  }
  return null;
}

/**
 * The request with its output cap brought to at most `cap` (step 5 of
 * `startRelay`): each of the API's cap fields the agent set that is not an
 * integer at most `cap` is set to `cap`; with none set, the API's default
 * field is. Null when the request needs no change.
 */
function withOutputCap(
  api: ModelApi,
  body: Record<string, unknown>,
  cap: number,
): Record<string, unknown> | null {
  const used = api.outputCapFields.filter((field) => Object.hasOwn(body, field));
  if (used.length === 0) return { ...body, [api.defaultOutputCapField]: cap };
  const over = used.filter((field) => !(isCount(body[field]) && body[field] <= cap));
  if (over.length === 0) return null;
  return { ...body, ...Object.fromEntries(over.map((field) => [field, cap])) };
}

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

function eventCount(n: number): string {
  return n === 1 ? "1 event" : `${n} events`;
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

function totalsOf(
  records: readonly RelayCallRecord[],
  counts: { otherRequests: number; deniedRequests: number; deniedUnsupported: number },
): RelayTotals {
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
    other_requests: counts.otherRequests,
    denied_requests: counts.deniedRequests,
    unsupported_requests: counts.deniedUnsupported,
  };
  for (const record of records) {
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
  }
  totals.total_tokens = totals.prompt_tokens + totals.completion_tokens;
  return totals;
}

function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function describe(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return "timed out";
  return error instanceof Error ? error.message : String(error);
}
