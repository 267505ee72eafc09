/**
 * The relay against Google's official `@google/genai` npm SDK on the Gemini
 * API, with `baseUrl` the relay (as `GOOGLE_GEMINI_BASE_URL` names the
 * sandbox's forwarder) and the scripted provider's Gemini wire upstream: a
 * whole answer, a stream with a function call, the plan's output cap and the
 * token cap's clamp, a provider feature refused, Gemini's JSON-array stream
 * and `countTokens`.
 */
import assert from "node:assert/strict";
import { ApiError, GoogleGenAI } from "@google/genai";
import { evidenceGate } from "./evidence_gate.ts";
import { type Relay, type RelayOptions, startRelay } from "./relay.ts";
import { type ScriptedProvider, startScriptedProvider } from "./scripted_provider.ts";
import type { ProviderScriptInput } from "../../analysis/schema/provider_script.ts";

const KEY = "upstream-gemini-key";
const MODEL = "gemini-2.5-flash";

interface Rig {
  provider: ScriptedProvider;
  relay: Relay;
  sdk: GoogleGenAI;
  client: Deno.HttpClient;
}

async function withGeminiRig(
  script: ProviderScriptInput,
  options: Partial<RelayOptions>,
  run: (rig: Rig) => Promise<void>,
): Promise<void> {
  const provider = await startScriptedProvider({ model: MODEL, ...script }, { apiKey: KEY });
  const dir = await Deno.makeTempDir({ prefix: "relay_gemini_test_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: provider.baseUrl,
    upstreamKey: KEY,
    upstreamKind: "gemini",
    ...options,
  });
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: relay.socketPath } });
  const sdk = new GoogleGenAI({
    apiKey: "sandbox",
    httpOptions: {
      baseUrl: "http://relay",
      apiVersion: "v1beta",
      retryOptions: { attempts: 1 },
      fetch: (input: string | URL | Request, init?: RequestInit) =>
        fetch(input, { ...init, client }),
    },
  });
  try {
    await run({ provider, relay, sdk, client });
  } finally {
    client.close();
    await relay.close();
    await provider.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const USAGE = { prompt_tokens: 40, completion_tokens: 12, cached_tokens: 10, reasoning_tokens: 5 };

Deno.test("startRelay() serves the Gemini SDK's generateContent whole, key in x-goog-api-key", async () => {
  await withGeminiRig({ default: { content: "hello there", usage: USAGE } }, {}, async (rig) => {
    const response = await rig.sdk.models.generateContent({ model: MODEL, contents: "hi" });
    assert.equal(response.text, "hello there");
    assert.deepEqual(response.usageMetadata, {
      promptTokenCount: 40,
      candidatesTokenCount: 7,
      cachedContentTokenCount: 10,
      thoughtsTokenCount: 5,
      totalTokenCount: 52,
    });
    const [seen] = rig.provider.requests();
    // forwarded as a stream, on the version of the upstream's base URL, with the relay's key only
    assert.deepEqual(
      [seen.method, seen.path, seen.googleKey, seen.authorization],
      ["POST", `/v1/models/${MODEL}:streamGenerateContent`, KEY, null],
    );
    const [record] = rig.relay.records();
    assert.deepEqual(
      [record.endpoint, record.server_model_id, record.usage, record.reassembled],
      [
        `/v1beta/models/${MODEL}:generateContent`,
        MODEL,
        // prompt 40 (the 10 cached are part of it), output 7 + 5 thinking
        { prompt_tokens: 40, completion_tokens: 12 },
        true,
      ],
    );
    assert.equal(evidenceGate(rig.relay.records()).status, "scored");
  });
});

Deno.test("startRelay() streams generateContentStream to the Gemini SDK, function calls counted", async () => {
  const script = {
    default: {
      content: "running it now",
      tool_calls: [{ name: "run_shell_command", arguments: '{"command":"ls"}' }],
    },
  };
  await withGeminiRig(script, {}, async (rig) => {
    const stream = await rig.sdk.models.generateContentStream({ model: MODEL, contents: "list" });
    let text = "";
    const calls: unknown[] = [];
    for await (const chunk of stream) {
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
        text += part.text ?? "";
        if (part.functionCall !== undefined) calls.push(part.functionCall);
      }
    }
    assert.equal(text, "running it now");
    assert.deepEqual(calls, [{
      id: "call_1_0",
      name: "run_shell_command",
      args: { command: "ls" },
    }]);
    const [record] = rig.relay.records();
    assert.deepEqual(
      [record.endpoint, record.tool_calls, record.fault, record.usage !== null],
      [`/v1beta/models/${MODEL}:streamGenerateContent`, 1, null, true],
    );
    assert.equal(rig.provider.requests()[0].path, `/v1/models/${MODEL}:streamGenerateContent`);
  });
});

Deno.test("startRelay() lowers a Gemini call's maxOutputTokens to the plan's and the token cap's", async () => {
  await withGeminiRig(
    { default: { content: "ok" } },
    { maxOutputTokens: 50, tokenCap: 2000 },
    async (rig) => {
      await rig.sdk.models.generateContent({
        model: MODEL,
        contents: "x",
        config: { maxOutputTokens: 4000, temperature: 0 },
      });
      // under the token cap the relay first asks the provider to count the prompt
      const [count, call] = rig.provider.requests();
      assert.deepEqual([count.path, count.googleKey, count.call], [
        `/v1/models/${MODEL}:countTokens`,
        KEY,
        null,
      ]);
      assert.deepEqual(count.body, {
        generateContentRequest: {
          model: `models/${MODEL}`,
          contents: [{ role: "user", parts: [{ text: "x" }] }],
        },
      });
      const sent = call.body as { generationConfig: unknown };
      assert.deepEqual(sent.generationConfig, { maxOutputTokens: 50, temperature: 0 });
      const [record] = rig.relay.records();
      // the scripted count of "x" is 1: 1 + 32 + ceil(1 / 50)
      assert.deepEqual([record.output_cap, record.prompt_bound, record.prompt_bound_source], [
        50,
        34,
        "count",
      ]);
    },
  );
  // a call asking for more output than the token cap leaves is clamped to what is left
  await withGeminiRig({ default: { content: "ok" } }, { tokenCap: 400 }, async (rig) => {
    await rig.sdk.models.generateContent({
      model: MODEL,
      contents: "x",
      config: { maxOutputTokens: 100000 },
    });
    const [record] = rig.relay.records();
    const cap =
      (rig.provider.requests()[1].body as { generationConfig: { maxOutputTokens: number } })
        .generationConfig.maxOutputTokens;
    assert.equal(record.cap_lowered, true);
    assert.equal(cap, record.output_cap);
    assert.equal(cap, 400 - record.prompt_bound!);
  });
});

Deno.test("startRelay() refuses Gemini's Google Search grounding unless the plan allows it", async () => {
  await withGeminiRig({ default: { content: "ok" } }, {}, async (rig) => {
    const refused = await rig.sdk.models.generateContent({
      model: MODEL,
      contents: "news",
      config: { tools: [{ googleSearch: {} }] },
    }).then(() => null, (error: unknown) => error);
    assert.ok(refused instanceof ApiError);
    assert.equal(refused.status, 403);
    assert.match(refused.message, /web_search\\" at tools\[0\]\.googleSearch/);
    assert.deepEqual(rig.provider.requests(), []);
    assert.equal(rig.relay.records()[0].refusal, "provider_feature");
  });
  await withGeminiRig(
    { default: { content: "ok" } },
    { allowedProviderFeatures: ["web_search"] },
    async (rig) => {
      await rig.sdk.models.generateContent({
        model: MODEL,
        contents: "news",
        config: { tools: [{ googleSearch: {} }] },
      });
      assert.deepEqual(rig.relay.records()[0].provider_features, ["web_search"]);
    },
  );
});

Deno.test("startRelay() answers a Gemini stream without alt=sse as one JSON array", async () => {
  await withGeminiRig({ default: { content: "one two three" } }, {}, async (rig) => {
    const response = await fetch(
      `http://relay/v1beta/models/${MODEL}:streamGenerateContent?key=sandbox`,
      {
        client: rig.client,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "count" }] }] }),
      },
    );
    assert.equal(response.headers.get("content-type"), "application/json");
    const chunks = await response.json();
    assert.deepEqual(
      chunks.map((chunk: { candidates: { content: { parts: { text: string }[] } }[] }) =>
        chunk.candidates[0].content.parts[0].text
      ),
      ["one ", "two ", "three"],
    );
    const [seen] = rig.provider.requests();
    assert.equal(seen.googleKey, KEY);
    const [record] = rig.relay.records();
    assert.deepEqual([record.fault, record.usage !== null], [null, true]);
  });
});

Deno.test("startRelay() forwards the Gemini SDK's countTokens, not metered, and refuses a stored file in it", async () => {
  await withGeminiRig({ default: { content: "ok" } }, { tokenCap: 100 }, async (rig) => {
    const counted = await rig.sdk.models.countTokens({ model: MODEL, contents: "0123456789ab" });
    // the scripted provider's derived count: ceil(12 bytes / 4)
    assert.equal(counted.totalTokens, 3);
    const [seen] = rig.provider.requests();
    assert.deepEqual([seen.path, seen.googleKey], [`/v1/models/${MODEL}:countTokens`, KEY]);
    assert.deepEqual([rig.relay.totals().other_requests, rig.relay.records()], [1, []]);
    const file = await rig.sdk.models.countTokens({
      model: MODEL,
      contents: [{
        role: "user",
        parts: [{
          fileData: {
            fileUri: "https://generativelanguage.googleapis.com/v1beta/files/abc",
            mimeType: "text/plain",
          },
        }],
      }],
    }).then(() => null, (error: unknown) => error);
    assert.ok(file instanceof ApiError);
    assert.equal(file.status, 403);
    assert.match(file.message, /stored_state/);
    assert.equal(rig.provider.requests().length, 1);
  });
});

Deno.test("startRelay() refuses another model and a snake_case output cap on the Gemini API", async () => {
  await withGeminiRig({ default: { content: "ok" } }, { pinnedModel: MODEL }, async (rig) => {
    const other = await rig.sdk.models.generateContent({ model: "gemini-2.5-pro", contents: "x" })
      .then(() => null, (error: unknown) => error);
    assert.ok(other instanceof ApiError);
    assert.equal(other.status, 403);
    const snake = await fetch(`http://relay/v1beta/models/${MODEL}:generateContent`, {
      client: rig.client,
      method: "POST",
      body: JSON.stringify({
        contents: [{ parts: [{ text: "x" }] }],
        generation_config: { max_output_tokens: 100000 },
      }),
    });
    assert.equal(snake.status, 400);
    assert.match((await snake.json()).error.message, /generation_config/);
    assert.deepEqual(rig.provider.requests(), []);
  });
});
