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
}

/**
 * Starts the scripted provider on 127.0.0.1.
 *
 * Endpoints: `GET /v1/models` lists the script's model; `POST
 * /v1/chat/completions` answers from the script (see {@linkcode ProviderScript}
 * for the matching order; rules look at the last message whose role is
 * `user`). A missing or wrong bearer token gets 401 without echoing what was
 * sent; `stream: true` gets 400 (the scripted provider does not stream);
 * other paths get 404. Every request is recorded, answered or not.
 *
 * Responses are deterministic: `id` is `chatcmpl-scripted-<call>`, `created`
 * is 0, and usage is the script's or {@linkcode derivedUsage}.
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
    const request_ = body as { messages?: unknown; stream?: unknown };
    if (request_.stream === true) {
      return answer(
        400,
        errorBody("Streaming is not supported by the scripted provider", "invalid_request_error"),
      );
    }
    const [matched, reply] = pickReply(plan, calls, lastUserText(request_.messages));
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
    return answer(200, completion(plan, calls, reply, request_.messages, authorization));
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

function completion(
  plan: ProviderScript,
  call: number,
  reply: ProviderReply,
  messages: unknown,
  authorization: string | null,
): Record<string, unknown> {
  const content = reply.echo_authorization ? authorization ?? "" : reply.content;
  const toolCalls = reply.tool_calls.map((tool, i) => ({
    id: `call_${call}_${i}`,
    type: "function",
    function: { name: tool.name, arguments: tool.arguments },
  }));
  const message: Record<string, unknown> = {
    role: "assistant",
    content: content === "" && toolCalls.length > 0 ? null : content,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const out: Record<string, unknown> = {
    id: `chatcmpl-scripted-${call}`,
    object: "chat.completion",
    created: 0,
  };
  const model = reply.model === undefined ? plan.model : reply.model;
  if (model !== null) out.model = model;
  out.choices = [{
    index: 0,
    message,
    finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
  }];
  if (reply.usage !== null) {
    const usage = reply.usage ?? derivedUsage(messages, { ...reply, content });
    out.usage = {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
    };
  }
  return out;
}

function errorBody(message: string, type: string): { error: Record<string, unknown> } {
  return { error: { message, type, param: null, code: null } };
}
