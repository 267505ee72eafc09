/**
 * The relay against the client most agents use: the official `openai` npm
 * SDK, talking to the relay's unix socket (a custom `fetch`, as the sandbox's
 * forwarder would present it on 127.0.0.1). Pins that a whole answer, a
 * stream, a stream with the agent's own usage request, tool calls and a
 * refusal all parse in the SDK, and that the relay's records carry the
 * evidence, for Chat Completions and for the Responses API
 * (`responses.create`, whole and `stream: true`).
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { evidenceGate } from "./evidence_gate.ts";
import { startRelay } from "./relay.ts";
import { startScriptedProvider } from "./scripted_provider.ts";
import type { ProviderScriptInput } from "../../analysis/schema/provider_script.ts";
import type { Relay, RelayOptions } from "./relay.ts";
import {
  type RelayRig,
  responsesBody,
  responsesStream,
  RIG_KEY,
  withRelayRig,
} from "./_api_fakes_for_test.ts";

const KEY = "sk-upstream-only-the-relay-holds-this";

async function withSdk(
  script: ProviderScriptInput,
  run: (sdk: OpenAI, relay: Relay) => Promise<void>,
  caps: Pick<RelayOptions, "stepCap" | "tokenCap"> = {},
): Promise<void> {
  const provider = await startScriptedProvider(script, { apiKey: KEY });
  const dir = await Deno.makeTempDir({ prefix: "relay_sdk_test_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: provider.baseUrl,
    upstreamKey: KEY,
    ...caps,
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
  const sdk = new OpenAI({
    apiKey: "agent-has-no-key",
    baseURL: "http://relay/v1",
    maxRetries: 0,
    fetch: (input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, client }),
  });
  try {
    await run(sdk, relay);
  } finally {
    client.close();
    await relay.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const MESSAGES = [{ role: "user" as const, content: "0123456789" }];

Deno.test("startRelay() serves the openai SDK's whole answer with the evidence recorded", async () => {
  await withSdk({ model: "m-sdk", default: { content: "hello" } }, async (sdk, relay) => {
    const answer = await sdk.chat.completions.create({ model: "any", messages: MESSAGES });
    assert.equal(answer.choices[0].message.content, "hello");
    assert.equal(answer.model, "m-sdk");
    // Scripted usage from byte lengths: 10 prompt bytes -> 3 tokens, "hello" 5 bytes -> 2.
    assert.deepEqual(
      { prompt: answer.usage?.prompt_tokens, completion: answer.usage?.completion_tokens },
      { prompt: 3, completion: 2 },
    );
    const [record] = relay.records();
    assert.equal(record.server_model_id, "m-sdk");
    assert.deepEqual(record.usage, { prompt_tokens: 3, completion_tokens: 2 });
    assert.equal(evidenceGate(relay.records()).status, "scored");
  });
});

Deno.test("startRelay() streams to the openai SDK; the usage it adds for itself stays hidden", async () => {
  await withSdk({ model: "m-sdk", default: { content: "one two three" } }, async (sdk, relay) => {
    const stream = await sdk.chat.completions.create({
      model: "any",
      messages: MESSAGES,
      stream: true,
    });
    const texts: string[] = [];
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      // a naive client reads choices[0] of every chunk: the relay's usage-only chunk must not come
      assert.equal(chunk.choices.length, 1);
      texts.push(chunk.choices[0].delta.content ?? "");
      assert.equal(chunk.usage ?? null, null);
    }
    assert.equal(texts.join(""), "one two three");
    assert.ok(chunks >= 3, `${chunks} chunks`);
    const [record] = relay.records();
    assert.equal(record.server_model_id, "m-sdk");
    // 10 prompt bytes -> 3 tokens; "one two three" 13 bytes -> ceil(13/4) = 4
    assert.deepEqual(record.usage, { prompt_tokens: 3, completion_tokens: 4 });
    assert.equal(evidenceGate(relay.records()).status, "scored");
  });
});

Deno.test("startRelay() passes the usage chunk to an SDK stream that asked for it", async () => {
  await withSdk({ model: "m-sdk", default: { content: "one two three" } }, async (sdk, relay) => {
    const stream = await sdk.chat.completions.create({
      model: "any",
      messages: MESSAGES,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | null = null;
    let text = "";
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, "one two three");
    assert.deepEqual(
      { prompt: usage?.prompt_tokens, completion: usage?.completion_tokens },
      { prompt: 3, completion: 4 },
    );
    assert.deepEqual(relay.records()[0].usage, { prompt_tokens: 3, completion_tokens: 4 });
  });
});

Deno.test("startRelay() streams tool calls the openai SDK assembles, and counts them", async () => {
  const script = {
    model: "m-sdk",
    default: {
      tool_calls: [
        { name: "read_file", arguments: '{"path":"a.txt"}' },
        { name: "run", arguments: '{"cmd":"ls"}' },
      ],
    },
  };
  await withSdk(script, async (sdk, relay) => {
    const stream = sdk.chat.completions.stream({ model: "any", messages: MESSAGES });
    const final = await stream.finalChatCompletion();
    const calls = final.choices[0].message.tool_calls ?? [];
    assert.deepEqual(
      calls.map((call) =>
        call.type === "function" ? [call.function.name, call.function.arguments] : []
      ),
      [["read_file", '{"path":"a.txt"}'], ["run", '{"cmd":"ls"}']],
    );
    const [record] = relay.records();
    assert.equal(record.tool_calls, 2);
    assert.notEqual(record.usage, null);
  });
});

Deno.test("startRelay() refuses over the step cap with an error the openai SDK reads", async () => {
  await withSdk({ model: "m-sdk", default: { content: "hello" } }, async (sdk, relay) => {
    await sdk.chat.completions.create({ model: "any", messages: MESSAGES });
    const refused = await sdk.chat.completions.create({
      model: "any",
      messages: MESSAGES,
      stream: true,
    }).then(() => null, (error: unknown) => error);
    assert.ok(refused instanceof OpenAI.APIError, String(refused));
    assert.equal(refused.status, 403);
    assert.equal(refused.code, "step_cap");
    assert.equal(relay.totals().model_calls, 1);
    assert.equal(relay.stopReason(), "step_cap");
  }, { stepCap: 1 });
});

/** The openai SDK on the rig's relay (Responses API tests, inline fake upstream). */
function sdkOn(rig: RelayRig): OpenAI {
  return new OpenAI({
    apiKey: "sandbox",
    baseURL: "http://relay/v1",
    maxRetries: 0,
    fetch: (input: string | URL | Request, init?: RequestInit) =>
      fetch(input, { ...init, client: rig.client }),
  });
}

const RESPONSE = {
  model: "gpt-x-2026",
  text: "patched",
  tools: [{ name: "shell", arguments: '{"cmd":["ls"]}' }],
  usage: {
    input_tokens: 120,
    input_tokens_details: { cached_tokens: 100 },
    output_tokens: 30,
    output_tokens_details: { reasoning_tokens: 20 },
    total_tokens: 150,
  },
};

Deno.test("startRelay() serves the openai SDK's responses.create whole, metered", async () => {
  await withRelayRig("openai", () => Response.json(responsesBody(RESPONSE)), {}, async (rig) => {
    const answer = await sdkOn(rig).responses.create({ model: "m", input: "fix it" });
    assert.equal(answer.output_text, "patched");
    assert.equal(answer.usage?.input_tokens_details.cached_tokens, 100);
    assert.equal(rig.upstream.requests[0].headers.get("authorization"), `Bearer ${RIG_KEY}`);
    const [record] = rig.relay.records();
    assert.deepEqual(
      [record.server_model_id, record.usage, record.tool_calls],
      ["gpt-x-2026", { prompt_tokens: 120, completion_tokens: 30 }, 1],
    );
    assert.equal(evidenceGate(rig.relay.records()).status, "scored");
  });
});

Deno.test("startRelay() streams responses.create to the openai SDK, usage from response.completed", async () => {
  await withRelayRig("openai", () => responsesStream(RESPONSE), {}, async (rig) => {
    const stream = await sdkOn(rig).responses.create({ model: "m", input: "fix it", stream: true });
    const types: string[] = [];
    let text = "";
    let calls: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") {
        calls = event.response.output.flatMap((item) =>
          item.type === "function_call" ? [item.name] : []
        );
      }
    }
    assert.equal(types.at(-1), "response.completed");
    assert.equal(text, "patched");
    assert.deepEqual(calls, ["shell"]);
    const [record] = rig.relay.records();
    assert.deepEqual(record.usage, { prompt_tokens: 120, completion_tokens: 30 });
    assert.equal(record.tool_calls, 1);
    assert.equal(evidenceGate(rig.relay.records()).status, "scored");
  });
});

Deno.test("startRelay() refuses a Responses call over the token cap with an error the openai SDK reads", async () => {
  await withRelayRig(
    "openai",
    () => Response.json(responsesBody(RESPONSE)),
    // The body alone is bound at more than the cap: not one output token is left.
    { tokenCap: 20 },
    async (rig) => {
      const refused = await sdkOn(rig).responses.create({
        model: "m",
        input: "fix it",
        max_output_tokens: 500,
        stream: true,
      }).then(() => null, (error: unknown) => error);
      assert.ok(refused instanceof OpenAI.APIError, String(refused));
      assert.deepEqual([refused.status, refused.code], [403, "token_cap"]);
      assert.equal(rig.upstream.requests.length, 0);
    },
  );
});

Deno.test("startRelay() ends a failed Responses stream with an error event the openai SDK throws", async () => {
  const whole = await responsesStream(RESPONSE).text();
  const failing = () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(whole.slice(0, whole.indexOf("\n\n") + 2)));
          setTimeout(() => controller.error(new Error("connection reset")), 20);
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  await withRelayRig("openai", failing, {}, async (rig) => {
    const stream = await sdkOn(rig).responses.create({ model: "m", input: "x", stream: true });
    const thrown = await (async () => {
      for await (const _ of stream) { /* read to the end */ }
    })().then(() => null, (error: unknown) => error);
    assert.ok(thrown instanceof OpenAI.APIError, String(thrown));
    assert.equal(thrown.code, "provider_fault");
    assert.equal(rig.relay.records()[0].fault, "provider_fault");
  });
});
