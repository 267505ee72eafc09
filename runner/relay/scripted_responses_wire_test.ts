import assert from "node:assert/strict";
import OpenAI from "openai";
import { post, sseEvents, TEST_KEY, withProvider } from "./_scripted_provider_for_test.ts";

const BEARER = { authorization: `Bearer ${TEST_KEY}` };

/** The response object the provider sends for call 1 of model "m-1" to a bare request. */
function response1(status: string, output: unknown[], usage: unknown): Record<string, unknown> {
  return {
    id: "resp_scripted_1",
    object: "response",
    created_at: 0,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: "m-1",
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    temperature: 1,
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    usage,
  };
}

const MESSAGE = {
  id: "msg_scripted_1",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: "a b", annotations: [] }],
};
const FUNCTION_CALL = {
  id: "fc_scripted_1_0",
  type: "function_call",
  status: "completed",
  call_id: "call_1_0",
  name: "shell",
  arguments: '{"cmd":"ls"}',
};
// Prompt "0123456789" is 10 bytes -> ceil(10/4) = 3; reply "a b" + "shell" + '{"cmd":"ls"}'
// is 3 + 5 + 12 = 20 bytes -> 5; total 8.
const USAGE = {
  input_tokens: 3,
  input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 8,
};
const SCRIPT = {
  model: "m-1",
  default: { content: "a b", tool_calls: [{ name: "shell", arguments: '{"cmd":"ls"}' }] },
};

Deno.test("responsesWire answers POST /v1/responses with a response object", async () => {
  await withProvider(SCRIPT, async (provider) => {
    const answer = await post(provider.baseUrl, "responses", {
      model: "any",
      input: "0123456789",
    }, BEARER);
    assert.equal(answer.status, 200);
    assert.deepEqual(
      JSON.parse(answer.text),
      response1("completed", [MESSAGE, FUNCTION_CALL], USAGE),
    );
    const [request] = provider.requests();
    assert.deepEqual([request.call, request.api, request.turn, request.matched], [
      1,
      "responses",
      0,
      "default",
    ]);
  });
});

Deno.test("responsesWire streams the Responses API's typed events, usage in response.completed", async () => {
  await withProvider(SCRIPT, async (provider) => {
    const answer = await post(provider.baseUrl, "responses", {
      model: "any",
      input: "0123456789",
      stream: true,
    }, BEARER);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-type"), "text/event-stream");
    assert.equal(
      answer.text.startsWith(
        'event: response.created\ndata: {"type":"response.created","sequence_number":0,',
      ),
      true,
    );
    const inProgress = response1("in_progress", [], null);
    const at = { item_id: "msg_scripted_1", output_index: 0, content_index: 0 };
    const expected: Record<string, unknown>[] = [
      { type: "response.created", response: inProgress },
      { type: "response.in_progress", response: inProgress },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { ...MESSAGE, status: "in_progress", content: [] },
      },
      {
        type: "response.content_part.added",
        ...at,
        part: { type: "output_text", text: "", annotations: [] },
      },
      { type: "response.output_text.delta", ...at, delta: "a ", logprobs: [] },
      { type: "response.output_text.delta", ...at, delta: "b", logprobs: [] },
      { type: "response.output_text.done", ...at, text: "a b", logprobs: [] },
      {
        type: "response.content_part.done",
        ...at,
        part: { type: "output_text", text: "a b", annotations: [] },
      },
      { type: "response.output_item.done", output_index: 0, item: MESSAGE },
      {
        type: "response.output_item.added",
        output_index: 1,
        item: { ...FUNCTION_CALL, status: "in_progress", arguments: "" },
      },
      {
        type: "response.function_call_arguments.delta",
        item_id: "fc_scripted_1_0",
        output_index: 1,
        delta: '{"cmd":"ls"}',
      },
      {
        type: "response.function_call_arguments.done",
        item_id: "fc_scripted_1_0",
        output_index: 1,
        arguments: '{"cmd":"ls"}',
      },
      { type: "response.output_item.done", output_index: 1, item: FUNCTION_CALL },
      {
        type: "response.completed",
        response: response1("completed", [MESSAGE, FUNCTION_CALL], USAGE),
      },
    ];
    assert.deepEqual(
      sseEvents(answer.text),
      expected.map((event, i) => ({
        event: event.type,
        data: { ...event, sequence_number: i },
      })),
    );
  });
});

Deno.test("responsesWire gives usage details, echoes request fields, leaves out usage: null", async () => {
  await withProvider({
    rules: [
      {
        contains: "details",
        reply: {
          content: "x",
          usage: {
            prompt_tokens: 100,
            completion_tokens: 20,
            cached_tokens: 60,
            cache_creation_tokens: 10,
            reasoning_tokens: 5,
          },
        },
      },
      { contains: "none", reply: { content: "x", usage: null, model: null } },
    ],
  }, async (provider) => {
    const detailed = JSON.parse(
      (await post(provider.baseUrl, "responses", {
        input: [{ role: "user", content: [{ type: "input_text", text: "details" }] }],
        instructions: "be brief",
        max_output_tokens: 64,
        tools: [{ type: "function", name: "shell", parameters: {} }],
        tool_choice: "required",
      }, BEARER)).text,
    );
    assert.deepEqual(detailed.usage, {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 60, cache_write_tokens: 10 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 5 },
      total_tokens: 120,
    });
    assert.deepEqual(
      [detailed.instructions, detailed.max_output_tokens, detailed.tools, detailed.tool_choice],
      ["be brief", 64, [{ type: "function", name: "shell", parameters: {} }], "required"],
    );
    const streamed = sseEvents(
      (await post(provider.baseUrl, "responses", { input: "none", stream: true }, BEARER)).text,
    );
    for (const { data } of streamed) {
      const response = (data as { response?: Record<string, unknown> }).response;
      if (response !== undefined) assert.equal("usage" in response || "model" in response, false);
    }
    assert.equal(streamed.at(-1)!.event, "response.completed");
  });
});

Deno.test("responsesWire answers scripted errors and a bad key with OpenAI error bodies", async () => {
  await withProvider({
    calls: [{ call: 1, reply: { status: 429, retry_after_s: 3 } }, {
      call: 2,
      reply: { status: 500 },
    }],
  }, async (provider) => {
    const limited = await post(provider.baseUrl, "responses", { input: "x", stream: true }, BEARER);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "3");
    assert.deepEqual(JSON.parse(limited.text), {
      error: {
        message: "Scripted error: status 429",
        type: "rate_limit_error",
        param: null,
        code: null,
      },
    });
    const fault = await post(provider.baseUrl, "responses", { input: "x" }, BEARER);
    assert.equal(JSON.parse(fault.text).error.type, "server_error");
    const denied = await post(provider.baseUrl, "responses", { input: "x" }, {
      "x-api-key": TEST_KEY,
    });
    assert.equal(denied.status, 401);
    assert.equal(JSON.parse(denied.text).error.type, "invalid_request_error");
  });
});

Deno.test("responsesWire parses in the openai SDK: create, stream: true and responses.stream", async () => {
  await withProvider(SCRIPT, async (provider) => {
    const sdk = new OpenAI({ apiKey: TEST_KEY, baseURL: provider.baseUrl, maxRetries: 0 });
    const whole = await sdk.responses.create({ model: "any", input: "0123456789" });
    assert.equal(whole.output_text, "a b");
    assert.deepEqual(whole.output[1], FUNCTION_CALL);
    assert.equal(whole.usage?.output_tokens, 5);

    const types: string[] = [];
    let text = "";
    for await (
      const event of await sdk.responses.create({ model: "any", input: "0123456789", stream: true })
    ) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    assert.equal(text, "a b");
    assert.equal(types.length, 14);
    assert.equal(types.at(-1), "response.completed");

    const stream = sdk.responses.stream({ model: "any", input: "0123456789" });
    const final = await stream.finalResponse();
    assert.equal(final.output_text, "a b");
    assert.deepEqual(final.usage, USAGE);
    assert.deepEqual(final.output.map((item) => item.type), ["message", "function_call"]);
  });
});
