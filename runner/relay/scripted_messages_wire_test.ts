import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { post, sseEvents, TEST_KEY, withProvider } from "./_scripted_provider_for_test.ts";

const HEADERS = { "x-api-key": TEST_KEY, "anthropic-version": "2023-06-01" };
const SCRIPT = {
  model: "m-1",
  default: { content: "a b", tool_calls: [{ name: "shell", arguments: '{"cmd":"ls"}' }] },
};
const REQUEST = {
  model: "any",
  max_tokens: 64,
  messages: [{ role: "user", content: "0123456789" }],
};
const TOOL_USE = { type: "tool_use", id: "toolu_1_0", name: "shell", input: { cmd: "ls" } };
// Prompt "0123456789" is 10 bytes -> ceil(10/4) = 3; reply "a b" + "shell" + '{"cmd":"ls"}'
// is 3 + 5 + 12 = 20 bytes -> 5.
const USAGE = {
  input_tokens: 3,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: 5,
};

Deno.test("messagesWire answers POST /v1/messages with text and tool_use blocks", async () => {
  await withProvider(SCRIPT, async (provider) => {
    const answer = await post(provider.baseUrl, "messages", REQUEST, HEADERS);
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.text), {
      id: "msg_scripted_1",
      type: "message",
      role: "assistant",
      model: "m-1",
      content: [{ type: "text", text: "a b" }, TOOL_USE],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: USAGE,
    });
    const [request] = provider.requests();
    assert.deepEqual(
      [request.call, request.api, request.turn, request.xApiKey, request.authorization],
      [1, "messages", 0, TEST_KEY, null],
    );
  });
});

Deno.test("messagesWire streams the Messages API's named events", async () => {
  await withProvider(SCRIPT, async (provider) => {
    const answer = await post(provider.baseUrl, "messages", { ...REQUEST, stream: true }, HEADERS);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-type"), "text/event-stream");
    assert.equal(
      answer.text.startsWith('event: message_start\ndata: {"type":"message_start","message":{'),
      true,
    );
    const expected: Record<string, unknown>[] = [
      {
        type: "message_start",
        message: {
          id: "msg_scripted_1",
          type: "message",
          role: "assistant",
          model: "m-1",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...USAGE, output_tokens: 1 },
        },
      },
      { type: "ping" },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "a " } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "b" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { ...TOOL_USE, input: {} } },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: '{"cmd":"ls"}' },
      },
      { type: "content_block_stop", index: 1 },
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
      { type: "message_stop" },
    ];
    assert.deepEqual(
      sseEvents(answer.text),
      expected.map((data) => ({ event: data.type, data })),
    );
  });
});

Deno.test("messagesWire counts cache reads and writes apart from input_tokens, and can leave out usage", async () => {
  await withProvider({
    rules: [
      {
        contains: "cached",
        reply: {
          content: "x",
          usage: {
            prompt_tokens: 100,
            completion_tokens: 20,
            cached_tokens: 60,
            cache_creation_tokens: 10,
          },
        },
      },
      { contains: "none", reply: { content: "x", usage: null } },
    ],
  }, async (provider) => {
    const message = (content: string) => ({ ...REQUEST, messages: [{ role: "user", content }] });
    const cached = JSON.parse(
      (await post(provider.baseUrl, "messages", message("cached"), HEADERS)).text,
    );
    // 100 prompt tokens = 30 uncached + 10 written + 60 read.
    assert.deepEqual(cached.usage, {
      input_tokens: 30,
      cache_creation_input_tokens: 10,
      cache_read_input_tokens: 60,
      output_tokens: 20,
    });
    const streamed = sseEvents(
      (await post(provider.baseUrl, "messages", { ...message("none"), stream: true }, HEADERS))
        .text,
    );
    const start = streamed[0].data as { message: Record<string, unknown> };
    assert.equal("usage" in start.message, false);
    assert.deepEqual(streamed.at(-2)!.data, {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
    });
  });
});

Deno.test("messagesWire takes the key from x-api-key or a bearer token, and requires anthropic-version", async () => {
  await withProvider({ calls: [{ call: 3, reply: { status: 529 } }] }, async (provider) => {
    const version = { "anthropic-version": "2023-06-01" };
    const bearer = await post(provider.baseUrl, "messages", REQUEST, {
      authorization: `Bearer ${TEST_KEY}`,
      ...version,
    });
    assert.equal(bearer.status, 200);
    for (
      const headers of [
        { "x-api-key": "guessed-key", ...version },
        { authorization: "Bearer guessed-key", ...version },
        version,
      ]
    ) {
      const refused = await post(provider.baseUrl, "messages", REQUEST, headers);
      assert.equal(refused.status, 401);
      assert.equal(refused.text.includes("guessed-key"), false);
      assert.deepEqual(JSON.parse(refused.text), {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      });
    }
    const unversioned = await post(provider.baseUrl, "messages", REQUEST, {
      "x-api-key": TEST_KEY,
    });
    assert.equal(unversioned.status, 400);
    assert.deepEqual(JSON.parse(unversioned.text), {
      type: "error",
      error: { type: "invalid_request_error", message: "anthropic-version: header is required" },
    });
    const overloaded = await post(provider.baseUrl, "messages", REQUEST, HEADERS);
    assert.equal(overloaded.status, 529);
    assert.deepEqual(JSON.parse(overloaded.text), {
      type: "error",
      error: { type: "overloaded_error", message: "Scripted error: status 529" },
    });
    assert.deepEqual(provider.requests().map((r) => [r.call, r.status]), [
      [1, 200],
      [null, 401],
      [null, 401],
      [null, 401],
      [2, 400],
      [3, 529],
    ]);
  });
});

Deno.test("messagesWire parses in the @anthropic-ai/sdk: create, stream: true and messages.stream", async () => {
  await withProvider(SCRIPT, async (provider) => {
    // @anthropic-ai/sdk 1.10.0 sends an apiKey as "Authorization: Bearer" (src/client.ts
    // apiKeyAuth); x-api-key is checked by the fetch tests above.
    const sdk = new Anthropic({
      apiKey: TEST_KEY,
      baseURL: provider.baseUrl.slice(0, -"/v1".length),
      maxRetries: 0,
    });
    const params = {
      model: "any",
      max_tokens: 64,
      messages: [{ role: "user" as const, content: "0123456789" }],
    };
    const whole = await sdk.messages.create(params);
    assert.equal(whole.stop_reason, "tool_use");
    assert.deepEqual(whole.content.map((block) => block.type), ["text", "tool_use"]);
    assert.equal(whole.usage.input_tokens, 3);

    const types: string[] = [];
    for await (const event of await sdk.messages.create({ ...params, stream: true })) {
      types.push(event.type);
    }
    assert.deepEqual(types, [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);

    const final = await sdk.messages.stream(params).finalMessage();
    assert.equal(final.stop_reason, "tool_use");
    const [text, tool] = final.content;
    assert.equal(text.type === "text" && text.text, "a b");
    assert.deepEqual(tool.type === "tool_use" && [tool.id, tool.name, tool.input], [
      "toolu_3_0",
      "shell",
      { cmd: "ls" },
    ]);
    assert.equal(final.usage.input_tokens, 3);
    const { authorization, xApiKey, path } = provider.requests()[0];
    assert.deepEqual([authorization, xApiKey, path], [`Bearer ${TEST_KEY}`, null, "/v1/messages"]);
    assert.equal(final.usage.output_tokens, 5);
  });
});

Deno.test("messagesWire echoes the x-api-key it received for echo_authorization, else the bearer token", async () => {
  await withProvider({ default: { echo_authorization: true } }, async (provider) => {
    const text = async (headers: Record<string, string>) =>
      JSON.parse((await post(provider.baseUrl, "messages", REQUEST, headers)).text).content[0].text;
    assert.equal(await text(HEADERS), TEST_KEY);
    assert.equal(
      await text({ authorization: `Bearer ${TEST_KEY}`, "anthropic-version": "2023-06-01" }),
      `Bearer ${TEST_KEY}`,
    );
  });
});
