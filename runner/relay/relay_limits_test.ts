/**
 * The relay's limits against a hostile agent (issue 7): default deny, bodies
 * read up to the limit, the token cap under concurrency, the pinned model,
 * `stream` and `n`, and the concurrency limit.
 */
import assert from "node:assert/strict";
import { type Relay, type RelayOptions, startRelay } from "./relay.ts";
import {
  type ScriptedProvider,
  type ScriptedProviderOptions,
  startScriptedProvider,
} from "./scripted_provider.ts";
import type { ProviderScriptInput } from "../../analysis/schema/provider_script.ts";

const KEY = "sk-upstream-limits-91d2";

interface Rig {
  provider: ScriptedProvider;
  relay: Relay;
  /** Sends a request to the relay; returns status and parsed error code (or body text). */
  send(path: string, init?: RequestInit): Promise<{ status: number; code: unknown; text: string }>;
  /** POSTs a chat completion with extra body fields. */
  chat(extra?: Record<string, unknown>): ReturnType<Rig["send"]>;
}

async function withRig(
  script: ProviderScriptInput,
  options: Omit<RelayOptions, "upstreamBaseUrl" | "upstreamKey">,
  run: (rig: Rig) => Promise<void>,
  providerOptions: Omit<ScriptedProviderOptions, "apiKey"> = {},
): Promise<void> {
  const provider = await startScriptedProvider(script, { apiKey: KEY, ...providerOptions });
  const dir = await Deno.makeTempDir({ prefix: "relay_limits_test_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: provider.baseUrl,
    upstreamKey: KEY,
    ...options,
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
  const send: Rig["send"] = async (path, init = {}) => {
    const response = await fetch(`http://relay${path}`, { ...init, client });
    const text = await response.text();
    let code: unknown = null;
    try {
      code = JSON.parse(text)?.error?.code ?? null;
    } catch {
      code = null;
    }
    return { status: response.status, code, text };
  };
  const chat: Rig["chat"] = (extra = {}) =>
    send("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...extra }),
    });
  try {
    await run({ provider, relay, send, chat });
  } finally {
    client.close();
    await relay.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("startRelay() forwards nothing outside its allow-list and counts what it denied", async () => {
  await withRig({}, {}, async ({ provider, relay, send }) => {
    const attempts: Array<[string, string, string | undefined]> = [
      ["DELETE", "/v1/files/file-abc", undefined],
      ["POST", "/v1/files", "x".repeat(1000)],
      ["GET", "/v1/organization/admin_api_keys", undefined],
      ["POST", "/v1/chat/completions/", "{}"],
      ["POST", "/v1//chat/completions", "{}"],
      ["POST", "/v1/chat%2Fcompletions", "{}"],
      ["POST", "/v1/chat/completions?x=1", "{}"],
      ["GET", "/v1/chat/completions", undefined],
    ];
    const seen = [];
    for (const [method, path, body] of attempts) {
      const answer = await send(path, { method, body });
      seen.push([answer.status, answer.code]);
    }
    assert.deepEqual(seen, [
      [404, "not_found"],
      [404, "not_found"],
      [404, "not_found"],
      [400, "bad_request"],
      [400, "bad_request"],
      [400, "bad_request"],
      [400, "bad_request"],
      [405, "method_not_allowed"],
    ]);
    const models = await send("/v1/models");
    assert.equal(models.status, 200);
    assert.deepEqual(provider.requests().map((r) => `${r.method} ${r.path}`), ["GET /v1/models"]);
    assert.equal(relay.totals().denied_requests, 8);
    // every one of them is outside what the relay speaks
    assert.equal(relay.totals().unsupported_requests, 8);
    assert.equal(relay.totals().other_requests, 1);
    assert.deepEqual(relay.records(), []);
  });
});

Deno.test("startRelay() refuses a body over the limit after reading at most the limit and a chunk", async () => {
  // 64 MiB offered in 64 KiB chunks against a 1 MiB limit.
  let offered = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offered >= 64 * 1_048_576) return controller.close();
      offered += 65_536;
      controller.enqueue(new Uint8Array(65_536).fill(32));
    },
  });
  await withRig({}, { maxBodyBytes: 1_048_576 }, async ({ provider, relay, send }) => {
    const answer = await send("/v1/chat/completions", { method: "POST", body });
    assert.equal(answer.status, 413);
    const [record] = relay.records();
    const read = Number(/after reading (\d+)\)/.exec(record.detail)?.[1]);
    assert.ok(read > 1_048_576 && read <= 1_048_576 + 65_536, record.detail);
    assert.ok(offered < 16 * 1_048_576, `the client was asked for ${offered} bytes`);
    assert.equal(provider.requests().length, 0);
  });
});

Deno.test("startRelay() holds the token cap under 30 concurrent calls capped at 1000 tokens", async () => {
  // Each body, {"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":1000}, is
  // 75 bytes, of a model without a known tokenizer: prompt bound a token a byte, 75 + 48 (room
  // for a cap field) = 123. Cap 2000: the first call reserves 1123 and goes; the others are held
  // (1123 + 1123 > 2000). It settles at 25 + 1000 = 1025; the second then runs alone with
  // max_tokens lowered to 2000 - 1025 - 123 = 852, and the scripted model stops there
  // (25 + 852); 1902 used leaves nothing for the other 28 (98 < 123).
  await withRig(
    {
      default: {
        content: "x",
        usage: { prompt_tokens: 25, completion_tokens: 1000 },
        delay_ms: 50,
      },
    },
    { tokenCap: 2000 },
    async ({ provider, relay, chat }) => {
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => chat({ max_tokens: 1000 })),
      );
      assert.equal(answers.filter((a) => a.status === 200).length, 2);
      assert.equal(answers.filter((a) => a.status === 403 && a.code === "token_cap").length, 28);
      assert.deepEqual(
        provider.requests().map((request) => (request.body as { max_tokens: number }).max_tokens),
        [1000, 852],
      );
      assert.equal(relay.totals().total_tokens, 1902);
      assert.equal(relay.stopReason(), "token_cap");
    },
  );
});

Deno.test("startRelay() reserves the plan's output cap when the agent sets none", async () => {
  // maxOutputTokens 600, cap 1000: each call is forwarded with max_tokens 600; the body
  // {"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":600} is 74 bytes,
  // bound 74 + 48 = 122 (a token a byte). Whichever call arrives first goes (722 reserved), the
  // other two are held; it settles at 10 + 600 = 610, the next runs alone with
  // 1000 - 610 - 122 = 268, settles at 10 + 268 = 888, and the last finds 112 < 122 left.
  // (Which arrives first is up to the scheduler.)
  await withRig(
    {
      default: { content: "x", usage: { prompt_tokens: 10, completion_tokens: 600 }, delay_ms: 50 },
    },
    { tokenCap: 1000, maxOutputTokens: 600 },
    async ({ provider, relay, chat }) => {
      const answers = await Promise.all([chat(), chat(), chat()]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 403]);
      assert.deepEqual(
        provider.requests().map((request) => (request.body as { max_tokens: number }).max_tokens),
        [600, 268],
      );
      assert.equal(relay.totals().total_tokens, 888);
    },
  );
});

Deno.test("startRelay() refuses another model than the pinned one, a non-boolean stream and n > 1", async () => {
  await withRig({}, { pinnedModel: "m" }, async ({ provider, relay, chat }) => {
    const other = await chat({ model: "gpt-4o" });
    assert.equal(other.status, 403);
    assert.equal(other.code, "model_not_allowed");
    assert.equal((await chat({ model: undefined })).code, "model_not_allowed");
    const stream = await chat({ stream: "true" });
    assert.deepEqual([stream.status, stream.code], [400, "bad_request"]);
    const n = await chat({ n: 2 });
    assert.deepEqual([n.status, n.code], [400, "bad_request"]);
    const bestOf = await chat({ best_of: 3 });
    assert.deepEqual([bestOf.status, bestOf.code], [400, "bad_request"]);
    assert.equal(provider.requests().length, 0);
    assert.deepEqual(relay.records().map((r) => r.refusal), [
      "model_not_allowed",
      "model_not_allowed",
      "bad_request",
      "bad_request",
      "bad_request",
    ]);
    assert.equal((await chat({ n: 1, stream: false })).status, 200);
    assert.equal(provider.requests().length, 1);
  });
});

Deno.test("startRelay() answers 429 past its concurrency limit", async () => {
  // The two streamed calls are held open at their first event until the third has been
  // answered, so they are in flight when it arrives however loaded the machine is (a delay
  // once let them finish first on a loaded CI run).
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  await withRig(
    { default: { content: "x" } },
    { maxConcurrentRequests: 2 },
    async ({ provider, relay, chat }) => {
      const slow = [chat({ stream: true }), chat({ stream: true })];
      while (provider.requests().length < 2) await new Promise((r) => setTimeout(r, 10));
      const third = await chat();
      release();
      assert.deepEqual([third.status, third.code], [429, "concurrency_limit"]);
      assert.deepEqual((await Promise.all(slow)).map((a) => a.status), [200, 200]);
      assert.equal(relay.totals().denied_requests, 1);
      // the relay speaks the call's API: over the limit is not unsupported
      assert.equal(relay.totals().unsupported_requests, 0);
      assert.equal(provider.requests().length, 2);
    },
    { beforeStreamEvent: () => released },
  );
});
