import assert from "node:assert/strict";
import { type Relay, type RelayOptions, startRelay } from "./relay.ts";
import {
  type ScriptedProvider,
  type ScriptedProviderOptions,
  startScriptedProvider,
} from "./scripted_provider.ts";
import type { ProviderScriptInput } from "../../analysis/schema/provider_script.ts";
import { evidenceGate } from "./evidence_gate.ts";
import { requestFingerprint } from "./request_fingerprint.ts";
import { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";

const KEY = "sk-upstream-7f3c-secret";

interface Rig {
  provider: ScriptedProvider;
  relay: Relay;
  /** POSTs a chat completion through the relay's socket, as the agent would. */
  chat(content: string, extra?: Record<string, unknown>): Promise<Answer>;
  /** Sends raw body text to a relay path. */
  send(path: string, init?: RequestInit): Promise<Answer>;
  /** POSTs `body` to the chat endpoint and returns the response unread. */
  post(body: Record<string, unknown>): Promise<Response>;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function withRig(
  script: ProviderScriptInput,
  options: Omit<RelayOptions, "upstreamBaseUrl" | "upstreamKey">,
  run: (rig: Rig) => Promise<void>,
  providerOptions: Omit<ScriptedProviderOptions, "apiKey"> = {},
): Promise<void> {
  const provider = await startScriptedProvider(script, { apiKey: KEY, ...providerOptions });
  const dir = await Deno.makeTempDir({ prefix: "relay_test_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: provider.baseUrl,
    upstreamKey: KEY,
    ...options,
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
  const send = async (path: string, init: RequestInit = {}): Promise<Answer> => {
    const response = await fetch(`http://relay${path}`, { ...init, client });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  const chat = (content: string, extra: Record<string, unknown> = {}) =>
    send("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer agent-made-this-up" },
      body: JSON.stringify({ model: "any", messages: [{ role: "user", content }], ...extra }),
    });
  const post = (body: Record<string, unknown>) =>
    fetch("http://relay/v1/chat/completions", {
      client,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  try {
    await run({ provider, relay, chat, send, post });
  } finally {
    client.close();
    await relay.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("startRelay() forwards a call and records its evidence", async () => {
  await withRig({ model: "m-7", default: { content: "hello" } }, {}, async ({ relay, chat }) => {
    const answer = await chat("0123456789");
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.text).choices[0].message.content, "hello");
    const [record] = relay.records();
    // Usage derived by the scripted provider: 10 prompt bytes -> 3, "hello" 5 bytes -> 2.
    assert.deepEqual({ ...record, latency_ms: 0 }, {
      index: 1,
      endpoint: "/v1/chat/completions",
      forwarded: true,
      refusal: null,
      status: 200,
      upstream_status: 200,
      server_model_id: "m-7",
      usage: { prompt_tokens: 3, completion_tokens: 2 },
      tool_calls: 0,
      fingerprint: requestFingerprint({
        model: "any",
        messages: [{ role: "user", content: "0123456789" }],
      }),
      // The agent's request set no max_tokens / max_completion_tokens and no plan cap applies.
      output_cap: null,
      fault: null,
      latency_ms: 0,
      // Asked for whole, forwarded streamed and answered whole (issue 21).
      reassembled: true,
      first_byte_ms: record.first_byte_ms,
      detail: "",
    });
    assert.ok(record.latency_ms > 0);
    assert.equal(typeof record.first_byte_ms, "number");
    assert.equal(relay.stopReason(), "completed");
    assert.equal(evidenceGate(relay.records()).status, "scored");
  });
});

Deno.test("startRelay() holds the key: the upstream sees exactly it, the agent never does", async () => {
  await withRig(
    {
      rules: [{ equals: "echo", reply: { echo_authorization: true } }],
      default: { content: "ok" },
    },
    {},
    async ({ provider, chat, send }) => {
      const plain = await chat("hi");
      const echoed = await chat("echo");
      const models = await send("/v1/models", { headers: { authorization: "Bearer agent" } });
      assert.equal(models.status, 200);
      // The provider echoed the Authorization it received; the relay redacted the key.
      assert.equal(JSON.parse(echoed.text).choices[0].message.content, "Bearer [redacted]");
      for (const answer of [plain, echoed, models]) {
        assert.equal(answer.text.includes(KEY), false);
        for (const [, value] of answer.headers) assert.equal(value.includes(KEY), false);
      }
      const seen = provider.requests().map((r) => r.authorization);
      assert.deepEqual(seen, [`Bearer ${KEY}`, `Bearer ${KEY}`, `Bearer ${KEY}`]);
    },
  );
});

Deno.test("startRelay() passes an upstream 429 through and stops as rate_limited", async () => {
  await withRig(
    {
      calls: [{ call: 2, reply: { status: 429, retry_after_s: 3 } }],
      default: { content: "ok" },
    },
    {},
    async ({ relay, chat }) => {
      assert.equal((await chat("a")).status, 200);
      const limited = await chat("b");
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get("retry-after"), "3");
      assert.equal((await chat("c")).status, 200);
      assert.deepEqual(relay.records().map((r) => r.fault), [null, "rate_limited", null]);
      assert.equal(relay.stopReason(), "rate_limited");
      assert.equal(relay.totals().rate_limited_calls, 1);
      assert.equal(evidenceGate(relay.records()).status, "scored");
    },
  );
});

Deno.test("startRelay() gives an uncapped call what the token cap leaves, and refuses once nothing is", async () => {
  // Each body, {"model":"any","messages":[{"role":"user","content":"call N"}]}, is 63 bytes, of
  // a model without a known tokenizer: its prompt bound is a token a byte, 63 + 48 (room for a
  // cap field) = 111. Each call spends 20 + 10 = 30 tokens. Under a cap of 200 a call goes while
  // 30n + 111 + 1 <= 200: calls 0..2 (n = 0..2), each with max_tokens 200 - 30n - 111 set by
  // the relay; call 3 finds 90 used and is refused.
  await withRig(
    {
      default: { content: "x", usage: { prompt_tokens: 20, completion_tokens: 10 } },
    },
    { tokenCap: 200 },
    async ({ provider, relay, chat }) => {
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await chat(`call ${i}`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 403, 403, 403, 403, 403]);
      const refused = await chat("call 8");
      assert.equal(JSON.parse(refused.text).error.code, "token_cap");
      assert.equal(
        JSON.parse(refused.text).error.message,
        "Token cap reached: 90 tokens used of 200 allowed; the call's prompt may take up to 111 " +
          "(its bound from the request body), which leaves no output token",
      );
      assert.deepEqual(
        provider.requests().map((request) => (request.body as { max_tokens: number }).max_tokens),
        [89, 59, 29],
      );
      assert.deepEqual(
        relay.records().filter((r) => r.forwarded).map((r) => [
          r.prompt_bound,
          r.prompt_bound_source,
          r.cap_lowered,
        ]),
        Array(3).fill([111, "bytes", true]),
      );
      assert.equal(relay.stopReason(), "token_cap");
      assert.deepEqual(
        { ...relay.totals() },
        {
          model_calls: 3,
          refused_calls: 6,
          prompt_tokens: 60,
          completion_tokens: 30,
          total_tokens: 90,
          tool_calls: 0,
          rate_limited_calls: 0,
          provider_faults: 0,
          aborted_calls: 0,
          spend_unknown_calls: 0,
          other_requests: 0,
          budget_requests: 0,
          denied_requests: 0,
          unsupported_requests: 0,
        },
      );
    },
  );
});

Deno.test("startRelay() refuses calls beyond the step cap", async () => {
  await withRig(
    { default: { content: "x" } },
    { stepCap: 2 },
    async ({ provider, relay, chat }) => {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await chat(`${i}`)).status);
      assert.deepEqual(statuses, [200, 200, 403, 403]);
      assert.equal(provider.requests().length, 2);
      assert.deepEqual(relay.records().map((r) => r.refusal), [null, null, "step_cap", "step_cap"]);
      assert.equal(relay.stopReason(), "step_cap");
      // Refused calls are not model calls: the gate sees 2 calls with evidence.
      const gate = evidenceGate(relay.records());
      assert.equal(gate.status, "scored");
      assert.equal(gate.model_calls, 2);
    },
  );
});

Deno.test("startRelay() records a response without usage, which the gate makes evidence_missing", async () => {
  await withRig(
    {
      calls: [{ call: 2, reply: { usage: null } }],
      default: { content: "x" },
    },
    {},
    async ({ relay, chat }) => {
      await chat("a");
      const answer = await chat("b");
      assert.equal(answer.status, 200);
      assert.deepEqual(relay.records().map((r) => r.usage === null), [false, true]);
      const gate = evidenceGate(relay.records());
      assert.equal(gate.status, "invalid");
      assert.equal(gate.invalid_reason, "evidence_missing");
      assert.equal(gate.evidence.usage_source, "absent");
    },
  );
});

Deno.test("startRelay() records nothing for an agent that never calls: a scored failure", async () => {
  await withRig({}, {}, async ({ relay, send }) => {
    assert.equal((await send("/relay/health")).text, '{"ok":true}');
    const gate = evidenceGate(relay.records());
    assert.equal(gate.status, "scored");
    assert.equal(gate.zero_calls, true);
    assert.equal(relay.totals().model_calls, 0);
  });
});

Deno.test("startRelay() fingerprints the same request alike whatever its key order", async () => {
  await withRig({ default: { content: "x" } }, {}, async ({ relay, send }) => {
    const post = (body: string) =>
      send("/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
    await post('{"model":"m","temperature":0.2,"messages":[{"role":"user","content":"q"}]}');
    await post('{"messages":[{"content":"q","role":"user"}],"temperature":0.2,"model":"m"}');
    await post('{"messages":[{"content":"q","role":"user"}],"temperature":0.3,"model":"m"}');
    const [a, b, c] = relay.records().map((r) => r.fingerprint);
    assert.equal(a, b);
    assert.notEqual(a, c);
    assert.equal(
      a,
      requestFingerprint({
        model: "m",
        temperature: 0.2,
        messages: [{ role: "user", content: "q" }],
      }),
    );
  });
});

Deno.test("startRelay() refuses malformed bodies without forwarding", async () => {
  await withRig({}, {}, async ({ provider, relay, send }) => {
    const bad = await send("/v1/chat/completions", { method: "POST", body: "{not json" });
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.text).error.code, "unsupported");
    const unknown = await send("/admin", { method: "POST", body: "{}" });
    assert.equal(unknown.status, 404);
    assert.equal(provider.requests().length, 0);
    assert.deepEqual(relay.records().map((r) => r.refusal), ["unsupported"]);
    // the unparseable body (a refused call) and the unknown path (denied): both unsupported
    assert.deepEqual(
      [relay.totals().refused_calls, relay.totals().denied_requests],
      [1, 1],
    );
    assert.equal(relay.totals().unsupported_requests, 2);
    assert.equal(relay.stopReason(), "completed");
    assert.equal(evidenceGate(relay.records()).zero_calls, true);
  });
});

Deno.test("startRelay() marks an upstream 500 as a provider fault", async () => {
  await withRig({ default: { status: 500 } }, {}, async ({ relay, chat }) => {
    assert.equal((await chat("a")).status, 500);
    assert.equal(relay.records()[0].fault, "provider_fault");
    assert.equal(relay.stopReason(), "completed");
    const gate = evidenceGate(relay.records());
    assert.equal(gate.invalid_reason, "provider_fault");
  });
});

Deno.test("startRelay() answers 502 when the upstream is unreachable", async () => {
  await withRig({}, {}, async ({ provider, relay, chat }) => {
    await provider.close();
    const answer = await chat("a");
    assert.equal(answer.status, 502);
    assert.equal(JSON.parse(answer.text).error.code, "provider_fault");
    const [record] = relay.records();
    assert.equal(record.forwarded, true);
    assert.equal(record.upstream_status, null);
    assert.equal(record.fault, "provider_fault");
    assert.match(record.detail, /^Upstream unreachable: /);
  });
});

Deno.test("startRelay() replaces a stale socket file and removes its own on close", async () => {
  const dir = await Deno.makeTempDir({ prefix: "relay_test_" });
  const path = `${dir}/relay.sock`;
  try {
    const options = { upstreamBaseUrl: "http://127.0.0.1:9/v1", upstreamKey: "k" };
    const first = await startRelay(path, options);
    assert.equal((await Deno.lstat(path)).mode! & 0o777, 0o600);
    // A listener killed with SIGKILL leaves its socket file behind.
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `Deno.listen({ transport: "unix", path: "${dir}/stale.sock" }); console.log("up"); setTimeout(() => {}, 60000);`,
      ],
      stdout: "piped",
    }).spawn();
    await child.stdout.pipeThrough(new TextDecoderStream()).getReader().read();
    child.kill("SIGKILL");
    await child.status;
    assert.equal((await Deno.lstat(`${dir}/stale.sock`)).isSocket, true);
    const second = await startRelay(`${dir}/stale.sock`, options);
    await second.close();
    await first.close();
    await assert.rejects(() => Deno.lstat(path), Deno.errors.NotFound);
    await assert.rejects(() => Deno.lstat(`${dir}/stale.sock`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("startRelay() close() cuts off a call still waiting for the upstream once its grace is over", async () => {
  await withRig(
    { default: { content: "late", delay_ms: 800 } },
    { closeGraceMs: 50 },
    async ({ provider, relay, chat }) => {
      const pending = chat("slow").catch((error) => error);
      while (provider.requests().length === 0) await new Promise((r) => setTimeout(r, 5));
      await relay.close();
      await pending;
      const [record] = relay.records();
      assert.equal(record.forwarded, true);
      assert.equal(record.fault, "aborted");
      assert.equal(record.upstream_status, null);
      assert.equal(record.spend_unknown, true);
      assert.equal(relay.totals().aborted_calls, 1);
      assert.equal(relay.totals().spend_unknown_calls, 1);
      const gate = evidenceGate(relay.records());
      assert.equal(gate.status, "scored");
      assert.deepEqual(gate.problems.map((p) => p.code), ["aborted"]);
      assert.equal(gate.evidence.spend_unknown_calls, 1);
    },
  );
});

Deno.test("startRelay() close() lets a call in flight finish and records its spend", async () => {
  // Issue 21 item 5: the agent has gone (the wall cap fell) while the upstream is still
  // answering; the call's 2,000 + 31 tokens are the episode's spend.
  await withRig(
    {
      default: {
        content: "late",
        delay_ms: 600,
        usage: { prompt_tokens: 31, completion_tokens: 2000 },
      },
    },
    {},
    async ({ provider, relay, chat }) => {
      const pending = chat("slow").catch((error) => error);
      while (provider.requests().length === 0) await new Promise((r) => setTimeout(r, 5));
      await relay.close();
      await pending;
      const [record] = relay.records();
      assert.deepEqual([record.fault, record.status, record.spend_unknown], [null, 200, undefined]);
      assert.equal(relay.totals().total_tokens, 2031);
    },
  );
});

Deno.test("startRelay() counts tool calls the model asked for", async () => {
  await withRig(
    {
      default: { tool_calls: [{ name: "a" }, { name: "b" }] },
    },
    {},
    async ({ relay, chat }) => {
      await chat("x");
      await chat("y");
      assert.equal(relay.totals().tool_calls, 4);
    },
  );
});

Deno.test("startRelay() refuses an empty key, a bad URL, a long path and a path that is not a socket", async () => {
  const dir = await Deno.makeTempDir({ prefix: "relay_test_" });
  try {
    await assert.rejects(
      () =>
        startRelay(`${dir}/a.sock`, { upstreamBaseUrl: "http://127.0.0.1:9/v1", upstreamKey: "" }),
      /^Error: Cannot start relay: the upstream key is empty$/,
    );
    await assert.rejects(
      () => startRelay(`${dir}/a.sock`, { upstreamBaseUrl: "ftp://x/v1", upstreamKey: "k" }),
      /^Error: Cannot start relay: upstream base URL "ftp:\/\/x\/v1" must be http or https$/,
    );
    await assert.rejects(
      () =>
        startRelay(`${dir}/${"x".repeat(120)}.sock`, {
          upstreamBaseUrl: "http://127.0.0.1:9/v1",
          upstreamKey: "k",
        }),
      /over the 107-byte limit of unix sockets$/,
    );
    await Deno.writeTextFile(`${dir}/file`, "data");
    await assert.rejects(
      () =>
        startRelay(`${dir}/file`, { upstreamBaseUrl: "http://127.0.0.1:9/v1", upstreamKey: "k" }),
      /is not a socket$/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---- Streamed calls ----

/** The agent's side of a streamed answer: complete events (`\n\n`-separated), read as they come. */
class AgentStream {
  #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  /** Everything received so far. */
  raw = "";

  constructor(response: Response) {
    this.#reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next complete event's `data` (parsed unless `[DONE]`), or null at the end. */
  async next(): Promise<unknown> {
    for (;;) {
      const end = this.#buffer.indexOf("\n\n");
      if (end >= 0) {
        const event = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        assert.equal(event.startsWith("data: "), true, event);
        const data = event.slice("data: ".length);
        return data === "[DONE]" ? data : JSON.parse(data);
      }
      const { value, done } = await this.#reader.read();
      if (done) {
        assert.equal(this.#buffer, "");
        return null;
      }
      this.#buffer += value;
      this.raw += value;
    }
  }

  /** All remaining events. */
  async rest(): Promise<unknown[]> {
    const events = [];
    for (let event = await this.next(); event !== null; event = await this.next()) {
      events.push(event);
    }
    return events;
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

type Chunk = { choices: Array<{ delta?: { content?: string } }>; usage?: unknown };

/** The content an OpenAI client assembles from the chunks' deltas. */
function assembled(events: unknown[]): string {
  return events.filter((e): e is Chunk => e !== "[DONE]")
    .map((e) => e.choices.map((c) => c.delta?.content ?? "").join("")).join("");
}

/** Waits (without any timing assertion) until `ready()` holds; fails after 20 s. */
async function until(ready: () => boolean, what: string): Promise<void> {
  const give_up = Date.now() + 20_000;
  while (!ready()) {
    if (Date.now() > give_up) throw new Error(`Gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A promise the scripted provider's beforeStreamEvent hook can wait on. */
function gate(): { wait: Promise<void>; open: () => void } {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { wait: promise, open: resolve };
}

Deno.test("startRelay() relays a streamed call event by event and records its evidence", async () => {
  await withRig(
    {
      model: "m-7",
      default: {
        content: "alpha beta gamma",
        tool_calls: [{ name: "shell", arguments: '{"cmd":"ls"}' }],
      },
    },
    {},
    async ({ provider, relay, chat, post }) => {
      const whole = JSON.parse((await chat("0123456789")).text);
      const body = {
        model: "any",
        messages: [{ role: "user", content: "0123456789" }],
        stream: true,
        stream_options: { include_obfuscation: false },
      };
      const response = await post(body);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/event-stream");
      const events = await new AgentStream(response).rest();
      // The provider's chunks in order (role, "alpha ", "beta ", "gamma", tool call id + name,
      // its arguments, finish), then [DONE]; the usage chunk the relay asked for is withheld
      // from this agent, which did not ask for it.
      assert.equal(events.length, 8);
      assert.equal(events.at(-1), "[DONE]");
      assert.deepEqual(
        events.slice(1, 4).map((e) => (e as Chunk).choices[0].delta?.content),
        ["alpha ", "beta ", "gamma"],
      );
      assert.equal(assembled(events), whole.choices[0].message.content);
      assert.equal(events.some((e) => e !== "[DONE]" && (e as Chunk).choices.length === 0), false);

      const [, record] = relay.records();
      assert.ok(record.latency_ms >= record.first_byte_ms!);
      assert.deepEqual({ ...record, latency_ms: 0, first_byte_ms: 0 }, {
        index: 2,
        endpoint: "/v1/chat/completions",
        forwarded: true,
        refusal: null,
        status: 200,
        upstream_status: 200,
        server_model_id: "m-7",
        // The same usage as the whole answer's (derived: 10 prompt bytes -> 3; 16 content
        // bytes + "shell" 5 + '{"cmd":"ls"}' 12 = 33 -> 9).
        usage: { prompt_tokens: 3, completion_tokens: 9 },
        tool_calls: 1,
        // Over the agent's request as received, not the forwarded one.
        fingerprint: requestFingerprint(body),
        // No cap in the agent's request, no plan cap.
        output_cap: null,
        fault: null,
        latency_ms: 0,
        first_byte_ms: 0,
        detail: "",
      });
      assert.deepEqual(whole.usage, { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 });
      assert.notEqual(record.fingerprint, relay.records()[0].fingerprint);
      // The one change to the request: include_usage set, the agent's other member kept.
      assert.deepEqual(provider.requests()[1].body, {
        ...body,
        stream_options: { include_obfuscation: false, include_usage: true },
      });
      assert.deepEqual(relay.inFlight(), []);
      // Both records, the streamed one with its first_byte_ms, parse with the record schema.
      for (const r of relay.records()) assert.equal(RelayCallRecord.safeParse(r).success, true);
      assert.equal(relay.totals().tool_calls, 2);
      assert.equal(evidenceGate(relay.records()).status, "scored");
    },
  );
});

Deno.test("startRelay() passes the usage chunk to an agent that asked for it", async () => {
  await withRig({ default: { content: "a b" } }, {}, async ({ provider, relay, post }) => {
    const body = {
      messages: [{ role: "user", content: "q" }],
      stream: true,
      stream_options: { include_usage: true },
    };
    const events = await new AgentStream(await post(body)).rest();
    // Role, "a ", "b", finish, usage, [DONE]; usage derived: "q" 1 byte -> 1, "a b" 3 -> 1.
    assert.equal(events.length, 6);
    assert.deepEqual((events[4] as Chunk).choices, []);
    assert.deepEqual((events[4] as Chunk).usage, {
      prompt_tokens: 1,
      completion_tokens: 1,
      total_tokens: 2,
    });
    assert.deepEqual(provider.requests()[0].body, body);
    assert.deepEqual(relay.records()[0].usage, { prompt_tokens: 1, completion_tokens: 1 });
  });
});

Deno.test("startRelay() redacts the key from a streamed answer", async () => {
  await withRig(
    { default: { echo_authorization: true } },
    {},
    async ({ relay, post }) => {
      const agent = new AgentStream(await post({ stream: true, messages: [] }));
      const events = await agent.rest();
      // The provider streams "Bearer " then the key as its own content chunk.
      assert.equal(assembled(events), "Bearer [redacted]");
      assert.equal(agent.raw.includes(KEY), false);
      assert.equal(agent.raw.includes("sk-upstream"), false);
      assert.notEqual(relay.records()[0].usage, null);
    },
  );
});

Deno.test("startRelay() counts a streamed call's usage toward the token cap", async () => {
  // Usage 95 + 10 = 105 tokens against a cap of 100 (the server reported more prompt than the
  // 77-token bound): the first call crosses it, the second is refused.
  await withRig(
    { default: { content: "x", usage: { prompt_tokens: 95, completion_tokens: 10 } } },
    { tokenCap: 100 },
    async ({ provider, relay, post }) => {
      const first = await new AgentStream(await post({ stream: true, messages: [] })).rest();
      assert.equal(first.at(-1), "[DONE]");
      const second = await post({ stream: true, messages: [] });
      assert.equal(second.status, 403);
      const refused = await second.json();
      assert.equal(refused.error.code, "token_cap");
      assert.equal(refused.error.message, "Token cap reached: 105 tokens used of 100 allowed");
      assert.equal(provider.requests().length, 1);
      assert.equal(relay.totals().total_tokens, 105);
      assert.equal(relay.stopReason(), "token_cap");
    },
  );
});

Deno.test("startRelay() records a stream without usage, which the gate makes evidence_missing", async () => {
  await withRig({ default: { content: "x y", usage: null } }, {}, async ({ relay, post }) => {
    const events = await new AgentStream(await post({ stream: true, messages: [] })).rest();
    assert.equal(assembled(events), "x y");
    const [record] = relay.records();
    assert.equal(record.status, 200);
    assert.equal(record.server_model_id, "scripted-model-1");
    assert.equal(record.usage, null);
    assert.equal(record.fault, null);
    const gate = evidenceGate(relay.records());
    assert.equal(gate.status, "invalid");
    assert.equal(gate.invalid_reason, "evidence_missing");
    assert.deepEqual(gate.problems.map((p) => p.code), ["usage_missing"]);
  });
});

Deno.test("startRelay() passes each event on before the upstream sends the next", async () => {
  const held = gate();
  await withRig(
    { model: "m-1", default: { content: "first second" } },
    {},
    async ({ relay, post }) => {
      const agent = new AgentStream(await post({ stream: true, messages: [] }));
      // The provider holds event 2 ("second"): the agent can only get events 0 and 1 if the
      // relay passes them on as they arrive.
      const role = await agent.next();
      assert.deepEqual((role as Chunk).choices[0].delta, { role: "assistant", content: "" });
      assert.equal(assembled([await agent.next()]), "first ");
      const [live] = relay.inFlight();
      assert.equal(live.index, 1);
      assert.equal(live.server_model_id, "m-1");
      assert.equal(live.usage, null);
      assert.deepEqual(relay.records(), []);
      held.open();
      const rest = await agent.rest();
      assert.equal(assembled(rest), "second");
      assert.equal(rest.at(-1), "[DONE]");
      assert.equal(relay.records().length, 1);
    },
    { beforeStreamEvent: (_call, event) => event === 2 ? held.wait : undefined },
  );
});

Deno.test("startRelay() reads a stream the agent closed to its end, and serves the next call", async () => {
  const held = gate();
  await withRig(
    { default: { content: "a b" } },
    {},
    async ({ relay, post, chat }) => {
      const agent = new AgentStream(await post({ stream: true, messages: [] }));
      await agent.next();
      await agent.cancel();
      // The provider holds event 1 until the relay has seen the agent go.
      await until(
        () => relay.inFlight()[0]?.detail.startsWith("Agent closed the stream") ?? false,
        "the relay to notice the agent closing",
      );
      held.open();
      await until(() => relay.records().length === 1, "the streamed call's record");
      const [record] = relay.records();
      // Upstream events: role, "a ", "b", finish, usage (asked for by the relay), [DONE].
      assert.equal(
        record.detail,
        "Agent closed the stream after 1 event passed back; " +
          "the relay read all 6 events of the upstream stream for the evidence",
      );
      assert.equal(record.fault, null);
      // The whole call's usage, seen after the agent left: [] -> 1 token, "a b" -> 1 token.
      assert.deepEqual(record.usage, { prompt_tokens: 1, completion_tokens: 1 });
      const next = await chat("again");
      assert.equal(next.status, 200);
      assert.equal(relay.records().length, 2);
      assert.equal(evidenceGate(relay.records()).status, "scored");
    },
    { beforeStreamEvent: (call, event) => call === 1 && event === 1 ? held.wait : undefined },
  );
});

Deno.test("startRelay() close() cuts off a stream: aborted, with a last error event", async () => {
  const held = gate();
  await withRig(
    { default: { content: "a b" } },
    { closeGraceMs: 0 },
    async ({ relay, post }) => {
      const agent = new AgentStream(await post({ stream: true, messages: [] }));
      await agent.next();
      const rest = agent.rest();
      await relay.close();
      held.open();
      const events = await rest;
      assert.equal(events.length, 1);
      assert.equal((events[0] as { error: { code: string } }).error.code, "aborted");
      const [record] = relay.records();
      assert.equal(record.fault, "aborted");
      assert.equal(record.upstream_status, 200);
      assert.equal(record.usage, null);
      assert.equal(record.detail, "Aborted: the relay closed after 1 event of the upstream stream");
      // As for a non-streamed call cut off by close(): listed, not invalidating.
      const gate_ = evidenceGate(relay.records());
      assert.equal(gate_.status, "scored");
      assert.deepEqual(gate_.problems.map((p) => p.code), ["aborted"]);
      assert.equal(relay.totals().aborted_calls, 1);
    },
    { beforeStreamEvent: (_call, event) => event === 1 ? held.wait : undefined },
  );
});

Deno.test("startRelay() makes a stream that outlives the upstream timeout a provider fault", async () => {
  const held = gate();
  await withRig(
    { default: { content: "a b" } },
    { upstreamTimeoutMs: 1000 },
    async ({ relay, post }) => {
      const agent = new AgentStream(await post({ stream: true, messages: [] }));
      const events = await agent.rest();
      held.open();
      assert.equal(events.length, 2);
      const [record] = relay.records();
      assert.equal(record.fault, "provider_fault");
      assert.equal(record.detail, "Upstream stream failed after 1 event: timed out");
      assert.deepEqual((events[1] as { error: unknown }).error, {
        message: record.detail,
        type: "upstream_error",
        param: null,
        code: "provider_fault",
      });
      // A failed stream is judged as a provider fault, not as missing evidence.
      const gate_ = evidenceGate(relay.records());
      assert.equal(gate_.invalid_reason, "provider_fault");
    },
    { beforeStreamEvent: (_call, event) => event === 1 ? held.wait : undefined },
  );
});

Deno.test("startRelay() handles a streamed call's 429 and 500 as whole answers", async () => {
  await withRig(
    {
      calls: [{ call: 1, reply: { status: 429, retry_after_s: 4 } }, {
        call: 2,
        reply: { status: 500 },
      }],
    },
    {},
    async ({ relay, post }) => {
      const limited = await post({ stream: true, messages: [] });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get("retry-after"), "4");
      assert.equal((await limited.json()).error.type, "rate_limit_error");
      const fault = await post({ stream: true, messages: [] });
      assert.equal(fault.status, 500);
      await fault.body?.cancel();
      assert.deepEqual(relay.records().map((r) => [r.fault, r.first_byte_ms]), [
        ["rate_limited", undefined],
        ["provider_fault", undefined],
      ]);
      assert.equal(relay.stopReason(), "rate_limited");
    },
  );
});

/** Runs a relay in front of a hand-written upstream. */
async function withUpstream(
  answer: (request: Request) => Response,
  run: (post: (body: Record<string, unknown>) => Promise<Response>, relay: Relay) => Promise<void>,
): Promise<void> {
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const upstream = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) },
    answer,
  );
  const dir = await Deno.makeTempDir({ prefix: "relay_test_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: `http://127.0.0.1:${await listening}/v1`,
    upstreamKey: KEY,
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
  const post = (body: Record<string, unknown>) =>
    fetch("http://relay/v1/chat/completions", {
      client,
      method: "POST",
      body: JSON.stringify(body),
    });
  try {
    await run(post, relay);
  } finally {
    client.close();
    await relay.close();
    await upstream.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("startRelay() reads the evidence of any OpenAI-compatible stream", async () => {
  // Two choices, CRLF line ends, a comment, a non-JSON event, models that disagree, usage
  // repeated (the last one counts), no [DONE].
  const body = [
    ": keep-alive",
    "",
    'data: {"model":"m-a","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t1"}]}},' +
    '{"index":1,"delta":{"tool_calls":[{"index":0,"id":"t1"}]}}]}',
    "",
    'data: {"model":"m-b","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t1",' +
    '"function":{"arguments":"{}"}},{"index":1,"id":"t2"},{"index":2}]}}]}',
    "",
    "data: not json",
    "",
    'data: {"model":"m-a","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1}}',
    "",
    'data: {"model":"m-a","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}',
    "",
    "",
  ].join("\r\n");
  await withUpstream(
    () => new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8" } }),
    async (post, relay) => {
      const response = await post({ stream: true, messages: [] });
      // The agent asked for no usage: the two usage-only chunks are withheld, the rest passed.
      const text = await response.text();
      assert.equal(text, body.split("\r\n\r\n").slice(0, 4).join("\r\n\r\n") + "\r\n\r\n");
      const [record] = relay.records();
      // Tool calls: (choice 0, t1), (choice 1, t1), (choice 0, t2); the id-less delta is no call.
      assert.equal(record.tool_calls, 3);
      assert.equal(record.server_model_id, "m-a");
      assert.deepEqual(record.usage, { prompt_tokens: 5, completion_tokens: 2 });
      assert.equal(
        record.detail,
        'Chunks disagree on the model: first "m-a", later "m-b"; 1 upstream events are not JSON; ' +
          "Upstream stream ended without [DONE]",
      );
    },
  );
});

Deno.test("startRelay() handles a whole JSON answer to a streamed call as a whole answer", async () => {
  await withUpstream(
    () =>
      Response.json({
        model: "m-j",
        choices: [{ message: { content: "whole" } }],
        usage: { prompt_tokens: 2, completion_tokens: 3 },
      }),
    async (post, relay) => {
      const response = await post({ stream: true, messages: [] });
      assert.equal((await response.json()).choices[0].message.content, "whole");
      const [record] = relay.records();
      assert.equal(record.server_model_id, "m-j");
      assert.deepEqual(record.usage, { prompt_tokens: 2, completion_tokens: 3 });
      assert.equal(record.first_byte_ms, undefined);
    },
  );
});

Deno.test("startRelay() makes an upstream error event a provider fault", async () => {
  const body = 'data: {"model":"m","choices":[{"index":0,"delta":{"content":"x"}}]}\n\n' +
    'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n';
  await withUpstream(
    () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
    async (post, relay) => {
      const response = await post({ stream: true, messages: [] });
      // Passed through as sent; the relay adds nothing after an upstream error event.
      assert.equal(await response.text(), body);
      const [record] = relay.records();
      assert.equal(record.fault, "provider_fault");
      assert.equal(
        record.detail,
        'Upstream sent an error event: "overloaded"; Upstream stream ended without [DONE]',
      );
      assert.equal(evidenceGate(relay.records()).invalid_reason, "provider_fault");
    },
  );
});

Deno.test("startRelay() puts the plan's output cap on every forwarded call, keeping the agent's field", async () => {
  await withRig({ model: "m-7", default: { content: "ok" } }, { maxOutputTokens: 64 }, async ({
    provider,
    relay,
    post,
  }) => {
    const messages = [{ role: "user", content: "0123456789" }];
    const bodies: Record<string, unknown>[] = [
      { model: "any", messages }, // no cap: max_tokens 64 is added
      { model: "any", messages, max_tokens: 500 }, // larger: lowered to 64
      { model: "any", messages, max_completion_tokens: 1000 }, // larger, newer field: kept, lowered
      { model: "any", messages, max_tokens: 16 }, // smaller: unchanged
      { model: "any", messages, max_completion_tokens: 32, max_tokens: null }, // null: set to 64
    ];
    for (const body of bodies) {
      const response = await post(body);
      assert.equal(response.status, 200);
      await response.body?.cancel();
    }
    // Each asked for whole, so each is forwarded streamed with include_usage (issue 21).
    const streamed = { stream: true, stream_options: { include_usage: true } };
    assert.deepEqual(provider.requests().map((r) => r.body), [
      { ...bodies[0], max_tokens: 64, ...streamed },
      { ...bodies[1], max_tokens: 64, ...streamed },
      { ...bodies[2], max_completion_tokens: 64, ...streamed },
      { ...bodies[3], ...streamed },
      { ...bodies[4], max_tokens: 64, ...streamed },
    ]);
    const records = relay.records();
    // max_completion_tokens ?? max_tokens of what was forwarded.
    assert.deepEqual(records.map((r) => r.output_cap), [64, 64, 64, 16, 32]);
    // The fingerprint stays that of the agent's request as received.
    assert.deepEqual(records.map((r) => r.fingerprint), bodies.map((b) => requestFingerprint(b)));
    for (const r of records) assert.equal(RelayCallRecord.safeParse(r).success, true);
    // Derived usage: 10 prompt bytes -> 3, "ok" -> 1 completion token, within every cap.
    const gate = evidenceGate(records, {
      modelLimits: { max_output_tokens: 64, context_limit_tokens: 4 },
    });
    assert.equal(gate.status, "scored");
    assert.deepEqual(gate.problems, []);
    assert.equal(gate.evidence.max_call_tokens, 4);
  });
});

Deno.test("startRelay() caps a streamed call's output too, beside include_usage", async () => {
  await withRig(
    { model: "m-7", default: { content: "alpha beta" } },
    { maxOutputTokens: 64 },
    async ({
      provider,
      relay,
      post,
    }) => {
      const body = {
        model: "any",
        messages: [{ role: "user", content: "0123456789" }],
        stream: true,
        max_completion_tokens: 4096,
      };
      const response = await post(body);
      assert.equal(response.status, 200);
      const events = await new AgentStream(response).rest();
      assert.equal(events.at(-1), "[DONE]");
      // Both changes, and no other: include_usage set, the agent's field lowered to the plan's cap.
      assert.deepEqual(provider.requests()[0].body, {
        ...body,
        max_completion_tokens: 64,
        stream_options: { include_usage: true },
      });
      const [record] = relay.records();
      assert.equal(record.output_cap, 64);
      assert.equal(record.fingerprint, requestFingerprint(body));
      // Derived: 10 prompt bytes -> 3; "alpha beta" 10 bytes -> 3.
      assert.deepEqual(record.usage, { prompt_tokens: 3, completion_tokens: 3 });
      const gate = evidenceGate(relay.records(), {
        modelLimits: { max_output_tokens: 64, context_limit_tokens: null },
      });
      assert.equal(gate.status, "scored");
      assert.equal(gate.evidence.max_output_tokens, 64);
    },
  );
});

Deno.test("startRelay() without an output policy forwards the body unchanged and records the agent's cap", async () => {
  await withRig({ default: { content: "ok" } }, {}, async ({ provider, relay, post }) => {
    const messages = [{ role: "user", content: "hi" }];
    const bodies: Record<string, unknown>[] = [
      { model: "any", messages, max_tokens: 500 },
      { model: "any", messages, max_completion_tokens: 7, max_tokens: 500 },
      { model: "any", messages, max_tokens: "many" },
    ];
    for (const body of bodies) await (await post(body)).body?.cancel();
    // Unchanged but for the one change every whole call gets: forwarded streamed (issue 21).
    assert.deepEqual(
      provider.requests().map((r) => r.body),
      bodies.map((b) => ({ ...b, stream: true, stream_options: { include_usage: true } })),
    );
    // max_completion_tokens ?? max_tokens, non-negative integers only.
    assert.deepEqual(relay.records().map((r) => r.output_cap), [500, 7, null]);
  });
});

Deno.test("startRelay() calls served past the plan's limits leave the gate's evidence unproven", async () => {
  await withRig(
    {
      model: "m-7",
      calls: [
        // A server that ignores the cap: 100 completion tokens against the relay's 64.
        { call: 1, reply: { content: "x", usage: { prompt_tokens: 10, completion_tokens: 100 } } },
        // Within the cap, but 4090 + 20 tokens served over a declared 4096-token context (a
        // prompt alone over it would be the agent's doing, not missing evidence).
        { call: 2, reply: { content: "x", usage: { prompt_tokens: 4090, completion_tokens: 20 } } },
      ],
    },
    { maxOutputTokens: 64 },
    async ({ relay, chat }) => {
      assert.equal((await chat("a")).status, 200);
      assert.equal((await chat("b")).status, 200);
      const gate = evidenceGate(relay.records(), {
        modelLimits: { max_output_tokens: 64, context_limit_tokens: 4096 },
      });
      assert.equal(gate.status, "invalid");
      assert.equal(gate.invalid_reason, "evidence_missing");
      assert.deepEqual(gate.problems.map((p) => [p.index, p.code]), [
        [1, "output_policy_unproven"],
        [2, "context_limit_unproven"],
      ]);
      // max(10 + 100, 4090 + 20)
      assert.equal(gate.evidence.max_call_tokens, 4110);
    },
    { ignoreOutputCap: true },
  );
});

Deno.test("startRelay() refuses an output cap that is not a positive integer", async () => {
  const dir = await Deno.makeTempDir({ prefix: "relay_test_" });
  try {
    for (const cap of [0, -1, 1.5]) {
      await assert.rejects(
        () =>
          startRelay(`${dir}/a.sock`, {
            upstreamBaseUrl: "http://127.0.0.1:9/v1",
            upstreamKey: "k",
            maxOutputTokens: cap,
          }),
        new RegExp(
          `^Error: Cannot start relay: the output cap "maxOutputTokens" must be a positive integer, not ${
            String(cap).replace(".", "\\.")
          }$`,
        ),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("startRelay() makes a call an upstream accepts and never answers a provider fault at the timeout", async () => {
  // Issue 9, item 3: an upstream that accepts the connection and never writes a byte.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })().catch(() => {});
  const dir = await Deno.makeTempDir({ prefix: "relay_test_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: `http://127.0.0.1:${listener.addr.port}/v1`,
    upstreamKey: KEY,
    upstreamTimeoutMs: 200,
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
  try {
    const response = await fetch("http://relay/v1/chat/completions", {
      client,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    assert.equal(response.status, 502);
    const body = await response.json();
    const [record] = relay.records();
    assert.deepEqual([record.fault, record.upstream_status, record.usage], [
      "provider_fault",
      null,
      null,
    ]);
    assert.equal(
      record.detail,
      "The upstream sent nothing for the upstream timeout of 200 ms",
    );
    assert.equal(body.error.message, record.detail);
    assert.equal(evidenceGate(relay.records()).invalid_reason, "provider_fault");
  } finally {
    client.close();
    await relay.close();
    listener.close();
    for (const conn of held) conn.close();
    await accepting;
    await Deno.remove(dir, { recursive: true });
  }
});

// Issue 21, "Invalid only when the harness failed": a call asked for whole is forwarded streamed
// and answered whole, so an upstream answering slowly (the agent's spend) is told from a silent
// one (a provider fault).

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** What the scripted provider answers `body` at `path` whole, as its first call. */
async function wholeAnswerOf(
  script: ProviderScriptInput,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const direct = await startScriptedProvider(script, { apiKey: KEY });
  try {
    const response = await fetch(`${direct.baseUrl}${path.slice("/v1".length)}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${KEY}`,
        "x-api-key": KEY,
        ...headers,
      },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 200);
    return await response.json();
  } finally {
    await direct.close();
  }
}

Deno.test("startRelay() answers a whole call whose upstream streams for longer than the upstream timeout, with its spend", async () => {
  // 8 words: the role delta, 8 pieces, the finish chunk, the usage chunk and [DONE] are 12
  // events, each sent 0.3 s after the last: 3.6 s in all, under a 1 s limit on silence.
  const script = {
    model: "m-slow",
    default: { content: "one two three four five six seven eight" },
  };
  const request = { model: "any", messages: [{ role: "user", content: "count to eight" }] };
  await withRig(
    script,
    { upstreamTimeoutMs: 1000 },
    async ({ provider, relay, post }) => {
      const response = await post(request);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "application/json");
      const text = await response.text();
      // Exactly what the same provider answers the request whole (ids and usage alike).
      assert.deepEqual(
        JSON.parse(text),
        await wholeAnswerOf(script, "/v1/chat/completions", request),
      );
      assert.deepEqual(provider.requests()[0].body, {
        ...request,
        stream: true,
        stream_options: { include_usage: true },
      });
      const [record] = relay.records();
      // Derived usage: "count to eight" 14 bytes -> 4; the 39-byte content -> 10.
      assert.deepEqual(
        [record.status, record.fault, record.usage, record.reassembled, record.detail],
        [200, null, { prompt_tokens: 4, completion_tokens: 10 }, true, ""],
      );
      assert.ok(record.latency_ms >= 3000, `latency ${record.latency_ms}`);
      assert.ok((record.first_byte_ms ?? Infinity) < 1000, `first byte ${record.first_byte_ms}`);
      assert.equal(record.spend_unknown, undefined);
      // The body log keeps the answer as the agent received it: the reassembled JSON.
      assert.equal(relay.callBodies()[0].response.text, text);
      assert.equal(evidenceGate(relay.records(), { upstreamTimeoutMs: 1000 }).status, "scored");
    },
    { beforeStreamEvent: () => sleep(300) },
  );
});

Deno.test("startRelay() makes a whole call whose upstream falls silent mid-stream a provider fault", async () => {
  await withRig(
    { default: { content: "a b c d" } },
    { upstreamTimeoutMs: 1000 },
    async ({ relay, post }) => {
      const response = await post({ model: "any", messages: [] });
      assert.equal(response.status, 502);
      assert.equal(response.headers.get("content-type"), "application/json");
      const body = await response.json();
      const [record] = relay.records();
      assert.deepEqual(
        [record.status, record.upstream_status, record.fault, record.usage, record.spend_unknown],
        [502, 200, "provider_fault", null, true],
      );
      assert.equal(
        record.detail,
        "The upstream sent nothing for the upstream timeout of 1000 ms after 3 events",
      );
      assert.deepEqual(body, {
        error: {
          message: record.detail,
          type: "upstream_error",
          param: null,
          code: "provider_fault",
        },
      });
      assert.equal(relay.callBodies()[0].response.text, JSON.stringify(body));
      assert.equal(evidenceGate(relay.records()).invalid_reason, "provider_fault");
    },
    // Events 0 to 2 come at once, then nothing for 1.5 s.
    { beforeStreamEvent: (_call, event) => event === 3 ? sleep(1500) : undefined },
  );
});

Deno.test("startRelay() makes a whole call whose upstream is silent before answering a provider fault", async () => {
  await withRig(
    { default: { content: "late", delay_ms: 1500 } },
    { upstreamTimeoutMs: 1000 },
    async ({ relay, post }) => {
      const response = await post({ model: "any", messages: [] });
      assert.equal(response.status, 502);
      await response.body?.cancel();
      const [record] = relay.records();
      assert.deepEqual([record.fault, record.upstream_status, record.spend_unknown], [
        "provider_fault",
        null,
        true,
      ]);
      assert.equal(record.detail, "The upstream sent nothing for the upstream timeout of 1000 ms");
      assert.equal(evidenceGate(relay.records()).invalid_reason, "provider_fault");
    },
  );
});

Deno.test("startRelay() answers a whole call of every API exactly as the upstream answers it whole", async () => {
  const script = {
    model: "m-9",
    default: {
      content: "Listing it.",
      tool_calls: [{ name: "shell", arguments: '{"command":["ls"]}' }],
    },
  };
  const cases: Array<[string, "openai" | "anthropic", Record<string, unknown>]> = [
    ["/v1/chat/completions", "openai", { model: "a", messages: [{ role: "user", content: "ls" }] }],
    ["/v1/completions", "openai", { model: "a", prompt: "ls" }],
    ["/v1/responses", "openai", { model: "a", input: "ls", store: false }],
    ["/v1/messages", "anthropic", {
      model: "a",
      max_tokens: 100,
      messages: [{ role: "user", content: "ls" }],
    }],
  ];
  for (const [path, kind, request] of cases) {
    const headers = { "content-type": "application/json", "anthropic-version": "2023-06-01" };
    await withRig(script, { upstreamKind: kind }, async ({ relay, send }) => {
      const answer = await send(path, {
        method: "POST",
        headers,
        body: JSON.stringify(request),
      });
      assert.equal(answer.status, 200, `${path}: ${answer.text}`);
      assert.deepEqual(
        JSON.parse(answer.text),
        await wholeAnswerOf(script, path, request, headers),
      );
      const [record] = relay.records();
      assert.deepEqual(
        [record.reassembled, record.fault, record.server_model_id, record.tool_calls],
        [true, null, "m-9", path === "/v1/completions" ? 0 : 1],
        path,
      );
      assert.notEqual(record.usage, null);
      assert.equal(evidenceGate(relay.records()).status, "scored");
    });
  }
});
