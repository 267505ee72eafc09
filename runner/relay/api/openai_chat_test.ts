import assert from "node:assert/strict";
import { openaiChat } from "./openai_chat.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import { eventsOf, renderings, REPLIES } from "./_scripted_renderings_for_test.ts";

const event = (data: unknown): SseEvent => ({
  raw: "",
  data: typeof data === "string" ? data : JSON.stringify(data),
});

Deno.test("openaiChat.streamedCall() asks for usage and keeps the agent's stream_options", () => {
  const target = "/v1/chat/completions";
  assert.deepEqual(
    openaiChat.streamedCall(target, { stream_options: { include_obfuscation: false } }),
    {
      target,
      body: { stream: true, stream_options: { include_obfuscation: false, include_usage: true } },
    },
  );
});

Deno.test("openaiChat.streamReader() withholds the usage chunk from an agent that did not ask", () => {
  const usageChunk = { model: "m", choices: [], usage: { prompt_tokens: 9, completion_tokens: 4 } };
  const naive = openaiChat.streamReader({ stream: true });
  assert.deepEqual(naive.add(event({ model: "m", choices: [{ delta: { content: "hi" } }] })), {
    pass: true,
    end: false,
  });
  assert.deepEqual(naive.add(event(usageChunk)), { pass: false, end: false });
  assert.deepEqual(naive.add(event("[DONE]")), { pass: true, end: true });
  assert.deepEqual(naive.evidence().usage, { prompt_tokens: 9, completion_tokens: 4 });
  const asked = openaiChat.streamReader({ stream: true, stream_options: { include_usage: true } });
  assert.equal(asked.add(event(usageChunk)).pass, true);
});

Deno.test("openaiChat.streamReader() counts distinct tool call ids per choice", () => {
  const reader = openaiChat.streamReader({});
  const delta = (id?: string) => ({
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...(id ? { id } : {}) }] } }],
  });
  for (const chunk of [delta("call_1"), delta(), delta("call_1"), delta("call_2")]) {
    reader.add(event(chunk));
  }
  assert.equal(reader.evidence().toolCalls, 2);
  assert.deepEqual(reader.notes(false), ["Upstream stream ended without [DONE]"]);
});

// Reassembly (issue 21): the scripted provider renders each reply whole and streamed from one
// source (scripted_reply_parts.ts), so the stream reassembled must be the whole body exactly.
for (const [name, reply] of Object.entries(REPLIES)) {
  Deno.test(`openaiChat.wholeFromEvents() rebuilds the scripted chat.completion: ${name}`, () => {
    const { whole, events } = renderings("/v1/chat/completions", reply, {
      stream_options: { include_usage: true },
    });
    assert.deepEqual(openaiChat.wholeFromEvents(events, "/v1/chat/completions"), whole);
  });
  Deno.test(`openaiChat.wholeFromEvents() rebuilds the scripted text_completion: ${name}`, () => {
    const { whole, events } = renderings("/v1/completions", reply, {
      stream_options: { include_usage: true },
    });
    assert.deepEqual(openaiChat.wholeFromEvents(events, "/v1/completions"), whole);
  });
}

Deno.test("openaiChat.wholeFromEvents() merges a stream shaped as the API reference documents it", () => {
  // The shape of the OpenAI API reference's "The chat completion chunk object" (and of the chunks
  // in the openai SDK's ChatCompletionStream tests): system_fingerprint, service_tier and
  // obfuscation on every chunk, refusal null and logprobs on the first delta, tool calls split
  // over deltas by index, a usage-only chunk before [DONE].
  const head = {
    id: "chatcmpl-A1",
    object: "chat.completion.chunk",
    created: 1722610517,
    model: "gpt-4o-2024-08-06",
    system_fingerprint: "fp_abc",
    service_tier: "default",
    obfuscation: "xyz",
  };
  const chunk = (choice: Record<string, unknown>) => ({
    ...head,
    choices: [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
  });
  const text = [
    chunk({
      delta: { role: "assistant", content: "", refusal: null },
      logprobs: { content: [], refusal: null },
    }),
    chunk({
      delta: { content: "Hel" },
      logprobs: { content: [{ token: "Hel", logprob: -0.1 }], refusal: null },
    }),
    chunk({ delta: { content: "lo" }, logprobs: { content: [{ token: "lo", logprob: -0.2 }] } }),
    chunk({
      delta: {
        tool_calls: [{
          index: 0,
          id: "call_x",
          type: "function",
          function: { name: "get_weather", arguments: "" },
        }],
      },
    }),
    chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] } }),
    chunk({
      delta: {
        tool_calls: [
          { index: 0, function: { arguments: '"Paris"}' } },
          { index: 1, id: "call_y", type: "function", function: { name: "time", arguments: "{}" } },
        ],
      },
    }),
    chunk({ delta: {}, finish_reason: "tool_calls" }),
    { ...head, choices: [], usage: { prompt_tokens: 17, completion_tokens: 10, total_tokens: 27 } },
  ];
  const events = eventsOf(
    [...text.map((c) => `data: ${JSON.stringify(c)}\n\n`), "data: [DONE]\n\n"].join(""),
  );
  assert.deepEqual(openaiChat.wholeFromEvents(events, "/v1/chat/completions"), {
    id: "chatcmpl-A1",
    object: "chat.completion",
    created: 1722610517,
    model: "gpt-4o-2024-08-06",
    system_fingerprint: "fp_abc",
    service_tier: "default",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: "Hello",
        refusal: null,
        tool_calls: [
          {
            id: "call_x",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
          { id: "call_y", type: "function", function: { name: "time", arguments: "{}" } },
        ],
      },
      logprobs: {
        content: [{ token: "Hel", logprob: -0.1 }, { token: "lo", logprob: -0.2 }],
        refusal: null,
      },
      finish_reason: "tool_calls",
    }],
    usage: { prompt_tokens: 17, completion_tokens: 10, total_tokens: 27 },
  });
});

Deno.test("openaiChat.wholeFromEvents() concatenates a refusal and a compatible server's reasoning", () => {
  const events = eventsOf(
    [
      {
        id: "c",
        choices: [{ index: 0, delta: { role: "assistant", content: null, refusal: "" } }],
      },
      { id: "c", choices: [{ index: 0, delta: { refusal: "I can't " } }] },
      { id: "c", choices: [{ index: 0, delta: { refusal: "help.", reasoning_content: "Hmm" } }] },
      { id: "c", choices: [{ index: 0, delta: { reasoning_content: ", no." } }] },
      { id: "c", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n",
  );
  assert.deepEqual(openaiChat.wholeFromEvents(events, "/v1/chat/completions"), {
    id: "c",
    object: "chat.completion",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: null,
        refusal: "I can't help.",
        reasoning_content: "Hmm, no.",
      },
      finish_reason: "stop",
    }],
  });
});

Deno.test("openaiChat.wholeFromEvents() gives null without chunks and for an error chunk", () => {
  assert.equal(
    openaiChat.wholeFromEvents(eventsOf("data: [DONE]\n\n"), "/v1/chat/completions"),
    null,
  );
  const failed = eventsOf(
    `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content: "a" } }] })}\n\n` +
      `data: ${JSON.stringify({ error: { message: "overloaded" } })}\n\n`,
  );
  assert.equal(openaiChat.wholeFromEvents(failed, "/v1/chat/completions"), null);
});
