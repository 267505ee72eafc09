/**
 * A deterministic OpenAI-compatible server on loopback that answers from a
 * {@linkcode ProviderScript} (issue 3: "a scripted provider ... serves tests
 * and the demo"). It demands `Authorization: Bearer <apiKey>`, so a test that
 * gets an answer through the relay proves the relay, not the agent, holds the
 * key.
 *
 * @module
 */
import {
  derivedUsage,
  messageText,
  type ProviderReply,
  ProviderScript,
  type ProviderScriptInput,
  type ProviderUsage,
} from "./provider_script.ts";

/** One request the scripted provider received, in arrival order. */
export interface ProviderRequest {
  /** 1-based number among authenticated chat completion requests; null otherwise. */
  call: number | null;
  method: string;
  /** URL path, e.g. `/v1/chat/completions`. */
  path: string;
  /** The `Authorization` header as received, or null. */
  authorization: string | null;
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
  /** The only bearer token accepted (the "upstream key"). */
  apiKey: string;
  /** Port on 127.0.0.1; 0 (default) lets the system choose. */
  port?: number;
  /**
   * Test hook: awaited before each event of a streamed reply is sent, with
   * the call's number and the event's 0-based position (`data: [DONE]`
   * included), so that a test can hold a stream open at a known point.
   */
  beforeStreamEvent?: (call: number, event: number) => Promise<void> | void;
}

/**
 * Starts the scripted provider on 127.0.0.1.
 *
 * Endpoints: `GET /v1/models` lists the script's model; `POST
 * /v1/chat/completions` answers from the script (see {@linkcode ProviderScript}
 * for the matching order; rules look at the last message whose role is
 * `user`). A missing or wrong bearer token gets 401 without echoing what was
 * sent; other paths get 404. Every request is recorded, answered or not.
 *
 * Responses are deterministic: `id` is `chatcmpl-scripted-<call>`, `created`
 * is 0, and usage is the script's or {@linkcode derivedUsage}.
 *
 * A request with `"stream": true` gets, for a status-200 reply, a
 * `text/event-stream` of `chat.completion.chunk` events, as OpenAI sends
 * them: a first delta with the role, the content split after each run of
 * whitespace (`"a b  c"` gives `"a "`, `"b  "`, `"c"`), for each tool call a
 * delta with its `id`, type and name and then one with its arguments, a
 * last choice chunk with `finish_reason`; then, only when the request has
 * `stream_options.include_usage` true, a chunk with `"choices": []` and the
 * same usage the whole reply would carry (none for a `usage: null` reply;
 * the other chunks then carry `"usage": null`); then `data: [DONE]`. Error
 * replies (429, 500...) stay whole JSON bodies.
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
  const parsed = ProviderScript.safeParse(script);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid provider script: "${issue.path.join(".")}" ${issue.message}`);
  }
  const plan = parsed.data;
  const log: ProviderRequest[] = [];
  let calls = 0;

  const handler = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const authorization = request.headers.get("authorization");
    const text = request.method === "POST" ? await request.text() : "";
    let body: unknown = null;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
    }
    const entry: ProviderRequest = {
      call: null,
      method: request.method,
      path,
      authorization,
      body,
      matched: null,
      status: 0,
    };
    log.push(entry);
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      return Response.json(payload, { status, headers });
    };

    if (authorization !== `Bearer ${options.apiKey}`) {
      return answer(401, errorBody("Incorrect API key provided", "invalid_request_error"));
    }
    if (request.method === "GET" && path === "/v1/models") {
      return answer(200, {
        object: "list",
        data: [{ id: plan.model, object: "model", created: 0, owned_by: "ledgerbench" }],
      });
    }
    if (request.method !== "POST" || path !== "/v1/chat/completions") {
      return answer(404, errorBody(`Unknown endpoint: "${request.method} ${path}"`, "not_found"));
    }
    calls += 1;
    entry.call = calls;
    if (body === null || typeof body !== "object") {
      return answer(400, errorBody("Request body must be a JSON object", "invalid_request_error"));
    }
    const call = calls;
    const request_ = body as { messages?: unknown; stream?: unknown; stream_options?: unknown };
    const [matched, reply] = pickReply(plan, call, lastUserText(request_.messages));
    entry.matched = matched;
    if (reply.delay_ms > 0) await new Promise((resolve) => setTimeout(resolve, reply.delay_ms));
    if (reply.status !== 200) {
      const headers: Record<string, string> = reply.status === 429
        ? { "retry-after": String(reply.retry_after_s) }
        : {};
      const type = reply.status === 429 ? "rate_limit_error" : "server_error";
      return answer(
        reply.status,
        errorBody(`Scripted error: status ${reply.status}`, type),
        headers,
      );
    }
    const parts = replyParts(plan, call, reply, request_.messages, authorization);
    if (request_.stream === true) {
      const options_ = request_.stream_options;
      const includeUsage = options_ !== null && typeof options_ === "object" &&
        (options_ as { include_usage?: unknown }).include_usage === true;
      entry.status = 200;
      const hook = options.beforeStreamEvent;
      return new Response(
        eventStream(streamEvents(call, parts, includeUsage), (i) => hook?.(call, i)),
        {
          status: 200,
          headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
        },
      );
    }
    return answer(200, completion(call, parts));
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

function pickReply(
  plan: ProviderScript,
  call: number,
  lastUser: string,
): [string, ProviderReply] {
  const override = plan.calls.find((entry) => entry.call === call);
  if (override !== undefined) return ["call", override.reply];
  for (const [i, rule] of plan.rules.entries()) {
    const hit = rule.contains !== undefined
      ? lastUser.includes(rule.contains)
      : lastUser === rule.equals;
    if (hit) return [`rule ${i}`, rule.reply];
  }
  return ["default", plan.default];
}

function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message !== null && typeof message === "object" && message.role === "user") {
      return messageText(message);
    }
  }
  return "";
}

/** What a status-200 reply says, shared by the whole and the streamed answer. */
interface ReplyParts {
  content: string;
  toolCalls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  /** null: the response has no `model` field. */
  model: string | null;
  /** null: the response has no `usage` field. */
  usage: Required<ProviderUsage> | null;
  finishReason: "stop" | "tool_calls";
}

function replyParts(
  plan: ProviderScript,
  call: number,
  reply: ProviderReply,
  messages: unknown,
  authorization: string | null,
): ReplyParts {
  const content = reply.echo_authorization ? authorization ?? "" : reply.content;
  const toolCalls = reply.tool_calls.map((tool, i) => ({
    id: `call_${call}_${i}`,
    type: "function" as const,
    function: { name: tool.name, arguments: tool.arguments },
  }));
  let usage: Required<ProviderUsage> | null = null;
  if (reply.usage !== null) {
    const given = reply.usage ?? derivedUsage(messages, { ...reply, content });
    usage = {
      prompt_tokens: given.prompt_tokens,
      completion_tokens: given.completion_tokens,
      total_tokens: given.total_tokens ?? given.prompt_tokens + given.completion_tokens,
    };
  }
  return {
    content,
    toolCalls,
    model: reply.model === undefined ? plan.model : reply.model,
    usage,
    finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
  };
}

function completion(call: number, parts: ReplyParts): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: parts.content === "" && parts.toolCalls.length > 0 ? null : parts.content,
  };
  if (parts.toolCalls.length > 0) message.tool_calls = parts.toolCalls;
  const out: Record<string, unknown> = {
    id: `chatcmpl-scripted-${call}`,
    object: "chat.completion",
    created: 0,
  };
  if (parts.model !== null) out.model = parts.model;
  out.choices = [{ index: 0, message, finish_reason: parts.finishReason }];
  if (parts.usage !== null) out.usage = parts.usage;
  return out;
}

/** The events of a streamed reply, each a complete `data: ...` event with its blank line. */
function streamEvents(call: number, parts: ReplyParts, includeUsage: boolean): string[] {
  const head: Record<string, unknown> = {
    id: `chatcmpl-scripted-${call}`,
    object: "chat.completion.chunk",
    created: 0,
  };
  if (parts.model !== null) head.model = parts.model;
  const chunks: Record<string, unknown>[] = [];
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) => {
    const chunk = { ...head, choices: [{ index: 0, delta: value, finish_reason: finishReason }] };
    chunks.push(includeUsage ? { ...chunk, usage: null } : chunk);
  };
  delta({ role: "assistant", content: "" });
  for (const piece of parts.content.split(/(?<=\s)(?=\S)/)) {
    if (piece !== "") delta({ content: piece });
  }
  for (const [i, tool] of parts.toolCalls.entries()) {
    delta({
      tool_calls: [{
        index: i,
        id: tool.id,
        type: tool.type,
        function: { ...tool.function, arguments: "" },
      }],
    });
    if (tool.function.arguments !== "") {
      delta({ tool_calls: [{ index: i, function: { arguments: tool.function.arguments } }] });
    }
  }
  delta({}, parts.finishReason);
  if (includeUsage && parts.usage !== null) {
    chunks.push({ ...head, choices: [], usage: parts.usage });
  }
  return [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), "data: [DONE]\n\n"];
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

function errorBody(message: string, type: string): { error: Record<string, unknown> } {
  return { error: { message, type, param: null, code: null } };
}
