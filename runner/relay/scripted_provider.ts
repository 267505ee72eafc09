/**
 * A deterministic model server on loopback that answers from a
 * {@linkcode ProviderScript} (issue 3: "a scripted provider ... serves tests
 * and the demo"; issue 8: it "must serve all four APIs (whole and streamed)").
 * It demands the upstream key where each API carries it (`Authorization:
 * Bearer <apiKey>`; for the Messages API `x-api-key`, or the bearer token
 * the current Anthropic SDK sends; for Gemini `x-goog-api-key`), so a test that gets an
 * answer through the relay proves the relay, not the agent, holds the key.
 *
 * @module
 */
import { isCount, isRecord } from "./api/model_api.ts";
import { type Conversation, type ProviderApi, readConversation } from "./provider_conversation.ts";
import { pickReply } from "./pick_provider_reply.ts";
import {
  derivedUsage,
  parseProviderScript,
  type ProviderScriptInput,
} from "../../analysis/schema/provider_script.ts";
import { geminiChunks, geminiError, geminiWire } from "./scripted_gemini_wire.ts";
import { chatWire, openAiError } from "./scripted_chat_wire.ts";
import { completionsWire } from "./scripted_completions_wire.ts";
import { anthropicError, messagesWire } from "./scripted_messages_wire.ts";
import { replyParts } from "./scripted_reply_parts.ts";
import { responsesWire } from "./scripted_responses_wire.ts";
import type { ScriptedWire } from "./scripted_wire.ts";

/** One request the scripted provider received, in arrival order. */
export interface ProviderRequest {
  /** 1-based number among authenticated model calls (any of the five APIs); null otherwise. */
  call: number | null;
  /** Which model API the request was sent to; null for other paths. */
  api: ProviderApi | null;
  /** The conversation's turn index (see {@linkcode readConversation}); null when no reply was picked. */
  turn: number | null;
  method: string;
  /** URL path, e.g. `/v1/chat/completions`. */
  path: string;
  /** The `Authorization` header as received, or null. */
  authorization: string | null;
  /** The `x-api-key` header as received, or null. */
  xApiKey: string | null;
  /** Gemini's key as received: the `x-goog-api-key` header, else the `key` query; null when neither. */
  googleKey: string | null;
  /** The parsed JSON body, or null when there was none or it was not JSON. */
  body: unknown;
  /** Which part of the script answered: `call`, `rule <i>` (0-based), `default`, or null. */
  matched: string | null;
  /** The HTTP status sent back. */
  status: number;
}

/** A running scripted provider. */
export interface ScriptedProvider {
  /** The loopback port it listens on. */
  port: number;
  /** `http://127.0.0.1:<port>/v1`, the base URL to give an OpenAI client or the relay. */
  baseUrl: string;
  /** A copy of every request received so far. */
  requests(): ProviderRequest[];
  /** Stops listening; resolves once in-flight requests are answered. */
  close(): Promise<void>;
}

/** Options of {@linkcode startScriptedProvider}. */
export interface ScriptedProviderOptions {
  /** The only key accepted (the "upstream key"), as a bearer token or as `x-api-key`. */
  apiKey: string;
  /** Port on 127.0.0.1; 0 (default) lets the system choose. */
  port?: number;
  /**
   * Test hook: awaited before each event of a streamed reply is sent, with
   * the call's number and the event's 0-based position (chat's
   * `data: [DONE]` included), so that a test can hold a stream open at a
   * known point.
   */
  beforeStreamEvent?: (call: number, event: number) => Promise<void> | void;
  /**
   * Test hook: report a reply's scripted completion tokens even past the
   * request's output cap, as a server that ignores the cap would (default
   * false: a reply stops at the cap, as a model does).
   */
  ignoreOutputCap?: boolean;
}

/** The model APIs by path: which conversation reader and which wire each uses. */
const MODEL_APIS: Record<string, { api: ProviderApi; wire: ScriptedWire }> = {
  "/v1/chat/completions": { api: "chat", wire: chatWire },
  "/v1/completions": { api: "completions", wire: completionsWire },
  "/v1/responses": { api: "responses", wire: responsesWire },
  "/v1/messages": { api: "messages", wire: messagesWire },
};

/** Gemini's calls: `/{version}/models/{model}:{method}`. */
const GEMINI_PATH =
  /^\/(?:v1|v1beta)\/models\/[^/:]+:(generateContent|streamGenerateContent|countTokens)$/;

/** The model API of a POST to `path` and, for Gemini, the method named; undefined for none. */
function modelApiOf(
  path: string,
): { api: ProviderApi; wire: ScriptedWire; method: string | null } | undefined {
  const gemini = GEMINI_PATH.exec(path);
  if (gemini !== null) return { api: "gemini", wire: geminiWire, method: gemini[1] };
  if (path === "/v1/messages/count_tokens") {
    return { api: "messages", wire: messagesWire, method: "count_tokens" };
  }
  const route = MODEL_APIS[path];
  return route === undefined ? undefined : { ...route, method: null };
}

/**
 * Starts the scripted provider on 127.0.0.1.
 *
 * Endpoints: `GET /v1/models` lists the script's model. `POST
 * /v1/chat/completions`, `/v1/completions`, `/v1/responses` (OpenAI),
 * `/v1/messages` (Anthropic) and `/{v1,v1beta}/models/{model}:generateContent`
 * and `:streamGenerateContent` (Gemini) are model calls: each is numbered
 * (1-based, across the five), its conversation is read (see
 * {@linkcode readConversation}: turn index, last message, texts) and it is
 * answered from the script (see {@linkcode pickReply} for the order) in that
 * API's wire format, whole or, with `"stream": true` or Gemini's
 * `:streamGenerateContent`, as that API streams (see `chatWire`,
 * `completionsWire`, `responsesWire`, `messagesWire`, `geminiWire`; Gemini's
 * stream is server-sent events with `?alt=sse`, else one JSON array).
 * Gemini's `:countTokens` and Anthropic's `/v1/messages/count_tokens` are
 * answered `{"totalTokens"}` and `{"input_tokens"}`, the prompt's derived
 * count (`derivedUsage`, under the script's `prompt_billing`), and are not
 * model calls. Every request is
 * recorded, answered or not.
 *
 * Refusals: a Gemini call without the key in `x-goog-api-key` or `?key=`
 * gets 400, as the API answers an invalid key; an OpenAI path without
 * `Authorization: Bearer <apiKey>`, or
 * `/v1/messages` with neither `x-api-key: <apiKey>` (the Messages API
 * reference, and `@anthropic-ai/sdk` up to 0.120) nor `Authorization: Bearer
 * <apiKey>` (what `@anthropic-ai/sdk` 1.10.0 sends for an `apiKey`, see its
 * `apiKeyAuth`), gets 401 in that API's error shape, without echoing what was
 * sent; `/v1/messages` without an
 * `anthropic-version` header gets 400; a body that is not a JSON object gets
 * 400; other paths get 404. A reply with a status other than 200 gets that
 * API's error body (whole JSON, also for a streamed request), with
 * `Retry-After` for 429.
 *
 * Responses are deterministic: ids carry the call's number, timestamps are
 * 0, usage is the script's or `derivedUsage`.
 *
 * @param script The script (parsed with the zod schema; defaults applied).
 * @param options The accepted key and the port.
 * @returns The running provider, once it listens.
 * @throws {Error} when the script does not parse: `Invalid provider script: "<path>" <message>`
 * @example
 * ```ts
 * import { startScriptedProvider } from "./scripted_provider.ts";
 * const provider = await startScriptedProvider({ default: { content: "hi" } }, { apiKey: "k" });
 * const response = await fetch(`${provider.baseUrl}/chat/completions`, {
 *   method: "POST",
 *   headers: { authorization: "Bearer k", "content-type": "application/json" },
 *   body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello" }] }),
 * });
 * const body = await response.json();
 * await provider.close();
 * if (body.choices[0].message.content !== "hi") throw new Error("unexpected reply");
 * ```
 */
export async function startScriptedProvider(
  script: ProviderScriptInput,
  options: ScriptedProviderOptions,
): Promise<ScriptedProvider> {
  const plan = parseProviderScript(script);
  const log: ProviderRequest[] = [];
  let calls = 0;

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname;
    const authorization = request.headers.get("authorization");
    const xApiKey = request.headers.get("x-api-key");
    const googleKey = request.headers.get("x-goog-api-key") ?? url.searchParams.get("key");
    const text = request.method === "POST" ? await request.text() : "";
    let body: unknown = null;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
    }
    const route = request.method === "POST" ? modelApiOf(path) : undefined;
    const entry: ProviderRequest = {
      call: null,
      api: route?.api ?? null,
      turn: null,
      method: request.method,
      path,
      authorization,
      xApiKey,
      googleKey,
      body,
      matched: null,
      status: 0,
    };
    log.push(entry);
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      return Response.json(payload, { status, headers });
    };

    const bearer = authorization === `Bearer ${options.apiKey}`;
    if (route?.api === "messages") {
      if (xApiKey !== options.apiKey && !bearer) {
        return answer(401, anthropicError("authentication", 401, "invalid x-api-key"));
      }
    } else if (route?.api === "gemini") {
      if (googleKey !== options.apiKey) {
        return answer(400, geminiError("authentication", 400, "API key not valid"));
      }
    } else if (!bearer) {
      return answer(401, openAiError("authentication", 401, "Incorrect API key provided"));
    }
    if (request.method === "GET" && path === "/v1/models") {
      return answer(200, {
        object: "list",
        data: [{ id: plan.model, object: "model", created: 0, owned_by: "ledgerbench" }],
      });
    }
    if (route === undefined) {
      return answer(404, {
        error: {
          message: `Unknown endpoint: "${request.method} ${path}"`,
          type: "not_found",
          param: null,
          code: null,
        },
      });
    }
    const { api, wire } = route;
    if (route.method === "countTokens" || route.method === "count_tokens") {
      if (body === null || typeof body !== "object") {
        return answer(
          400,
          wire.error("invalid_request", 400, "Request body must be a JSON object"),
        );
      }
      const counted = api === "gemini" ? geminiCountedRequest(body) : body;
      const { promptText } = readConversation(api, counted);
      const tokens = derivedUsage(promptText, NO_REPLY, plan.prompt_billing).prompt_tokens;
      return answer(200, api === "gemini" ? { totalTokens: tokens } : { input_tokens: tokens });
    }
    calls += 1;
    const call = calls;
    entry.call = call;
    if (api === "messages" && request.headers.get("anthropic-version") === null) {
      return answer(
        400,
        wire.error("invalid_request", 400, "anthropic-version: header is required"),
      );
    }
    if (body === null || typeof body !== "object") {
      return answer(400, wire.error("invalid_request", 400, "Request body must be a JSON object"));
    }
    const request_ = body as Record<string, unknown>;
    const conversation: Conversation = readConversation(api, request_);
    entry.turn = conversation.turn;
    const { matched, reply } = pickReply(plan, call, conversation);
    entry.matched = matched;
    if (reply.delay_ms > 0) await new Promise((resolve) => setTimeout(resolve, reply.delay_ms));
    if (reply.status !== 200) {
      const headers: Record<string, string> = reply.status === 429
        ? { "retry-after": String(reply.retry_after_s) }
        : {};
      return answer(
        reply.status,
        wire.error("scripted", reply.status, `Scripted error: status ${reply.status}`),
        headers,
      );
    }
    const parts = replyParts(plan, call, reply, {
      promptText: conversation.promptText,
      credential: api === "messages" && xApiKey !== null
        ? xApiKey
        : api === "gemini"
        ? googleKey
        : authorization,
      withoutToolCalls: api === "completions",
      outputCap: options.ignoreOutputCap === true ? null : requestOutputCap(request_),
    });
    const geminiStream = route.method === "streamGenerateContent";
    if (request_.stream === true || geminiStream) {
      entry.status = 200;
      const hook = options.beforeStreamEvent;
      const asArray = geminiStream && url.searchParams.get("alt") !== "sse";
      const events = asArray ? jsonArray(geminiChunks(parts)) : wire.events(parts, request_);
      return new Response(
        eventStream(events, (i) => hook?.(call, i)),
        {
          status: 200,
          headers: {
            "content-type": asArray ? "application/json" : "text/event-stream",
            "cache-control": "no-cache",
          },
        },
      );
    }
    return answer(200, wire.body(parts, request_));
  };

  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    onListen: ({ port }) => resolve(port),
  }, handler);
  const port = await listening;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => log.map((entry) => ({ ...entry })),
    close: () => server.shutdown(),
  };
}

/** A body sending `events` one at a time, awaiting `before(i)` before event i. */
function eventStream(
  events: readonly string[],
  before: (event: number) => Promise<void> | void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      await before(next);
      if (cancelled) return;
      controller.enqueue(encoder.encode(events[next]));
      next += 1;
      if (next === events.length) controller.close();
    },
    cancel: () => {
      cancelled = true;
    },
  });
}

/**
 * The output cap a request carries: its first integer among
 * `max_completion_tokens`, `max_tokens`, `max_output_tokens` and Gemini's
 * `generationConfig.maxOutputTokens`; null when none.
 *
 * @param request a model call's body
 * @returns the cap, or null
 */
function requestOutputCap(request: Record<string, unknown>): number | null {
  const config = request.generationConfig;
  const gemini = isRecord(config) ? config.maxOutputTokens : undefined;
  for (
    const value of [
      request.max_completion_tokens,
      request.max_tokens,
      request.max_output_tokens,
      gemini,
    ]
  ) {
    if (isCount(value)) return value;
  }
  return null;
}

/** A reply of nothing, for a prompt's derived count alone. */
const NO_REPLY = { content: "", tool_calls: [] };

/**
 * The request a `countTokens` body counts: its `contents` (and
 * `systemInstruction`) as given, or those of its `generateContentRequest`
 * (Gemini API reference, `models.countTokens`).
 */
function geminiCountedRequest(body: object): Record<string, unknown> {
  const request = body as Record<string, unknown>;
  return isRecord(request.generateContentRequest) ? request.generateContentRequest : request;
}

/** Gemini's stream without `alt=sse`: the chunks as the pieces of one JSON array. */
function jsonArray(chunks: readonly unknown[]): string[] {
  return chunks.map((chunk, i) =>
    `${i === 0 ? "[" : ",\r\n"}${JSON.stringify(chunk)}${i === chunks.length - 1 ? "]" : ""}`
  );
}
