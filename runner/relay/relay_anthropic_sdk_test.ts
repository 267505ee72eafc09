/**
 * The relay against the official `@anthropic-ai/sdk` npm SDK on the
 * Messages API, with `baseURL` the relay without `/v1` (as
 * `ANTHROPIC_BASE_URL` names the sandbox's forwarder) and an inline fake
 * upstream: a whole answer, a raw stream, a tool-use turn through the SDK's
 * `messages.stream()` helper, and a cap refusal and a failed stream that
 * the SDK reads as errors.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { evidenceGate } from "./evidence_gate.ts";
import {
  type Canned,
  messagesBody,
  messagesStream,
  type RelayRig,
  RIG_KEY,
  type SeenRequest,
  withRelayRig,
} from "./_api_fakes_for_test.ts";

function sdkOn(rig: RelayRig): Anthropic {
  return new Anthropic({
    apiKey: "sandbox",
    baseURL: "http://relay",
    maxRetries: 0,
    fetch: (input: string | URL | Request, init?: RequestInit) =>
      fetch(input, { ...init, client: rig.client }),
  });
}

const USAGE = {
  input_tokens: 20,
  output_tokens: 15,
  cache_creation_input_tokens: 400,
  cache_read_input_tokens: 0,
};
const ANSWER: Canned = { model: "claude-x-2026", text: "hello", usage: USAGE };
const MESSAGES = [{ role: "user" as const, content: "0123456789" }];

Deno.test("startRelay() serves the Anthropic SDK's messages.create whole, key in x-api-key", async () => {
  await withRelayRig("anthropic", () => Response.json(messagesBody(ANSWER)), {}, async (rig) => {
    const message = await sdkOn(rig).messages.create({
      model: "m",
      max_tokens: 100,
      messages: MESSAGES,
    });
    assert.deepEqual(message.content.map((block) => block.type === "text" && block.text), [
      "hello",
    ]);
    const [seen] = rig.upstream.requests;
    assert.equal(seen.path, "/v1/messages");
    assert.equal(seen.headers.get("x-api-key"), RIG_KEY);
    // the version @anthropic-ai/sdk 1.10.0 sends, forwarded as the agent sent it
    assert.equal(seen.headers.get("anthropic-version"), "2026-10-21");
    assert.equal(seen.headers.has("authorization"), false);
    const [record] = rig.relay.records();
    assert.deepEqual(
      [record.server_model_id, record.usage, record.output_cap],
      ["claude-x-2026", { prompt_tokens: 420, completion_tokens: 15 }, 100],
    );
    assert.equal(evidenceGate(rig.relay.records()).status, "scored");
  });
});

Deno.test("startRelay() streams messages.create to the Anthropic SDK with the usage recorded", async () => {
  await withRelayRig("anthropic", () => messagesStream(ANSWER), {}, async (rig) => {
    const stream = await sdkOn(rig).messages.create({
      model: "m",
      max_tokens: 100,
      messages: MESSAGES,
      stream: true,
    });
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
        text += event.delta.text;
      }
    }
    assert.equal(text, "hello");
    assert.deepEqual(types.slice(-2), ["message_delta", "message_stop"]);
    const [record] = rig.relay.records();
    assert.deepEqual(record.usage, { prompt_tokens: 420, completion_tokens: 15 });
    assert.equal(record.detail, "");
  });
});

Deno.test("startRelay() relays a tool-use turn the Anthropic SDK's stream helper assembles", async () => {
  // first call: the model asks for a tool; second (after the tool_result): it answers
  const answer = (request: SeenRequest) => {
    const messages = request.body?.messages as Array<{ content: unknown }>;
    const last = messages.at(-1)?.content;
    const afterTool = Array.isArray(last) && last.some((block) => block.type === "tool_result");
    return messagesStream(
      afterTool ? { ...ANSWER, text: "2 files" } : {
        ...ANSWER,
        text: "Listing.",
        tools: [{ name: "bash", arguments: '{"cmd":"ls"}' }],
      },
    );
  };
  await withRelayRig("anthropic", answer, {}, async (rig) => {
    const sdk = sdkOn(rig);
    const tools = [{
      name: "bash",
      description: "Run a command",
      input_schema: { type: "object" as const, properties: { cmd: { type: "string" } } },
    }];
    const first = await sdk.messages.stream({
      model: "m",
      max_tokens: 100,
      messages: MESSAGES,
      tools,
    })
      .finalMessage();
    const use = first.content.find((block) => block.type === "tool_use");
    assert.ok(use !== undefined && use.type === "tool_use");
    assert.deepEqual([use.name, use.input, first.stop_reason], ["bash", { cmd: "ls" }, "tool_use"]);
    const second = await sdk.messages.stream({
      model: "m",
      max_tokens: 100,
      tools,
      messages: [
        ...MESSAGES,
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: use.id, content: "a\nb" }],
        },
      ],
    }).finalMessage();
    assert.deepEqual(second.content.map((block) => block.type === "text" && block.text), [
      "2 files",
    ]);
    assert.deepEqual(rig.relay.records().map((record) => record.tool_calls), [1, 0]);
    assert.equal(rig.relay.totals().tool_calls, 1);
    assert.equal(rig.relay.totals().total_tokens, 2 * (420 + 15));
  });
});

Deno.test("startRelay() refuses over the step cap with an error the Anthropic SDK reads", async () => {
  await withRelayRig(
    "anthropic",
    () => Response.json(messagesBody(ANSWER)),
    { stepCap: 1 },
    async (rig) => {
      const sdk = sdkOn(rig);
      await sdk.messages.create({ model: "m", max_tokens: 10, messages: MESSAGES });
      const refused = await sdk.messages.create({
        model: "m",
        max_tokens: 10,
        messages: MESSAGES,
        stream: true,
      }).then(() => null, (error: unknown) => error);
      assert.ok(refused instanceof Anthropic.APIError, String(refused));
      assert.deepEqual(
        [refused.status, refused.type, refused.errorCode],
        [403, "budget_exhausted", "step_cap"],
      );
      assert.equal(rig.upstream.requests.length, 1);
      assert.equal(rig.relay.stopReason(), "step_cap");
    },
  );
});

Deno.test("startRelay() ends a failed Messages stream with an error the Anthropic SDK throws", async () => {
  const first = await messagesStream(ANSWER).text();
  const failing = () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(first.slice(0, first.indexOf("\n\n") + 2)));
          setTimeout(() => controller.error(new Error("connection reset")), 20);
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  await withRelayRig("anthropic", failing, {}, async (rig) => {
    const stream = await sdkOn(rig).messages.create({
      model: "m",
      max_tokens: 10,
      messages: MESSAGES,
      stream: true,
    });
    const thrown = await (async () => {
      for await (const _ of stream) { /* read to the end */ }
    })().then(() => null, (error: unknown) => error);
    assert.ok(thrown instanceof Anthropic.APIError, String(thrown));
    assert.equal(thrown.errorCode, "provider_fault");
    assert.equal(rig.relay.records()[0].fault, "provider_fault");
  });
});
