import assert from "node:assert/strict";
import { type Relay, type RelayOptions, startRelay } from "./relay.ts";
import { type ScriptedProvider, startScriptedProvider } from "./scripted_provider.ts";
import type { ProviderScriptInput } from "./provider_script.ts";
import { evidenceGate } from "./evidence_gate.ts";
import { requestFingerprint } from "./request_fingerprint.ts";

const KEY = "sk-upstream-7f3c-secret";

interface Rig {
  provider: ScriptedProvider;
  relay: Relay;
  /** POSTs a chat completion through the relay's socket, as the agent would. */
  chat(content: string, extra?: Record<string, unknown>): Promise<Answer>;
  /** Sends raw body text to a relay path. */
  send(path: string, init?: RequestInit): Promise<Answer>;
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
): Promise<void> {
  const provider = await startScriptedProvider(script, { apiKey: KEY });
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
  try {
    await run({ provider, relay, chat, send });
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
      fault: null,
      latency_ms: 0,
      detail: "",
    });
    assert.ok(record.latency_ms > 0);
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

Deno.test("startRelay() forwards the call that crosses the token cap, then refuses", async () => {
  // Each call: given usage 40 + 10 = 50 tokens; cap 120 -> calls 1..3 forwarded (0, 50, 100 < 120),
  // call 3 brings the total to 150, call 4 is refused.
  await withRig(
    {
      default: { content: "x", usage: { prompt_tokens: 40, completion_tokens: 10 } },
    },
    { tokenCap: 120 },
    async ({ provider, relay, chat }) => {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await chat(`call ${i}`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 403, 403]);
      const refused = await chat("again");
      assert.equal(JSON.parse(refused.text).error.code, "token_cap");
      assert.match(
        JSON.parse(refused.text).error.message,
        /^Token cap reached: 150 tokens used of 120/,
      );
      assert.equal(provider.requests().length, 3);
      assert.equal(relay.stopReason(), "token_cap");
      assert.deepEqual(
        { ...relay.totals() },
        {
          model_calls: 3,
          refused_calls: 3,
          prompt_tokens: 120,
          completion_tokens: 30,
          total_tokens: 150,
          tool_calls: 0,
          rate_limited_calls: 0,
          provider_faults: 0,
          aborted_calls: 0,
          other_requests: 0,
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

Deno.test("startRelay() refuses streaming and malformed bodies without forwarding", async () => {
  await withRig({}, {}, async ({ provider, relay, chat, send }) => {
    const stream = await chat("s", { stream: true });
    assert.equal(stream.status, 400);
    assert.equal(JSON.parse(stream.text).error.code, "stream_unsupported");
    const bad = await send("/v1/chat/completions", { method: "POST", body: "{not json" });
    assert.equal(bad.status, 400);
    const unknown = await send("/admin", { method: "POST", body: "{}" });
    assert.equal(unknown.status, 404);
    assert.equal(provider.requests().length, 0);
    assert.deepEqual(relay.records().map((r) => r.refusal), ["stream_unsupported", "bad_request"]);
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

Deno.test("startRelay() close() cuts off a call still waiting for the upstream", async () => {
  await withRig(
    { default: { content: "late", delay_ms: 800 } },
    {},
    async ({ provider, relay, chat }) => {
      const pending = chat("slow").catch((error) => error);
      while (provider.requests().length === 0) await new Promise((r) => setTimeout(r, 5));
      await relay.close();
      await pending;
      const [record] = relay.records();
      assert.equal(record.forwarded, true);
      assert.equal(record.fault, "aborted");
      assert.equal(record.upstream_status, null);
      assert.equal(relay.totals().aborted_calls, 1);
      const gate = evidenceGate(relay.records());
      assert.equal(gate.status, "scored");
      assert.deepEqual(gate.problems.map((p) => p.code), ["aborted"]);
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
