import assert from "node:assert/strict";
import { startScriptedProvider } from "./scripted_provider.ts";
import type { ProviderScriptInput } from "../../analysis/schema/provider_script.ts";

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

Deno.test("startScriptedProvider() refuses unknown paths", async () => {
  await withProvider({}, async (baseUrl) => {
    const unknown = await fetch(`${baseUrl}/embeddings`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}` },
      body: "{}",
    });
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  });
});

Deno.test("startScriptedProvider() streams a reply as chunks, with usage last when asked", async () => {
  await withProvider({ model: "m-1", default: { content: "one two  three" } }, async (baseUrl) => {
    const whole = await chat(baseUrl, "0123456789");
    const streamed = await streamChat(baseUrl, "0123456789", { include_usage: true });
    assert.equal(streamed.status, 200);
    assert.equal(streamed.contentType, "text/event-stream");
    const head = { id: "chatcmpl-scripted-2", object: "chat.completion.chunk", created: 0 };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      ...head,
      model: "m-1",
      choices: [{ index: 0, delta, finish_reason: finish }],
      usage: null,
    });
    // Content split after each run of whitespace; usage ceil(10/4) = 3 and ceil(14/4) = 4,
    // the whole reply's usage.
    assert.deepEqual(streamed.events, [
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "one " }),
      chunk({ content: "two  " }),
      chunk({ content: "three" }),
      chunk({}, "stop"),
      {
        ...head,
        model: "m-1",
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      },
      "[DONE]",
    ]);
    assert.deepEqual(whole.body.usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    // Seven events, each ended by a blank line.
    assert.equal(streamed.raw.split("\n\n").length, 8);
    assert.equal(streamed.raw.endsWith("data: [DONE]\n\n"), true);
  });
});

Deno.test("startScriptedProvider() streams no usage chunk unless asked, nor for a no-usage reply", async () => {
  await withProvider({
    rules: [{ equals: "no usage", reply: { content: "a b", usage: null } }],
    default: { content: "a b" },
  }, async (baseUrl) => {
    for (
      const [content, options] of [
        ["hi", undefined],
        ["hi", { include_usage: false }],
        ["no usage", { include_usage: true }],
      ] as const
    ) {
      const { events } = await streamChat(baseUrl, content, options);
      assert.equal(events.at(-1), "[DONE]");
      const chunks = events.slice(0, -1) as Array<Record<string, unknown>>;
      // First delta, "a ", "b", the finish chunk: no chunk with empty choices.
      assert.equal(chunks.length, 4);
      assert.equal(chunks.every((c) => (c.choices as unknown[]).length === 1), true);
      assert.equal(chunks.every((c) => c.usage === undefined || c.usage === null), true);
    }
  });
});

Deno.test("startScriptedProvider() streams tool calls as deltas", async () => {
  await withProvider({
    default: { tool_calls: [{ name: "shell", arguments: '{"cmd":"ls"}' }, { name: "done" }] },
  }, async (baseUrl) => {
    const { events } = await streamChat(baseUrl, "x");
    const deltas = (events.slice(0, -1) as Array<{ choices: Array<Record<string, unknown>> }>)
      .map((c) => [c.choices[0].delta, c.choices[0].finish_reason]);
    assert.deepEqual(deltas, [
      [{ role: "assistant", content: "" }, null],
      [{
        tool_calls: [{
          index: 0,
          id: "call_1_0",
          type: "function",
          function: { name: "shell", arguments: "" },
        }],
      }, null],
      [{ tool_calls: [{ index: 0, function: { arguments: '{"cmd":"ls"}' } }] }, null],
      [{
        tool_calls: [{
          index: 1,
          id: "call_1_1",
          type: "function",
          function: { name: "done", arguments: "" },
        }],
      }, null],
      [{ tool_calls: [{ index: 1, function: { arguments: "{}" } }] }, null],
      [{}, "tool_calls"],
    ]);
  });
});

Deno.test("startScriptedProvider() answers a streamed request's 429 and 500 with whole JSON", async () => {
  await withProvider({
    calls: [
      { call: 1, reply: { status: 429, retry_after_s: 2 } },
      { call: 2, reply: { status: 500 } },
    ],
  }, async (baseUrl) => {
    for (const [status, type] of [[429, "rate_limit_error"], [500, "server_error"]] as const) {
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ stream: true, messages: [{ role: "user", content: "x" }] }),
      });
      assert.equal(response.status, status);
      assert.match(response.headers.get("content-type")!, /^application\/json/);
      assert.equal((await response.json()).error.type, type);
    }
  });
});

Deno.test("startScriptedProvider() awaits beforeStreamEvent before each streamed event", async () => {
  const seen: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const provider = await startScriptedProvider({ default: { content: "a b" } }, {
    apiKey: KEY,
    beforeStreamEvent: async (call, event) => {
      seen.push(`${call}:${event}`);
      if (event === 1) await held;
    },
  });
  try {
    const response = await fetch(`${provider.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ stream: true, messages: [] }),
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    // The provider holds event 1, so the first read can only hold event 0.
    const first = await reader.read();
    assert.match(first.value!, /^data: \{.*"role":"assistant".*\}\n\n$/);
    assert.equal(seen.includes("1:2"), false);
    release();
    let rest = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += value;
    }
    assert.equal(rest.endsWith("data: [DONE]\n\n"), true);
    // Events: role, "a ", "b", finish, [DONE] (no usage chunk: not asked for).
    assert.deepEqual(seen, ["1:0", "1:1", "1:2", "1:3", "1:4"]);
  } finally {
    await provider.close();
  }
});

Deno.test("startScriptedProvider() names the bad field of a script", async () => {
  await assert.rejects(
    () => startScriptedProvider({ default: { status: 99 } }, { apiKey: KEY }),
    /^Error: Invalid provider script: "default.status" /,
  );
});

/** POSTs a streamed chat completion and parses its `data:` events. */
async function streamChat(
  baseUrl: string,
  content: string,
  streamOptions?: Record<string, unknown>,
): Promise<{ status: number; contentType: string | null; raw: string; events: unknown[] }> {
  const body: Record<string, unknown> = {
    model: "any",
    stream: true,
    messages: [{ role: "user", content }],
  };
  if (streamOptions !== undefined) body.stream_options = streamOptions;
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const raw = await response.text();
  const events = raw.split("\n\n").filter((event) => event !== "").map((event) => {
    assert.equal(event.startsWith("data: "), true);
    const data = event.slice("data: ".length);
    return data === "[DONE]" ? data : JSON.parse(data);
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    raw,
    events,
  };
}

function messageOf(answer: { body: Record<string, unknown> }): unknown {
  return (answer.body.choices as Array<{ message: { content: unknown } }>)[0].message.content;
}
