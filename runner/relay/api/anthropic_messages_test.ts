import assert from "node:assert/strict";
import { anthropicMessages } from "./anthropic_messages.ts";
import type { SseEvent } from "../_sse_splitter.ts";

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
  assert.equal(anthropicMessages.streamedRequest({ stream: true }), null);
  assert.equal(
    anthropicMessages.streamErrorEvent({ message: "cut", type: "upstream_error", code: "aborted" }),
    'event: error\ndata: {"type":"error","error":{"type":"upstream_error","message":"cut",' +
      '"details":{"error_code":"aborted"}}}\n\n',
  );
});
