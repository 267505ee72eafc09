import assert from "node:assert/strict";
import { reassembleStream } from "./reassemble_stream.ts";
import { SilenceTimer } from "./forward_call.ts";
import { callRecord } from "./_call_record_for_test.ts";
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import { openaiChat } from "./api/openai_chat.ts";

const KEY = "sk-the-upstream-key";

const chunk = (fields: Record<string, unknown>) => `data: ${JSON.stringify(fields)}\n\n`;

/** A chat stream whose content carries the key, split across two deltas. */
const STREAM = [
  chunk({
    id: "c1",
    model: "m-1",
    choices: [{ index: 0, delta: { role: "assistant", content: "" } }],
  }),
  chunk({ id: "c1", model: "m-1", choices: [{ index: 0, delta: { content: "key sk-the-" } }] }),
  chunk({ id: "c1", model: "m-1", choices: [{ index: 0, delta: { content: "upstream-key" } }] }),
  chunk({ id: "c1", model: "m-1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
  chunk({ id: "c1", model: "m-1", choices: [], usage: { prompt_tokens: 7, completion_tokens: 3 } }),
  "data: [DONE]\n\n",
];

/** A body sending `parts`, then failing with `error` when given. */
function body(parts: string[], error?: Error): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < parts.length) controller.enqueue(encoder.encode(parts[next++]));
      else if (error !== undefined) controller.error(error);
      else controller.close();
    },
  });
}

async function reassemble(stream: ReadableStream<Uint8Array>, closing = new AbortController()) {
  const record: RelayCallRecord = callRecord(1, {
    status: 502,
    upstream_status: null,
    server_model_id: null,
    usage: null,
  });
  const finished: RelayCallRecord[] = [];
  const silence = new SilenceTimer(10_000);
  const answer = await reassembleStream(
    new Response(stream, {
      headers: { "content-type": "text/event-stream", "x-request-id": "req_1" },
    }),
    {
      record,
      path: "/v1/chat/completions",
      started: performance.now(),
      reader: openaiChat.streamReader({ model: "m" }),
      api: openaiChat,
      key: KEY,
      silence,
      timeoutMs: 10_000,
      closing: closing.signal,
      onFinished: (done) => finished.push(done),
    },
  );
  silence.stop();
  assert.equal(finished.length, 1);
  return { answer, record };
}

Deno.test("reassembleStream() answers a complete stream whole, the key redacted", async () => {
  const { answer, record } = await reassemble(body(STREAM));
  assert.equal(answer.response.status, 200);
  assert.equal(answer.response.headers.get("content-type"), "application/json");
  assert.equal(answer.response.headers.get("x-request-id"), "req_1");
  // The key arrived split over two deltas: only the reassembled text shows it whole, and there it
  // is redacted.
  assert.deepEqual(JSON.parse(answer.text), {
    id: "c1",
    object: "chat.completion",
    model: "m-1",
    choices: [{
      index: 0,
      message: { role: "assistant", content: "key [redacted]" },
      finish_reason: "stop",
    }],
    usage: { prompt_tokens: 7, completion_tokens: 3 },
  });
  assert.equal(await answer.response.text(), answer.text);
  assert.deepEqual(
    [record.status, record.upstream_status, record.reassembled, record.usage, record.fault],
    [200, 200, true, { prompt_tokens: 7, completion_tokens: 3 }, null],
  );
  assert.equal(typeof record.first_byte_ms, "number");
  assert.equal(record.detail, "");
});

Deno.test("reassembleStream() makes a stream that fails midway a provider fault, spend unknown", async () => {
  const { answer, record } = await reassemble(
    body(STREAM.slice(0, 2), new Error("connection reset")),
  );
  assert.equal(answer.response.status, 502);
  const message = "Upstream stream failed after 2 events: connection reset";
  assert.deepEqual(JSON.parse(answer.text), {
    error: { message, type: "upstream_error", param: null, code: "provider_fault" },
  });
  assert.deepEqual(
    [record.status, record.fault, record.spend_unknown, record.server_model_id, record.detail],
    [502, "provider_fault", true, "m-1", message],
  );
});

Deno.test("reassembleStream() keeps the usage of a stream that ends without [DONE], and faults it", async () => {
  const { answer, record } = await reassemble(body(STREAM.slice(0, 5)));
  assert.equal(answer.response.status, 502);
  assert.deepEqual(record.usage, { prompt_tokens: 7, completion_tokens: 3 });
  // Its usage came, so its spend is known.
  assert.deepEqual([record.fault, record.spend_unknown], ["provider_fault", undefined]);
  assert.equal(
    record.detail,
    "The upstream stream ended after 5 events, before its last event: no whole answer to give; " +
      "Upstream stream ended without [DONE]",
  );
});

Deno.test("reassembleStream() records a stream cut off by the relay's close as aborted, 503", async () => {
  const closing = new AbortController();
  closing.abort();
  const { answer, record } = await reassemble(body([STREAM[0]], new Error("aborted")), closing);
  assert.equal(answer.response.status, 503);
  assert.equal(JSON.parse(answer.text).error.code, "aborted");
  assert.deepEqual([record.status, record.fault, record.spend_unknown], [503, "aborted", true]);
  assert.equal(record.detail, "Aborted: the relay closed after 1 event of the upstream stream");
});
