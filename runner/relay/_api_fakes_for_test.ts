/**
 * Test helper: a tiny inline upstream (`Deno.serve` on loopback) that
 * answers each request with a handler's `Response` and keeps what it
 * received, canned Responses and Messages API answers (whole and as event
 * streams, in the shapes of the OpenAI and Anthropic API references), and a
 * relay in front of it reached over its unix socket.
 *
 * @module
 */
import { type Relay, type RelayOptions, startRelay } from "./relay.ts";
import type { UpstreamKind } from "./api/upstream_kind.ts";

/** One request as the fake upstream received it. */
export interface SeenRequest {
  method: string;
  path: string;
  /** The whole URL received. */
  url: string;
  headers: Headers;
  /** The body parsed as JSON, or null without a body. */
  body: Record<string, unknown> | null;
}

/** A running fake upstream. */
export interface FakeUpstream {
  /** Its base URL, ending in `/v1`. */
  baseUrl: string;
  /** Everything received so far. */
  requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * Starts a fake upstream answering with `answer`.
 *
 * @param answer builds the response to each request
 * @returns the running fake
 */
export async function startFakeUpstream(
  answer: (request: SeenRequest) => Response | Promise<Response>,
): Promise<FakeUpstream> {
  const requests: SeenRequest[] = [];
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) },
    async (request) => {
      const text = await request.text();
      const seen: SeenRequest = {
        method: request.method,
        path: new URL(request.url).pathname,
        url: request.url,
        headers: request.headers,
        body: text === "" ? null : JSON.parse(text),
      };
      requests.push(seen);
      return await answer(seen);
    },
  );
  const port = await promise;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, close: () => server.shutdown() };
}

/**
 * An event-stream response of `[event name or null, data]` pairs (data
 * serialized as JSON unless a string).
 */
export function sse(events: ReadonlyArray<readonly [string | null, unknown]>): Response {
  const text = events.map(([name, data]) =>
    `${name === null ? "" : `event: ${name}\n`}data: ${
      typeof data === "string" ? data : JSON.stringify(data)
    }\n\n`
  ).join("");
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

/** What a canned answer says. */
export interface Canned {
  model: string;
  text: string;
  /** Tool calls: name and JSON arguments. */
  tools?: Array<{ name: string; arguments: string }>;
  usage: Record<string, unknown>;
}

/** A whole Responses API response (OpenAI API reference, "The response object"). */
export function responsesBody(canned: Canned): Record<string, unknown> {
  return {
    id: "resp_1",
    object: "response",
    created_at: 1,
    status: "completed",
    model: canned.model,
    output: [
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: canned.text, annotations: [] }],
      },
      ...(canned.tools ?? []).map((tool, i) => ({
        type: "function_call",
        id: `fc_${i + 1}`,
        call_id: `call_${i + 1}`,
        name: tool.name,
        arguments: tool.arguments,
        status: "completed",
      })),
    ],
    usage: canned.usage,
  };
}

/** The same answer as a Responses event stream, ending with `response.completed`. */
export function responsesStream(canned: Canned): Response {
  const done = responsesBody(canned);
  const start = { ...done, status: "in_progress", output: [], usage: null };
  const items = done.output as Array<Record<string, unknown>>;
  const events: Array<[string, unknown]> = [
    ["response.created", { type: "response.created", sequence_number: 0, response: start }],
  ];
  for (const [i, item] of items.entries()) {
    events.push([
      "response.output_item.added",
      { type: "response.output_item.added", output_index: i, item: { ...item, content: [] } },
    ]);
    if (item.type === "message") {
      events.push([
        "response.output_text.delta",
        {
          type: "response.output_text.delta",
          item_id: item.id,
          output_index: i,
          content_index: 0,
          delta: canned.text,
        },
      ]);
    }
    events.push([
      "response.output_item.done",
      { type: "response.output_item.done", output_index: i, item },
    ]);
  }
  events.push(["response.completed", { type: "response.completed", response: done }]);
  return sse(events.map(([name, data], i) => [name, { ...(data as object), sequence_number: i }]));
}

/** A whole Messages API response (Anthropic API reference, "Messages"). */
export function messagesBody(canned: Canned): Record<string, unknown> {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: canned.model,
    content: [
      { type: "text", text: canned.text },
      ...(canned.tools ?? []).map((tool, i) => ({
        type: "tool_use",
        id: `toolu_${i + 1}`,
        name: tool.name,
        input: JSON.parse(tool.arguments),
      })),
    ],
    stop_reason: (canned.tools ?? []).length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: canned.usage,
  };
}

/**
 * The same answer as a Messages event stream: `message_start` with the input
 * counts and one output token, the blocks, `message_delta` with the final
 * `output_tokens`, `message_stop`.
 */
export function messagesStream(canned: Canned): Response {
  const whole = messagesBody(canned);
  const usage = canned.usage as Record<string, unknown>;
  const events: Array<[string, unknown]> = [[
    "message_start",
    {
      type: "message_start",
      message: { ...whole, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    },
  ]];
  for (const [index, block] of (whole.content as Array<Record<string, unknown>>).entries()) {
    if (block.type === "text") {
      events.push(
        ["content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "text", text: "" },
        }],
        ["ping", { type: "ping" }],
        ["content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: block.text },
        }],
      );
    } else {
      events.push(
        ["content_block_start", {
          type: "content_block_start",
          index,
          content_block: { ...block, input: {} },
        }],
        ["content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        }],
      );
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  }
  events.push(
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: whole.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }],
    ["message_stop", { type: "message_stop" }],
  );
  return sse(events);
}

/** A relay in front of a fake upstream, and a way to call it. */
export interface RelayRig {
  upstream: FakeUpstream;
  relay: Relay;
  /** The unix-socket client an SDK's `fetch` can use. */
  client: Deno.HttpClient;
  /** Sends a request to the relay; resolves with its status, headers and body text. */
  send(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }>;
}

/** The upstream key the rig's relay holds. */
export const RIG_KEY = "sk-upstream-only-the-relay-holds-this";

/**
 * Runs `run` against a relay of `kind` in front of a fake upstream, then
 * closes everything.
 */
export async function withRelayRig(
  kind: UpstreamKind,
  answer: (request: SeenRequest) => Response | Promise<Response>,
  options: Partial<RelayOptions>,
  run: (rig: RelayRig) => Promise<void>,
): Promise<void> {
  const upstream = await startFakeUpstream(answer);
  const dir = await Deno.makeTempDir({ prefix: "relay_api_test_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: upstream.baseUrl,
    upstreamKey: RIG_KEY,
    upstreamKind: kind,
    ...options,
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
  const send: RelayRig["send"] = async (path, init = {}) => {
    const response = await fetch(`http://relay${path}`, {
      client,
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { "content-type": "application/json", ...init.headers },
      body: init.body === undefined
        ? undefined
        : typeof init.body === "string"
        ? init.body
        : JSON.stringify(init.body),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: () => JSON.parse(text),
    };
  };
  try {
    await run({ upstream, relay, client, send });
  } finally {
    client.close();
    await relay.close();
    await upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
}
