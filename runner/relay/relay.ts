/**
 * The host relay (seed 000 §04 "宿主中转", issue 3 "One episode" 2, issue 8):
 * the only way an agent reaches a model. It listens on a unix socket on the
 * host, exposes an allow-list (model calls of the APIs it meters, the model
 * list; everything else is refused locally), forwards to an OpenAI or an
 * Anthropic upstream with the upstream key (which lives nowhere else),
 * records the evidence of every call and enforces the episode's token and
 * step caps. Streamed calls (`"stream": true`) are relayed event by event,
 * with the same evidence recorded; calls asked for whole are forwarded
 * streamed too and answered whole, reassembled from the events (issue 21:
 * an upstream that is answering is never silent, so only a silent one is a
 * provider fault). What each API's requests, responses and
 * streams look like is in its module under `api/` ({@linkcode ModelApi});
 * this file knows no API's field names.
 *
 * One relay serves one episode: its records, totals and stop reason are the
 * episode's.
 *
 * @module
 */
import { DEFAULT_UPSTREAM_TIMEOUT_MS, type StopReason } from "../../analysis/schema/records.ts";
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import { relayStopReason } from "./relay_stop_reason.ts";
import { rawTarget, routeRequest } from "./relay_surface.ts";
import { TokenBudget } from "./token_budget.ts";
import type { CallBodies, CallBodyLimits } from "./call_bodies.ts";
import type { ModelApi, RelayError } from "./api/model_api.ts";
import { errorBody as kindErrorBody, type UpstreamKind } from "./api/upstream_kind.ts";
import {
  type AdmissionRules,
  type AdmissionState,
  admitModelCall,
  type RoutedCall,
} from "./admission.ts";
import { CallLog, type DeniedRequest, type RelayTotals } from "./call_log.ts";
import { forwardOther, type Upstream } from "./forward_call.ts";
import { forwardModelCall } from "./forward_model_call.ts";
import { forwardCount } from "./count_tokens.ts";
import { askPromptCount } from "./provider_prompt_count.ts";
import { budgetLeft, type BudgetSource, setBudgetHeaders } from "./budget_left.ts";

export type { DeniedRequest, RelayTotals } from "./call_log.ts";
export { MODEL_CALL_PATHS } from "./relay_surface.ts";

/** Options of {@linkcode startRelay}. */
export interface RelayOptions {
  /**
   * Base URL of the upstream, ending in its API version, e.g.
   * `https://api.openai.com/v1`, `https://api.anthropic.com/v1` or
   * `https://generativelanguage.googleapis.com/v1beta`: a call's path after
   * its own version segment is appended to it.
   */
  upstreamBaseUrl: string;
  /**
   * Which APIs the upstream serves (default `openai`; `anthropic`; `gemini`):
   * only model calls of its kind's APIs are forwarded; one of another kind
   * is refused `unsupported` (an agent speaks one vendor's API).
   */
  upstreamKind?: UpstreamKind;
  /**
   * The upstream key, sent upstream only, where the kind expects it:
   * `Authorization: Bearer <key>` (openai), `x-api-key: <key>` (anthropic)
   * or `x-goog-api-key: <key>` (gemini).
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
   * Longest silence of the upstream per call in ms (the plan's
   * `upstream_timeout_ms`; default `DEFAULT_UPSTREAM_TIMEOUT_MS`, 300000):
   * the limit starts when the request is sent and again whenever bytes of
   * the answer arrive ({@linkcode SilenceTimer}); past it the call is a
   * provider fault. Every model call is forwarded streamed (step 6 of
   * {@linkcode startRelay}), so an answer that takes long but keeps coming
   * never reaches it.
   */
  upstreamTimeoutMs?: number;
  /** Largest request body accepted, in bytes (default 33554432, 32 MiB). */
  maxBodyBytes?: number;
  /** Time allowed to receive a model call's body once its headers arrived, in ms (default 30000). */
  bodyDeadlineMs?: number;
  /** Requests served at once (a streamed call until its stream ends); more are answered 429 locally (default 64). */
  maxConcurrentRequests?: number;
  /**
   * The plan's agent model (`PlannedAgent.model`): a model call whose
   * `model` is anything else is refused 403 `model_not_allowed` and never
   * forwarded. Null or absent: any model the agent names is forwarded.
   */
  pinnedModel?: string | null;
  /** Bounds of the per-call bodies kept for the evidence ({@linkcode Relay.callBodies}). */
  callBodyLimits?: Partial<CallBodyLimits>;
  /**
   * Provider features the plan allows by name (`freeze
   * --allow-provider-feature`, `provider_features.ts`); every other one is
   * refused 403 `provider_feature`. Absent: none.
   */
  allowedProviderFeatures?: readonly string[];
  /**
   * The episode's wall cap in ms, told to the agent as the seconds it has
   * left (`budget_left.ts`), counted from the relay's start; null or absent:
   * not told.
   */
  wallCapMs?: number | null;
  /**
   * How long `close()` lets calls in flight finish before cutting them off,
   * in ms (default {@linkcode CLOSE_GRACE_MS}): their usage is the episode's
   * spend even when the agent has gone.
   */
  closeGraceMs?: number;
}

/**
 * Default grace of {@linkcode Relay.close} for calls in flight (60 s): long
 * enough for a call that is being answered to deliver its usage, short
 * enough to bound an episode's end.
 */
export const CLOSE_GRACE_MS = 60_000;

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
   * The requests answered locally outside the model APIs (paths, methods
   * and targets the relay does not serve, the concurrency limit), with
   * method and target, in arrival order (the first 256).
   */
  denied(): DeniedRequest[];
  /**
   * The bodies of the model-call requests so far, in index order (one per
   * record with a logged body, same `index`): each request as the agent
   * sent it and the response as the agent received it (streams: the events
   * passed back, concatenated), the upstream key redacted, each kept up to
   * 64 KiB with its whole length, and at most 8 MiB and 2048 calls per
   * episode ({@linkcode CallBodyLimits}, `callBodyLimits`); copies.
   */
  callBodies(): CallBodies[];
  /** {@linkcode relayStopReason} of the records. */
  stopReason(): StopReason;
  /**
   * Stops listening and removes the socket file. Calls still held for the
   * token cap are refused; calls still waiting for the upstream, or still
   * streaming from it, are given `closeGraceMs` to finish, so that their
   * usage is recorded although the agent has gone (the spend is real);
   * past it they are cut off and recorded with fault `aborted`, and one
   * without usage with `spend_unknown` (issue 21: spend is never lost, and
   * never taken as 0). Resolves once every call's record is in `records()`.
   */
  close(): Promise<void>;
}

/** Longest unix socket path Linux accepts (`sun_path` is 108 bytes with its final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * Starts a relay on a unix socket.
 *
 * Surface, an explicit allow-list ({@linkcode routeRequest}): the request
 * target must be in canonical form (no `%` encoding, no `//`, no trailing
 * slash, no `.`/`..` segment, no query but an API's own, such as Messages'
 * `?beta=true`, forwarded as it is); then `POST` to a path of
 * {@linkcode MODEL_CALL_PATHS} is a model call of that path's API,
 * `GET /relay/budget` answers the budget left (`budget_left.ts`, counted in
 * `budget_requests`), every model call's response carries it in the
 * `ledgerbench-*-left` headers,
 * `GET /v1/models` and `GET /v1/models/<id>` are forwarded without a body
 * and counted in `other_requests`, so are the token-counting calls of the
 * upstream's kind (`forwardCount`: Gemini's `:countTokens`, Anthropic's
 * `/v1/messages/count_tokens`, with their bodies, never metered), and `GET /relay/health` answers
 * `{"ok":true}` locally (a readiness probe that never reaches the
 * upstream). Everything else (other paths and methods, non-canonical
 * variants of the model paths) is answered locally, 400, 404 or 405, its
 * body unread, and counted in `denied_requests` and
 * `unsupported_requests`: nothing outside the allow-list is ever forwarded.
 * At most `maxConcurrentRequests` requests are served at once (a streamed
 * call until its upstream stream ends); more get 429
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
 * 3. Provider features (`providerFeaturesOf`, `provider_features.ts`): a request that
 *    uses a provider-side capability (a hosted or server tool, provider-stored
 *    state, a URL the provider would fetch, a beta header enabling one) that
 *    `allowedProviderFeatures` does not name gets 403 (`provider_feature`),
 *    naming each use; allowed ones are recorded on the call.
 * 4. Step cap: once `stepCap` calls have been forwarded, further calls get
 *    403 with error code `step_cap`.
 * 5. Output policy and token cap. With `maxOutputTokens` (the plan's output
 *    policy) a request whose output cap is absent or larger gets the plan's
 *    value. Then, with `tokenCap` ({@linkcode TokenBudget}), the call
 *    reserves a bound of its prompt ({@linkcode promptTokenBound}: the
 *    body's bytes plus documented allowances) plus its output cap: refused
 *    403 `token_cap` only when not one output token is left after the
 *    prompt's bound; forwarded as it is when its reservation fits what is
 *    left beside the calls in flight; otherwise held (in arrival order)
 *    until it runs alone and then forwarded with its output cap lowered to
 *    what is left (set when it had none; recorded as `cap_lowered`). A
 *    finished call releases its reservation and adds its server-reported
 *    usage (its whole reservation when the usage never came). So the total
 *    recorded never passes the cap while each prompt is within its bound.
 *    Output caps go in each of the API's cap fields the agent set (null
 *    included) that is not an integer at most the value; when the agent set
 *    none, in the API's own field (`max_tokens` for Chat Completions, the
 *    field every OpenAI-compatible server accepts; `max_output_tokens` for
 *    Responses; `max_tokens`, which the API requires, for Messages).
 * 6. Forward the body with the headers of {@linkcode upstreamHeaders}: the
 *    agent's `Content-Type` and `Accept` (and for an Anthropic upstream its
 *    `anthropic-version` and `anthropic-beta`), and the key where the kind
 *    expects it (`Authorization: Bearer <upstreamKey>` or
 *    `x-api-key: <upstreamKey>`); the agent's own `Authorization`,
 *    `x-api-key` and other headers are dropped. The body bytes go
 *    unchanged, except where the relay changes the JSON and re-serializes
 *    it (compact; numbers in shortest round-trip form): the output caps of
 *    step 5; a provider default the plan's features require
 *    (`requestChanges` of `provider_features.ts`: a Responses request without
 *    `store` gets `store: false`); a streamed call (`"stream": true`)
 *    of an API whose streams carry usage only when asked (Chat Completions:
 *    `stream_options.include_usage` set to true, the agent's other
 *    `stream_options` members kept), because seed 000's evidence gate needs
 *    server-reported usage; and a call the agent sent without
 *    `"stream": true` is forwarded streamed ({@linkcode streamedForWhole}:
 *    `stream` set to true, and for Chat Completions `include_usage` as
 *    above; issue 21, "Invalid only when the harness failed"), so that an
 *    upstream answering a long generation sends bytes all along (the
 *    agent's spend), and only a silent one times out (a provider fault); the
 *    agent still gets one whole answer (step 8).
 *    These are the only changes the relay ever makes to a request; the
 *    fingerprint is that of the agent's request as received.
 * 7. Record status, latency, `model`, `usage` (and the API's own counts in
 *    `usage_detail`), tool calls, the request fingerprint, the output cap
 *    the forwarded request carried and, under a token cap, the prompt bound
 *    reserved. Upstream 429 is passed through (with `Retry-After`) and
 *    marked `rate_limited`; upstream 5xx and 401/403 (the relay's key was
 *    rejected, a harness problem) are passed through and a connection
 *    failure or an upstream silent for `upstreamTimeoutMs`
 *    ({@linkcode SilenceTimer}: the timer starts again whenever bytes
 *    arrive, so an upstream answering slowly is never a fault) is answered
 *    502, all marked `provider_fault`. The relay never retries. Any
 *    occurrence of the upstream key in the response body is replaced by
 *    `[redacted]` before the agent sees it.
 * 8. A streamed call whose upstream answers 2xx with `text/event-stream` is
 *    passed back event by event as the events arrive (each complete event,
 *    up to its blank line, redacted as in 7; {@linkcode accountStream}). The API's stream reader reads
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
 *    A call the agent sent whole ({@linkcode reassembleStream}) whose
 *    upstream answers 2xx with `text/event-stream` is read the same way
 *    (the reader's evidence, the silence timer restarted on every byte, the
 *    agent's leaving changes nothing) and, once the API's last event came,
 *    answered with ONE whole JSON response reassembled from the events in
 *    the API's whole shape (`ModelApi.wholeFromEvents`: `chat.completion`,
 *    `text_completion`, the final Responses `response`, a Messages
 *    `message`), `content-type: application/json`, redacted as in 7 and
 *    kept as such in the body log; recorded `reassembled`, with
 *    `first_byte_ms`. A stream that fails midway (reset, silent past the
 *    timeout), carries an error event, ends before its last event or makes
 *    no whole response is answered 502 in the API's error form and is a
 *    `provider_fault` (`spend_unknown` when it failed or ended short without
 *    usage); cut off by close, 503 `aborted`. An upstream that ignores
 *    `stream` and answers whole (an OpenAI-compatible server), or answers
 *    an error status, is handled as in 6 and 7, as before.
 * 9. When {@linkcode Relay.close} is called, calls still held for the token
 *    cap are refused `token_cap`; calls still waiting for the upstream or
 *    still streaming get `closeGraceMs` to finish and are then aborted and
 *    recorded with fault `aborted` (a cut-off stream ends with an `aborted`
 *    error event), `spend_unknown` when their usage never came.
 *
 * Refusal bodies are in the error form of the API the agent called
 * ({@linkcode kindErrorBody}): OpenAI's `{"error":{"message","type","param","code"}}`,
 * Anthropic's `{"type":"error","error":{"type","message","details":{"error_code"}}}`;
 * requests outside the surface get the upstream kind's form.
 *
 * @param socketPath Where to listen (at most 107 bytes: a runner's come from `runnerSocketPath`,
 *   whatever `TMPDIR` is); a stale socket file there is replaced.
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
  const maxConcurrentRequests = options.maxConcurrentRequests ?? 64;
  const closeGraceMs = options.closeGraceMs ?? CLOSE_GRACE_MS;
  const upstreamKind = options.upstreamKind ?? "openai";
  const key = options.upstreamKey;
  const closing = new AbortController();
  const upstream: Upstream = {
    base,
    kind: upstreamKind,
    key,
    timeoutMs: options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    closing: closing.signal,
  };
  const budget = tokenCap === null ? null : new TokenBudget(tokenCap);
  const rules: AdmissionRules = {
    upstreamKind,
    maxBodyBytes: options.maxBodyBytes ?? 32 * 1024 * 1024,
    bodyDeadlineMs: options.bodyDeadlineMs ?? 30_000,
    pinnedModel: options.pinnedModel ?? null,
    maxOutputTokens,
    stepCap: options.stepCap ?? null,
    budget,
    allowedFeatures: options.allowedProviderFeatures ?? [],
    countPrompt: (count, headers) => askPromptCount(upstream, count, headers),
  };
  const state: AdmissionState = { admitted: 0 };
  const log = new CallLog(key, options.callBodyLimits);
  const budgetSource: BudgetSource = {
    budget,
    tokenCap,
    stepCap: rules.stepCap,
    admitted: () => state.admitted,
    wallCapMs: options.wallCapMs ?? null,
    startedAt: performance.now(),
  };
  /** Forwarded calls not yet recorded; `close()` gives them their grace. */
  const pending = new Set<Promise<void>>();
  let active = 0;

  /** The answer to a model call the relay words itself, its body logged. */
  const answer = (index: number, api: ModelApi, status: number, error: RelayError) => {
    const text = JSON.stringify(kindErrorBody(api.kind, error, status));
    log.bodies.append(index, text);
    return new Response(text, { status, headers: { "content-type": "application/json" } });
  };

  /**
   * One model call: admitted or refused, then forwarded. Returns the agent's
   * response and a promise settled once the call is over (a stream's end:
   * until then it counts toward `maxConcurrentRequests`).
   */
  const modelCall = async (
    request: Request,
    call: RoutedCall,
  ): Promise<{ response: Response; over: Promise<void>; promptBound: number | null }> => {
    const { path: endpoint, api } = call;
    const index = log.arrive();
    const decided = await admitModelCall(request, call, { rules, state });
    log.bodies.open(index, endpoint, decided.received.text, decided.received.bytes);
    if (decided.kind === "refused") {
      log.refuse(
        { index, endpoint },
        decided.refusal,
        decided.status,
        decided.fingerprint,
        decided.message,
      );
      const type = decided.refusal === "step_cap" || decided.refusal === "token_cap"
        ? "budget_exhausted"
        : "invalid_request_error";
      const error = { message: decided.message, type, code: decided.refusal };
      return {
        response: answer(index, api, decided.status, error),
        over: Promise.resolve(),
        promptBound: null,
      };
    }
    const { promise: recorded, resolve: markRecorded } = Promise.withResolvers<void>();
    pending.add(recorded);
    recorded.finally(() => pending.delete(recorded));
    const forwarded = await forwardModelCall(
      { index, endpoint, api, headers: request.headers, admitted: decided },
      {
        upstream,
        log,
        answer: (status, error) => answer(index, api, status, error),
        onFinished: (done) => {
          if (decided.ticket !== null) {
            const usage = done.usage;
            budget!.settle(
              decided.ticket,
              usage === null
                ? (done.spend_unknown === true ? null : 0)
                : usage.prompt_tokens + usage.completion_tokens,
            );
          }
          log.finish(done);
          markRecorded();
        },
      },
    );
    return { ...forwarded, promptBound: decided.promptBound };
  };

  const deny = (
    request: Request,
    answered: { status: number; message: string; code: string },
    unsupported: boolean,
  ): Response => {
    log.deny({
      method: request.method,
      target: rawTarget(request.url),
      status: answered.status,
      code: answered.code,
    }, unsupported);
    return Response.json(
      kindErrorBody(upstreamKind, {
        message: answered.message,
        type: "invalid_request_error",
        code: answered.code,
      }, answered.status),
      { status: answered.status },
    );
  };

  const handler = async (request: Request): Promise<Response> => {
    const route = routeRequest(request.method, rawTarget(request.url));
    if (route.kind === "health") return Response.json({ ok: true });
    if (route.kind === "budget") {
      log.countBudget();
      return Response.json(budgetLeft(budgetSource, performance.now()));
    }
    if (route.kind === "count" && route.api.kind !== upstreamKind) {
      await request.body?.cancel().catch(() => {});
      return deny(request, {
        status: 404,
        message: `Not served by this relay: token counting of the ${route.api.name} API, and ` +
          `this episode's upstream serves the "${upstreamKind}" APIs only`,
        code: "unsupported",
      }, true);
    }
    if (route.kind === "denied") {
      await request.body?.cancel().catch(() => {});
      const code = route.status === 405 ? "method_not_allowed" : "not_found";
      return deny(request, {
        status: route.status,
        message: route.message,
        code: route.status === 400 ? "bad_request" : code,
      }, true);
    }
    if (active >= maxConcurrentRequests) {
      await request.body?.cancel().catch(() => {});
      return deny(request, {
        status: 429,
        message:
          `Too many concurrent requests: the relay serves at most ${maxConcurrentRequests} at once`,
        code: "concurrency_limit",
      }, false);
    }
    active += 1;
    let over: Promise<void> | null = null;
    try {
      if (route.kind === "model_call") {
        const call = await modelCall(request, route);
        over = call.over;
        setBudgetHeaders(
          call.response.headers,
          budgetLeft(budgetSource, performance.now()),
          call.promptBound,
        );
        return call.response;
      }
      log.countOther();
      if (route.kind === "count") {
        return await forwardCount(request, route.target, {
          upstream,
          api: route.api,
          maxBodyBytes: rules.maxBodyBytes,
          bodyDeadlineMs: rules.bodyDeadlineMs,
          allowedFeatures: rules.allowedFeatures,
        });
      }
      return await forwardOther(upstream, {
        pathAndSearch: route.path,
        method: "GET",
        incoming: request.headers,
        body: null,
      });
    } finally {
      // A stream passed back is served until its upstream ends.
      if (over === null) active -= 1;
      else over.then(() => active -= 1, () => active -= 1);
    }
  };

  await clearStaleSocket(socketPath);
  const { promise: listening, resolve } = Promise.withResolvers<void>();
  const server = Deno.serve({ path: socketPath, onListen: () => resolve() }, handler);
  await listening;
  await Deno.chmod(socketPath, 0o600);

  return {
    socketPath,
    records: () => log.records(),
    inFlight: () => log.inFlight(),
    totals: () => log.totals(),
    denied: () => log.denied(),
    callBodies: () => log.callBodies(),
    stopReason: () => relayStopReason(log.records()),
    close: async () => {
      budget?.refuseHeld("Token cap: the call was held for calls in flight until the relay closed");
      if (pending.size > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const grace = new Promise<void>((done) => timer = setTimeout(done, closeGraceMs));
        await Promise.race([Promise.allSettled([...pending]), grace]);
        clearTimeout(timer);
      }
      closing.abort();
      await Promise.allSettled([...pending]);
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
