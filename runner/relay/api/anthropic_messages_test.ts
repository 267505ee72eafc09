import assert from "node:assert/strict";
import { anthropicMessages } from "./anthropic_messages.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import { eventsOf, renderings, REPLIES } from "./_scripted_renderings_for_test.ts";

const event = (data: unknown): SseEvent => ({ raw: "", data: JSON.stringify(data) });

Deno.test("anthropicMessages.wholeEvidence() counts cache writes and reads as prompt tokens", () => {
  const evidence = anthropicMessages.wholeEvidence({
    model: "claude-sonnet-4-5",
    content: [
      { type: "text", text: "Running it." },
      { type: "tool_use", id: "toolu_1", name: "bash", input: { cmd: "ls" } },
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
      { type: "tool_use", id: "toolu_2", name: "read", input: {} },
    ],
    usage: {
      input_tokens: 12,
      output_tokens: 80,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 30000,
      service_tier: "standard",
    },
  });
  assert.deepEqual(evidence, {
    model: "claude-sonnet-4-5",
    // 12 + 2000 + 30000: all billed input
    usage: { prompt_tokens: 32012, completion_tokens: 80 },
    usageDetail: {
      input_tokens: 12,
      output_tokens: 80,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 30000,
    },
    toolCalls: 2,
  });
});

Deno.test("anthropicMessages.wholeEvidence() treats null cache counts as 0", () => {
  const evidence = anthropicMessages.wholeEvidence({
    model: "m",
    content: [],
    usage: {
      input_tokens: 7,
      output_tokens: 3,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
    },
  });
  assert.deepEqual(evidence.usage, { prompt_tokens: 7, completion_tokens: 3 });
  assert.deepEqual(evidence.usageDetail, { input_tokens: 7, output_tokens: 3 });
  assert.equal(anthropicMessages.wholeEvidence({ usage: { input_tokens: 7 } }).usage, null);
});

Deno.test("anthropicMessages.streamReader() merges message_delta usage over message_start", () => {
  const reader = anthropicMessages.streamReader({ stream: true });
  reader.add(event({
    type: "message_start",
    message: {
      model: "claude-x",
      content: [],
      usage: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 100 },
    },
  }));
  // before message_delta the output count is not final: no usage yet
  assert.equal(reader.evidence().usage, null);
  reader.add(event({
    type: "content_block_start",
    index: 0,
    content_block: { type: "tool_use", id: "toolu_1", name: "bash", input: {} },
  }));
  reader.add(event({ type: "ping" }));
  reader.add(event({
    type: "content_block_delta",
    index: 0,
    delta: { type: "input_json_delta", partial_json: "{}" },
  }));
  reader.add(event({ type: "content_block_stop", index: 0 }));
  reader.add(event({
    type: "message_delta",
    delta: { stop_reason: "tool_use" },
    usage: { output_tokens: 42 },
  }));
  assert.deepEqual(reader.add(event({ type: "message_stop" })), { pass: true, end: true });
  assert.deepEqual(reader.evidence(), {
    model: "claude-x",
    usage: { prompt_tokens: 125, completion_tokens: 42 },
    usageDetail: { input_tokens: 25, output_tokens: 42, cache_read_input_tokens: 100 },
    toolCalls: 1,
  });
  assert.deepEqual(reader.notes(true), []);
});

Deno.test("anthropicMessages.streamReader() reports an error event and a stream without message_stop", () => {
  const reader = anthropicMessages.streamReader({});
  reader.add(event({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }));
  assert.equal(reader.upstreamError(), "Overloaded");
  assert.deepEqual(reader.notes(false), ["Upstream stream ended without message_stop"]);
});

Deno.test("anthropicMessages caps max_tokens and words stream errors as the SDK reads them", () => {
  assert.deepEqual(
    [anthropicMessages.outputCapFields, anthropicMessages.defaultOutputCapField],
    [["max_tokens"], "max_tokens"],
  );
  const streamed = { stream: true };
  assert.equal(anthropicMessages.streamedCall("/v1/messages", streamed).body, streamed);
  assert.deepEqual(anthropicMessages.streamedCall("/v1/messages?beta=true", {}), {
    target: "/v1/messages?beta=true",
    body: streamed,
  });
  assert.equal(
    anthropicMessages.streamErrorEvent({ message: "cut", type: "upstream_error", code: "aborted" }),
    'event: error\ndata: {"type":"error","error":{"type":"upstream_error","message":"cut",' +
      '"details":{"error_code":"aborted"}}}\n\n',
  );
});

// Reassembly (issue 21): whole and streamed renderings of one scripted reply (scripted_reply_parts.ts).
for (const [name, reply] of Object.entries(REPLIES)) {
  Deno.test(`anthropicMessages.wholeFromEvents() rebuilds the scripted message: ${name}`, () => {
    const { whole, events } = renderings("/v1/messages", reply);
    assert.deepEqual(anthropicMessages.wholeFromEvents(events, "/v1/messages"), whole);
  });
}

/** An event stream of `[name, data]` pairs, each `data` with its `type`. */
const stream = (events: Array<Record<string, unknown>>) =>
  eventsOf(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""));

Deno.test("anthropicMessages.wholeFromEvents() builds a message as the streaming reference documents it", () => {
  // The event sequence of the Messages API reference's "Streaming messages" (its tool use
  // example): ping, a text block, a tool_use block whose input arrives as JSON parts (the first
  // one ""), message_delta with the stop reason and the final output_tokens.
  const events = stream([
    {
      type: "message_start",
      message: {
        id: "msg_01",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 472,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 2,
          service_tier: "standard",
        },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "ping" },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Let me " } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "look." } },
    { type: "content_block_stop", index: 0 },
    {
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "toolu_01", name: "get_weather", input: {} },
    },
    {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: "" },
    },
    {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: '{"location": "San Fra' },
    },
    {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: 'ncisco, CA", "unit": "f"}' },
    },
    { type: "content_block_stop", index: 1 },
    {
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 89, input_tokens: null },
    },
    { type: "message_stop" },
  ]);
  assert.deepEqual(anthropicMessages.wholeFromEvents(events, "/v1/messages"), {
    id: "msg_01",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [
      { type: "text", text: "Let me look." },
      {
        type: "tool_use",
        id: "toolu_01",
        name: "get_weather",
        input: { location: "San Francisco, CA", unit: "f" },
      },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    // message_delta's null input_tokens does not replace message_start's count
    usage: {
      input_tokens: 472,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 89,
      service_tier: "standard",
    },
  });
});

Deno.test("anthropicMessages.wholeFromEvents() keeps thinking with its signature, and citations", () => {
  const events = stream([
    {
      type: "message_start",
      message: {
        id: "m",
        type: "message",
        role: "assistant",
        content: [],
        usage: { input_tokens: 5 },
      },
    },
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    },
    {
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "2 + 2 " },
    },
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "is 4." } },
    {
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "EqQB" },
    },
    { type: "content_block_stop", index: 0 },
    {
      type: "content_block_start",
      index: 1,
      content_block: { type: "text", text: "", citations: null },
    },
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "4" } },
    {
      type: "content_block_delta",
      index: 1,
      delta: { type: "citations_delta", citation: { type: "char_location", cited_text: "4" } },
    },
    { type: "content_block_stop", index: 1 },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } },
    { type: "message_stop" },
  ]);
  assert.deepEqual(anthropicMessages.wholeFromEvents(events, "/v1/messages"), {
    id: "m",
    type: "message",
    role: "assistant",
    content: [
      { type: "thinking", thinking: "2 + 2 is 4.", signature: "EqQB" },
      { type: "text", text: "4", citations: [{ type: "char_location", cited_text: "4" }] },
    ],
    stop_reason: "end_turn",
    usage: { input_tokens: 5, output_tokens: 9 },
  });
});

Deno.test("anthropicMessages.wholeFromEvents() gives null without message_start, on error, on bad tool JSON", () => {
  const start = {
    type: "message_start",
    message: { id: "m", type: "message", role: "assistant", content: [] },
  };
  assert.equal(
    anthropicMessages.wholeFromEvents(stream([{ type: "message_stop" }]), "/v1/messages"),
    null,
  );
  assert.equal(
    anthropicMessages.wholeFromEvents(
      stream([start, { type: "error", error: { type: "overloaded_error", message: "busy" } }]),
      "/v1/messages",
    ),
    null,
  );
  const badJson = stream([
    start,
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "t", name: "x", input: {} },
    },
    {
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"a":' },
    },
    { type: "content_block_stop", index: 0 },
    { type: "message_stop" },
  ]);
  assert.equal(anthropicMessages.wholeFromEvents(badJson, "/v1/messages"), null);
});
