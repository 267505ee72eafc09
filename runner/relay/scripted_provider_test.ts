import assert from "node:assert/strict";
import { startScriptedProvider } from "./scripted_provider.ts";
import type { ProviderScriptInput } from "./provider_script.ts";

const KEY = "sk-upstream-test";

async function chat(
  baseUrl: string,
  content: string,
  key = KEY,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "any", messages: [{ role: "user", content }] }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function withProvider(
  script: ProviderScriptInput,
  run: (baseUrl: string, requests: () => unknown[]) => Promise<void>,
): Promise<void> {
  const provider = await startScriptedProvider(script, { apiKey: KEY });
  try {
    await run(provider.baseUrl, provider.requests);
  } finally {
    await provider.close();
  }
}

Deno.test("startScriptedProvider() answers the first matching rule, exact or substring", async () => {
  await withProvider({
    rules: [
      { equals: "ping", reply: { content: "exact pong" } },
      { contains: "ping", reply: { content: "substring pong" } },
      { contains: "ing", reply: { content: "never reached for ping" } },
    ],
    default: { content: "fallback" },
  }, async (baseUrl, requests) => {
    assert.equal(messageOf(await chat(baseUrl, "ping")), "exact pong");
    assert.equal(messageOf(await chat(baseUrl, "a ping b")), "substring pong");
    assert.equal(messageOf(await chat(baseUrl, "sing")), "never reached for ping");
    assert.equal(messageOf(await chat(baseUrl, "other")), "fallback");
    assert.deepEqual(
      requests().map((r) => (r as { matched: string }).matched),
      ["rule 0", "rule 1", "rule 2", "default"],
    );
  });
});

Deno.test("startScriptedProvider() matches the last user message only", async () => {
  await withProvider(
    { rules: [{ contains: "old", reply: { content: "matched old" } }] },
    async (baseUrl) => {
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}` },
        body: JSON.stringify({
          messages: [
            { role: "user", content: "old" },
            { role: "assistant", content: "old" },
            { role: "user", content: "new" },
          ],
        }),
      });
      const body = await response.json();
      assert.equal(body.choices[0].message.content, "");
    },
  );
});

Deno.test("startScriptedProvider() sends deterministic bodies with derived usage", async () => {
  await withProvider({ model: "m-1", default: { content: "abcdefgh" } }, async (baseUrl) => {
    const { status, body } = await chat(baseUrl, "0123456789");
    assert.equal(status, 200);
    // Prompt "0123456789" is 10 bytes -> ceil(10/4) = 3; "abcdefgh" is 8 bytes -> 2.
    assert.deepEqual(body, {
      id: "chatcmpl-scripted-1",
      object: "chat.completion",
      created: 0,
      model: "m-1",
      choices: [{
        index: 0,
        message: { role: "assistant", content: "abcdefgh" },
        finish_reason: "stop",
      }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });
});

Deno.test("startScriptedProvider() can leave out usage or model, or give usage", async () => {
  await withProvider({
    rules: [
      { equals: "no usage", reply: { usage: null } },
      { equals: "no model", reply: { model: null } },
      { equals: "given", reply: { usage: { prompt_tokens: 100, completion_tokens: 7 } } },
    ],
  }, async (baseUrl) => {
    const noUsage = await chat(baseUrl, "no usage");
    assert.equal("usage" in noUsage.body, false);
    assert.equal(noUsage.body.model, "scripted-model-1");
    const noModel = await chat(baseUrl, "no model");
    assert.equal("model" in noModel.body, false);
    assert.equal("usage" in noModel.body, true);
    const given = await chat(baseUrl, "given");
    assert.deepEqual(given.body.usage, {
      prompt_tokens: 100,
      completion_tokens: 7,
      total_tokens: 107,
    });
  });
});

Deno.test("startScriptedProvider() returns 429 with Retry-After and 500 on the Nth call", async () => {
  await withProvider({
    calls: [
      { call: 2, reply: { status: 429, retry_after_s: 7 } },
      { call: 3, reply: { status: 500 } },
    ],
    default: { content: "fine" },
  }, async (baseUrl) => {
    assert.equal((await chat(baseUrl, "a")).status, 200);
    const limited = await chat(baseUrl, "a");
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "7");
    assert.equal((limited.body.error as { type: string }).type, "rate_limit_error");
    const fault = await chat(baseUrl, "a");
    assert.equal(fault.status, 500);
    assert.equal((fault.body.error as { type: string }).type, "server_error");
    assert.equal((await chat(baseUrl, "a")).status, 200);
  });
});

Deno.test("startScriptedProvider() asks for tool calls", async () => {
  await withProvider({
    default: { tool_calls: [{ name: "shell", arguments: '{"cmd":"ls"}' }] },
  }, async (baseUrl) => {
    const { body } = await chat(baseUrl, "x");
    const choice = (body.choices as Array<Record<string, unknown>>)[0];
    assert.equal(choice.finish_reason, "tool_calls");
    assert.deepEqual(choice.message, {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_1_0",
        type: "function",
        function: { name: "shell", arguments: '{"cmd":"ls"}' },
      }],
    });
  });
});

Deno.test("startScriptedProvider() refuses a wrong key without echoing it, and records it", async () => {
  await withProvider({}, async (baseUrl, requests) => {
    const denied = await chat(baseUrl, "x", "guessed-key");
    assert.equal(denied.status, 401);
    assert.equal(JSON.stringify(denied.body).includes("guessed-key"), false);
    const models = await fetch(`${baseUrl}/models`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    assert.deepEqual((await models.json()).data.map((m: { id: string }) => m.id), [
      "scripted-model-1",
    ]);
    const log = requests() as Array<Record<string, unknown>>;
    assert.equal(log.length, 2);
    assert.equal(log[0].authorization, "Bearer guessed-key");
    assert.equal(log[0].status, 401);
    assert.equal(log[0].call, null);
    assert.deepEqual(log[0].body, { model: "any", messages: [{ role: "user", content: "x" }] });
    assert.equal(log[1].path, "/v1/models");
  });
});

Deno.test("startScriptedProvider() refuses streaming and unknown paths", async () => {
  await withProvider({}, async (baseUrl) => {
    const stream = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ stream: true, messages: [] }),
    });
    assert.equal(stream.status, 400);
    await stream.body?.cancel();
    const unknown = await fetch(`${baseUrl}/embeddings`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}` },
      body: "{}",
    });
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  });
});

Deno.test("startScriptedProvider() names the bad field of a script", async () => {
  await assert.rejects(
    () => startScriptedProvider({ default: { status: 99 } }, { apiKey: KEY }),
    /^Error: Invalid provider script: "default.status" /,
  );
});

function messageOf(answer: { body: Record<string, unknown> }): unknown {
  return (answer.body.choices as Array<{ message: { content: unknown } }>)[0].message.content;
}
