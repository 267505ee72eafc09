/**
 * The host relay (seed 000 §04 "宿主中转", issue 3 "One episode" 2): the only
 * way an agent reaches a model. It listens on a unix socket on the host,
 * exposes an allow-list of the OpenAI-compatible surface (model calls and
 * the model list; everything else is refused locally), forwards to any OpenAI-compatible
 * upstream with the upstream key (which lives nowhere else), records the
 * evidence of every call and enforces the episode's token and step caps.
 * Streamed calls (`"stream": true`) are relayed event by event, with the
 * same evidence recorded.
 *
 * One relay serves one episode: its records, totals and stop reason are the
 * episode's.
 *
 * @module
 */
import type { StopReason } from "../../analysis/schema.ts";
import type { RelayCallRecord, RelayRefusal, RelayUsage } from "./relay_call_record.ts";
import { relayStopReason } from "./relay_stop_reason.ts";
import { requestFingerprint } from "./request_fingerprint.ts";
import type { SseEvent } from "./_sse_splitter.ts";
import { streamBack, type StreamEnd, type StreamError } from "./_stream_back.ts";
import { readBody } from "./_read_body.ts";
import { rawTarget, routeRequest } from "./relay_surface.ts";
import { type Ticket, TokenBudget } from "./token_budget.ts";

export { MODEL_CALL_PATHS } from "./relay_surface.ts";

/** Options of {@linkcode startRelay}. */
export interface RelayOptions {
  /** Base URL of any OpenAI-compatible upstream, e.g. `https://api.openai.com/v1`. */
  upstreamBaseUrl: string;
  /** The upstream key: sent upstream as `Authorization: Bearer <key>`, nowhere else. */
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
   * Upstream limit per call in ms (default 300000), from sending the request
   * to the end of the response body (of the whole event stream for streamed
   * calls); past it the call is a provider fault.
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
}

/** Sums over an episode's call records. */
export interface RelayTotals {
  /** Forwarded model calls (the episode's `model_calls`). */
  model_calls: number;
  /** Model-call requests the relay answered itself (caps, bad bodies, another model). */
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

/** Request headers passed upstream; everything else, `Authorization` included, is dropped. */
const FORWARDED_REQUEST_HEADERS = ["content-type", "accept"];
/** Response headers passed back to the agent. */
const FORWARDED_RESPONSE_HEADERS = ["content-type", "retry-after", "x-request-id"];

/**
 * Starts a relay on a unix socket.
 *
 * Surface, an explicit allow-list ({@linkcode routeRequest}): the request
 * target must be in canonical form (no `%` encoding, no `//`, no trailing
 * slash, no `.`/`..` segment, no query); then `POST` to a path of
 * {@linkcode MODEL_CALL_PATHS} is a model call, `GET /v1/models` and
 * `GET /v1/models/<id>` are forwarded without a body and counted in
 * `other_requests`, and `GET /relay/health` answers `{"ok":true}` locally (a
 * readiness probe that never reaches the upstream). Everything else (other
 * paths and methods, non-canonical variants of the model paths) is answered
 * locally, 400, 404 or 405, its body unread, and counted in
 * `denied_requests`: nothing outside the allow-list is ever forwarded. At most
 * `maxConcurrentRequests` requests are served at once; more get 429
 * (`concurrency_limit`), also counted in `denied_requests`. The path after
 * `/v1` is appended to `upstreamBaseUrl`.
 *
 * For each model call, in order:
 * 1. The body is read incrementally: one whose `Content-Length` or bytes so
 *    far pass `maxBodyBytes` gets 413 at once (the rest is never read), one
 *    not received within `bodyDeadlineMs` gets 408, one that is not a JSON
 *    object 400, all `bad_request`.
 * 2. A `stream` present and not a boolean, or an `n` or `best_of` present
 *    and not null or 1, gets 400 (`bad_request`): one call forwards one
 *    choice, so the output policy and the token reservation below hold per
 *    call. With `pinnedModel`, a `model` other than it gets 403
 *    (`model_not_allowed`).
 * 3. Step cap: once `stepCap` calls have been forwarded, further calls get
 *    403 with error code `step_cap`.
 * 4. Token cap ({@linkcode TokenBudget}): the call's largest possible output
 *    is its output cap as forwarded (`max_completion_tokens` ??
 *    `max_tokens`, after the plan's `maxOutputTokens` of step 5; null when
 *    neither is known). With `used` the prompt + completion tokens of
 *    finished calls and `reserved` the output caps of calls in flight, the
 *    call is refused 403 `token_cap` when `used >= tokenCap` or `used + cap
 *    > tokenCap`; it is held (in arrival order) while `used + reserved + cap
 *    > tokenCap`; a call with no known cap is held while any call is in
 *    flight, and holds every later call while it is; otherwise it is
 *    forwarded with its cap reserved. A finished call releases its
 *    reservation and adds its server-reported usage (a streamed call
 *    finishes when its stream ends). So completion tokens never take the
 *    total past the cap; what is left is the prompt: its size is unknown
 *    until the server reports it, and the recorded total may exceed the cap
 *    by the prompt tokens of the calls in flight together (or by the one
 *    call with no known cap), after which {@linkcode relayStopReason}
 *    reports `token_cap`.
 * 5. Forward the body with `Content-Type`, `Accept` and
 *    `Authorization: Bearer <upstreamKey>` only; the agent's own
 *    `Authorization` and other headers are dropped. The body bytes go
 *    unchanged, except in two cases, where the relay changes the JSON and
 *    re-serializes it (compact; numbers in shortest round-trip form):
 *    - a streamed call (`"stream": true`): the relay sets
 *      `stream_options.include_usage` to true (keeping the agent's other
 *      `stream_options` members), because seed 000's evidence gate needs
 *      server-reported usage and an OpenAI stream carries usage only when
 *      asked to;
 *    - with `maxOutputTokens` (the plan's output policy): a request whose
 *      output cap is absent or larger gets the plan's value. Each of
 *      `max_completion_tokens` and `max_tokens` the agent set (null
 *      included) that is not an integer at most `maxOutputTokens` is set to
 *      it; when the agent set neither, the relay sets `max_tokens`, the
 *      field every OpenAI-compatible server accepts. A request already
 *      capped at or below the value goes unchanged.
 *
 *    These are the only changes the relay ever makes to a request; the
 *    fingerprint is that of the agent's request as received.
 * 6. Record status, latency, `model`, `usage`, tool calls, the request
 *    fingerprint and the output cap the forwarded request carried
 *    (`max_completion_tokens` ?? `max_tokens` ?? null). Upstream 429 is passed through (with `Retry-After`) and
 *    marked `rate_limited`; upstream 5xx and 401/403 (the relay's key was
 *    rejected, a harness problem) are passed through and a connection failure
 *    or timeout is answered 502, all marked `provider_fault`. The
 *    relay never retries.
 * 7. Any occurrence of the upstream key in the response body is replaced by
 *    `[redacted]` before the agent sees it.
 * 8. A streamed call whose upstream answers 2xx with `text/event-stream` is
 *    passed back event by event as the events arrive (each complete event,
 *    up to its blank line, redacted as in 7). The relay reads every `data:`
 *    JSON event: the first non-empty `model` is the server model id (a later
 *    different one is noted in `detail`), the last `usage` with integer
 *    prompt and completion tokens is the usage, and tool calls are the
 *    distinct `choices[i].delta.tool_calls[j]` entries carrying an `id`;
 *    `data: [DONE]` ends the stream. The usage-only chunk (`"choices": []`)
 *    that the relay's `include_usage` adds is withheld from an agent that did
 *    not ask for it itself, so that it sees the stream it asked for. The call
 *    is recorded when the stream ends: `latency_ms` to the end,
 *    `first_byte_ms` to the first body bytes. An agent that closes the
 *    stream early gets nothing more, but the relay reads the upstream to its
 *    end for the usage (the spend is real and counts toward the token cap,
 *    exactly as for a non-streamed call the agent stopped waiting for), and
 *    `detail` says after how many events the agent left. A stream that fails
 *    midway (timeout, reset, an upstream `error` event) is a
 *    `provider_fault`; the agent gets a last `data: {"error": ...}` event.
 *    A stream without usage leaves `usage` null, which the evidence gate
 *    makes `evidence_missing`. Any other answer to a streamed call (non-2xx,
 *    or a body that is not an event stream) is handled as in 6 and 7.
 * 9. When {@linkcode Relay.close} is called, calls still waiting for the
 *    upstream or still streaming are aborted and recorded with fault
 *    `aborted` (a cut-off stream ends with an `aborted` error event); calls
 *    still held for the token cap are refused `token_cap`.
 *
 * Refusal bodies are OpenAI-style: `{"error":{"message","type","param","code"}}`.
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
  const timeoutMs = options.upstreamTimeoutMs ?? 300_000;
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const bodyDeadlineMs = options.bodyDeadlineMs ?? 30_000;
  const maxConcurrentRequests = options.maxConcurrentRequests ?? 64;
  const pinnedModel = options.pinnedModel ?? null;
  const key = options.upstreamKey;
  const closing = new AbortController();
  const upstreamConfig: Upstream = { base, key, timeoutMs, closing: closing.signal };

  const records: RelayCallRecord[] = [];
  const inFlight = new Map<number, RelayCallRecord>();
  let arrivals = 0;
  let admitted = 0;
  let otherRequests = 0;
  let deniedRequests = 0;
  let active = 0;
  const budget = tokenCap === null ? null : new TokenBudget(tokenCap);
  const tickets = new Map<number, Ticket>();

  const refuse = (
    index: number,
    endpoint: string,
    refusal: RelayRefusal,
    status: number,
    fingerprint: string | null,
    message: string,
  ): Response => {
    records.push({
      index,
      endpoint,
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
    return Response.json(errorBody(message, type, refusal), { status });
  };

  const modelCall = async (request: Request, endpoint: string) => {
    arrivals += 1;
    const index = arrivals;
    const read = await readBody(request, { maxBytes: maxBodyBytes, deadlineMs: bodyDeadlineMs });
    if (read.kind === "too_large") {
      return refuse(
        index,
        endpoint,
        "bad_request",
        413,
        null,
        `Request body too large: over the relay limit of ${maxBodyBytes} bytes ` +
          `(refused after reading ${read.bytesRead})`,
      );
    }
    if (read.kind === "timed_out") {
      return refuse(
        index,
        endpoint,
        "bad_request",
        408,
        null,
        `Request body not received within ${bodyDeadlineMs} ms (${read.bytesRead} bytes read)`,
      );
    }
    const bytes = read.bytes;
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      body = undefined;
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      return refuse(
        index,
        endpoint,
        "bad_request",
        400,
        null,
        "Request body must be a JSON object",
      );
    }
    const fingerprint = requestFingerprint(body);
    const problem = requestProblem(body as Record<string, unknown>, pinnedModel);
    if (problem !== null) {
      return refuse(index, endpoint, problem.refusal, problem.status, fingerprint, problem.message);
    }
    const streamed = (body as { stream?: unknown }).stream === true;
    const stepRefusal = () =>
      refuse(
        index,
        endpoint,
        "step_cap",
        403,
        fingerprint,
        `Step cap reached: ${admitted} model calls of ${stepCap} allowed`,
      );
    if (stepCap !== null && admitted >= stepCap) return stepRefusal();
    const capped = maxOutputTokens === null
      ? null
      : withOutputCap(body as Record<string, unknown>, maxOutputTokens);
    const sent = (capped ?? body) as Record<string, unknown>;
    let ticket: Ticket | null = null;
    if (budget !== null) {
      const admission = await budget.admit(outputCapOf(sent));
      if (admission.kind === "refused") {
        return refuse(index, endpoint, "token_cap", 403, fingerprint, admission.message);
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
      output_cap: outputCapOf(sent),
      fault: null,
      latency_ms: 0,
      detail: "",
    };
    inFlight.set(index, record);
    if (ticket !== null) tickets.set(index, ticket);
    const forwardedBytes = streamed
      ? withUsageRequested(sent)
      : capped === null
      ? bytes
      : new TextEncoder().encode(JSON.stringify(capped));
    const started = performance.now();
    let upstream: WholeResponse;
    try {
      const response = await open(
        upstreamConfig,
        endpoint,
        "POST",
        request.headers,
        forwardedBytes,
      );
      if (streamed && response.ok && isEventStream(response.headers)) {
        return relayStream(response, record, started, asksForUsage(body));
      }
      upstream = await readWhole(response);
    } catch (error) {
      record.latency_ms = roundMs(performance.now() - started);
      if (closing.signal.aborted) {
        record.status = 503;
        record.fault = "aborted";
        record.detail = "Aborted: the relay closed before the upstream answered";
        finish(record);
        return Response.json(errorBody(record.detail, "upstream_error", "aborted"), {
          status: 503,
        });
      }
      record.fault = "provider_fault";
      record.detail = `Upstream unreachable: ${describe(error)}`;
      finish(record);
      return Response.json(errorBody(record.detail, "upstream_error", "provider_fault"), {
        status: 502,
      });
    }
    record.latency_ms = roundMs(performance.now() - started);
    record.status = upstream.status;
    record.upstream_status = upstream.status;
    const parsed = parseJson(upstream.body);
    if (upstream.status >= 200 && upstream.status < 300) {
      record.server_model_id = modelId(parsed);
      record.usage = usageOf(parsed);
      record.tool_calls = toolCallCount(parsed);
      if (parsed === undefined) record.detail = "Upstream response is not JSON";
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
    return passBack(upstream, key);
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
    agentAskedForUsage: boolean,
  ): Response => {
    record.status = response.status;
    record.upstream_status = response.status;
    const seen = new StreamEvidence();
    const { response: toAgent, finished } = streamBack(response, {
      headers: passedHeaders(response.headers),
      key,
      onEvent: (event) => {
        const pass = seen.add(event) || agentAskedForUsage;
        record.server_model_id = seen.model;
        record.usage = seen.usage;
        record.tool_calls = seen.toolCalls.size;
        return pass;
      },
      onAgentClosed: (passed) => {
        record.detail = `Agent closed the stream after ${eventCount(passed)} passed back; ` +
          "the relay reads the rest of the upstream stream for the evidence";
      },
      onEnd: (end) => {
        record.latency_ms = roundMs(performance.now() - started);
        record.first_byte_ms = end.firstByteAt === null ? null : roundMs(end.firstByteAt - started);
        record.server_model_id = seen.model;
        record.usage = seen.usage;
        record.tool_calls = seen.toolCalls.size;
        const notes: string[] = [];
        let last: StreamError | null = null;
        if (end.error !== null && closing.signal.aborted) {
          record.fault = "aborted";
          notes.push(
            `Aborted: the relay closed after ${eventCount(end.events)} of the upstream stream`,
          );
          last = errorBody(notes[0], "upstream_error", "aborted").error;
        } else if (end.error !== null) {
          record.fault = "provider_fault";
          notes.push(
            `Upstream stream failed after ${eventCount(end.events)}: ${describe(end.error)}`,
          );
          last = errorBody(notes[0], "upstream_error", "provider_fault").error;
        } else if (seen.upstreamError !== null) {
          record.fault = "provider_fault";
          notes.push(`Upstream sent an error event: "${seen.upstreamError}"`);
        }
        if (end.agentClosedAfter !== null) notes.push(agentClosedNote(end));
        notes.push(...seen.notes(end));
        record.detail = notes.join("; ");
        finish(record);
        return end.agentClosedAfter === null ? last : null;
      },
    });
    streams.add(finished);
    finished.finally(() => streams.delete(finished)).catch(() => {});
    return toAgent;
  };

  const deny = (status: number, message: string, code: string): Response => {
    deniedRequests += 1;
    return Response.json(errorBody(message, "invalid_request_error", code), { status });
  };

  const handler = async (request: Request): Promise<Response> => {
    const route = routeRequest(request.method, rawTarget(request.url));
    if (route.kind === "health") return Response.json({ ok: true });
    if (route.kind === "denied") {
      await request.body?.cancel().catch(() => {});
      const code = route.status === 405 ? "method_not_allowed" : "not_found";
      return deny(route.status, route.message, route.status === 400 ? "bad_request" : code);
    }
    if (active >= maxConcurrentRequests) {
      await request.body?.cancel().catch(() => {});
      return deny(
        429,
        `Too many concurrent requests: the relay serves at most ${maxConcurrentRequests} at once`,
        "concurrency_limit",
      );
    }
    active += 1;
    try {
      if (route.kind === "model_call") return await modelCall(request, route.path);
      otherRequests += 1;
      try {
        const upstream = await readWhole(
          await open(upstreamConfig, route.path, "GET", request.headers, null),
        );
        return passBack(upstream, key);
      } catch (error) {
        return Response.json(
          errorBody(`Upstream unreachable: ${describe(error)}`, "upstream_error", "provider_fault"),
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
    totals: () => totalsOf(records, otherRequests, deniedRequests),
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
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = incoming.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (body !== null && !headers.has("content-type")) {
    headers.set("content-type", "application/json");
  }
  headers.set("authorization", `Bearer ${upstream.key}`);
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
    if (FORWARDED_RESPONSE_HEADERS.includes(name) || name.startsWith("x-ratelimit-")) {
      headers.set(name, value);
    }
  }
  return headers;
}

function passBack(upstream: WholeResponse, key: string): Response {
  let body: Uint8Array<ArrayBuffer> | string = upstream.body;
  const text = new TextDecoder().decode(upstream.body);
  if (text.includes(key)) body = text.replaceAll(key, "[redacted]");
  const nullBody = upstream.status === 204 || upstream.status === 304;
  return new Response(nullBody ? null : body, {
    status: upstream.status,
    headers: passedHeaders(upstream.headers),
  });
}

function isEventStream(headers: Headers): boolean {
  const type = headers.get("content-type") ?? "";
  return type.split(";")[0].trim().toLowerCase() === "text/event-stream";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** True when the agent itself set `stream_options.include_usage` to true. */
function asksForUsage(body: unknown): boolean {
  const options = (body as { stream_options?: unknown }).stream_options;
  return isRecord(options) && options.include_usage === true;
}

/**
 * The body forwarded for a streamed call: the agent's (its output cap
 * already brought within the plan's, if any), with
 * `stream_options.include_usage` set to true and its other `stream_options`
 * members kept (a `stream_options` that is not an object is replaced), as
 * compact JSON. Numbers are rewritten in their shortest round-trip form.
 */
function withUsageRequested(body: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  const kept = isRecord(body.stream_options) ? body.stream_options : {};
  const forwarded = { ...body, stream_options: { ...kept, include_usage: true } };
  return new TextEncoder().encode(JSON.stringify(forwarded));
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
 * caps); with `pinned`, a `model` that is not exactly it. Null when none.
 */
function requestProblem(
  body: Record<string, unknown>,
  pinned: string | null,
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

/** The request fields that cap a call's output, in the order the recorded cap reads them. */
const OUTPUT_CAP_FIELDS = ["max_completion_tokens", "max_tokens"] as const;

/** `max_completion_tokens` ?? `max_tokens` of a request, counting only non-negative integers. */
function outputCapOf(body: Record<string, unknown>): number | null {
  for (const field of OUTPUT_CAP_FIELDS) {
    const value = body[field];
    if (isCount(value)) return value;
  }
  return null;
}

/**
 * The request with its output cap brought to at most `cap` (step 5 of
 * `startRelay`): each cap field the agent set that is not an integer at most
 * `cap` is set to `cap`; with neither field set, `max_tokens` is. Null when
 * the request needs no change.
 */
function withOutputCap(
  body: Record<string, unknown>,
  cap: number,
): Record<string, unknown> | null {
  const used = OUTPUT_CAP_FIELDS.filter((field) => Object.hasOwn(body, field));
  if (used.length === 0) return { ...body, max_tokens: cap };
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

/** The evidence a chat (or text) completion stream carries, gathered event by event. */
class StreamEvidence {
  model: string | null = null;
  usage: RelayUsage | null = null;
  /** `<choice index> <id>` of each tool call delta that carried an id. */
  toolCalls = new Set<string>();
  /** The message of the first `{"error": ...}` event, if any. */
  upstreamError: string | null = null;
  #otherModel: string | null = null;
  #notJson = 0;

  /**
   * Reads one event; returns false for a usage-only chunk (`"choices": []`
   * with usage), true for every other event.
   */
  add(event: SseEvent): boolean {
    if (event.data === null || event.data === "[DONE]") return true;
    const chunk = parseJson(new TextEncoder().encode(event.data));
    if (chunk === undefined) {
      this.#notJson += 1;
      return true;
    }
    if (!isRecord(chunk)) return true;
    const id = modelId(chunk);
    if (id !== null) {
      if (this.model === null) this.model = id;
      else if (id !== this.model) this.#otherModel ??= id;
    }
    const usage = usageOf(chunk);
    if (usage !== null) this.usage = usage;
    if (this.upstreamError === null && isRecord(chunk.error)) {
      const message = chunk.error.message;
      this.upstreamError = typeof message === "string" ? message : JSON.stringify(chunk.error);
    }
    if (Array.isArray(chunk.choices)) {
      for (const [i, choice] of chunk.choices.entries()) {
        if (!isRecord(choice) || !isRecord(choice.delta)) continue;
        const calls = choice.delta.tool_calls;
        if (!Array.isArray(calls)) continue;
        const at = typeof choice.index === "number" ? choice.index : i;
        for (const call of calls) {
          if (isRecord(call) && typeof call.id === "string" && call.id !== "") {
            this.toolCalls.add(`${at} ${call.id}`);
          }
        }
      }
    }
    return !(usage !== null && Array.isArray(chunk.choices) && chunk.choices.length === 0);
  }

  /** Remarks for the record's `detail`. */
  notes(end: StreamEnd): string[] {
    const notes: string[] = [];
    if (this.#otherModel !== null) {
      notes.push(
        `Chunks disagree on the model: first "${this.model}", later "${this.#otherModel}"`,
      );
    }
    if (this.#notJson > 0) notes.push(`${this.#notJson} upstream events are not JSON`);
    if (end.error === null && !end.done) notes.push("Upstream stream ended without [DONE]");
    return notes;
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

function modelId(response: unknown): string | null {
  if (response === null || typeof response !== "object") return null;
  const model = (response as { model?: unknown }).model;
  return typeof model === "string" && model !== "" ? model : null;
}

function usageOf(response: unknown): RelayUsage | null {
  if (response === null || typeof response !== "object") return null;
  const usage = (response as { usage?: unknown }).usage;
  if (usage === null || typeof usage !== "object") return null;
  const { prompt_tokens, completion_tokens } = usage as Record<string, unknown>;
  if (!isCount(prompt_tokens) || !isCount(completion_tokens)) return null;
  return { prompt_tokens, completion_tokens };
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function toolCallCount(response: unknown): number {
  if (response === null || typeof response !== "object") return 0;
  const choices = (response as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return 0;
  let count = 0;
  for (const choice of choices) {
    const calls = choice?.message?.tool_calls;
    if (Array.isArray(calls)) count += calls.length;
  }
  return count;
}

function totalsOf(
  records: readonly RelayCallRecord[],
  otherRequests: number,
  deniedRequests: number,
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
    other_requests: otherRequests,
    denied_requests: deniedRequests,
  };
  for (const record of records) {
    if (record.forwarded) totals.model_calls += 1;
    else totals.refused_calls += 1;
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

function errorBody(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function describe(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return "timed out";
  return error instanceof Error ? error.message : String(error);
}
