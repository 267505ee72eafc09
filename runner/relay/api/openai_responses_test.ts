import assert from "node:assert/strict";
import { openaiResponses } from "./openai_responses.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import { eventsOf, renderings, REPLIES } from "./_scripted_renderings_for_test.ts";

const event = (data: unknown): SseEvent => ({ raw: "", data: JSON.stringify(data) });

// Usage shaped as in the openai SDK's `ResponseUsage`: cached input is part of
// input_tokens, reasoning part of output_tokens.
const USAGE = {
  input_tokens: 1200,
  input_tokens_details: { cached_tokens: 1024, cache_write_tokens: 0 },
  output_tokens: 300,
  output_tokens_details: { reasoning_tokens: 256 },
  total_tokens: 1500,
};

Deno.test("openaiResponses.wholeEvidence() maps input/output tokens and keeps the details", () => {
  const evidence = openaiResponses.wholeEvidence({
    model: "gpt-5-codex",
    output: [
      { type: "reasoning", id: "rs_1" },
      { type: "function_call", id: "fc_1", call_id: "call_1", name: "shell", arguments: "{}" },
      { type: "custom_tool_call", id: "ctc_1", call_id: "call_2", name: "apply_patch", input: "" },
      { type: "local_shell_call", id: "lsh_1", call_id: "call_3", action: {} },
      { type: "web_search_call", id: "ws_1" },
      { type: "message", id: "msg_1", content: [] },
    ],
    usage: USAGE,
  });
  assert.deepEqual(evidence, {
    model: "gpt-5-codex",
    usage: { prompt_tokens: 1200, completion_tokens: 300 },
    usageDetail: {
      input_tokens: 1200,
      output_tokens: 300,
      cached_tokens: 1024,
      cache_write_tokens: 0,
      reasoning_tokens: 256,
    },
    // function_call, custom_tool_call, local_shell_call; the hosted web search is not the agent's
    toolCalls: 3,
  });
});

Deno.test("openaiResponses.wholeEvidence() has no usage without integer input and output tokens", () => {
  const evidence = openaiResponses.wholeEvidence({ model: "m", usage: { input_tokens: 3 } });
  assert.deepEqual([evidence.usage, evidence.usageDetail], [null, null]);
  assert.deepEqual(openaiResponses.wholeEvidence(undefined), {
    model: null,
    usage: null,
    usageDetail: null,
    toolCalls: 0,
  });
});

Deno.test("openaiResponses.streamReader() reads the model, tool calls and response.completed usage", () => {
  const reader = openaiResponses.streamReader({ stream: true });
  const item = { type: "function_call", id: "fc_1", call_id: "call_1", name: "run" };
  const verdicts = [
    reader.add(event({ type: "response.created", response: { model: "gpt-x", usage: null } })),
    reader.add(event({ type: "response.output_item.added", output_index: 0, item })),
    reader.add(event({ type: "response.function_call_arguments.delta", delta: "{}" })),
    reader.add(event({ type: "response.output_item.done", output_index: 0, item })),
  ];
  assert.deepEqual(verdicts.map((v) => v.end), [false, false, false, false]);
  assert.equal(reader.evidence().usage, null);
  const last = reader.add(event({
    type: "response.completed",
    response: { model: "gpt-x", output: [item], usage: USAGE },
  }));
  assert.deepEqual(last, { pass: true, end: true });
  const evidence = reader.evidence();
  assert.equal(evidence.model, "gpt-x");
  assert.deepEqual(evidence.usage, { prompt_tokens: 1200, completion_tokens: 300 });
  // the same call_id in added, done and the final output counts once
  assert.equal(evidence.toolCalls, 1);
  assert.deepEqual(reader.notes(true), []);
  assert.equal(reader.upstreamError(), null);
});

Deno.test("openaiResponses.streamReader() reports failures, error events and a missing last event", () => {
  const failed = openaiResponses.streamReader({});
  const end = failed.add(event({
    type: "response.failed",
    response: { model: "m", error: { code: "server_error", message: "boom" }, usage: null },
  }));
  assert.equal(end.end, true);
  assert.equal(failed.upstreamError(), "boom");
  const errored = openaiResponses.streamReader({});
  errored.add(event({ type: "error", code: "x", message: "overloaded", param: null }));
  assert.equal(errored.upstreamError(), "overloaded");
  assert.deepEqual(errored.notes(false), ["Upstream stream ended without response.completed"]);
});

Deno.test("openaiResponses refuses background responses and needs no stream change", () => {
  assert.match(openaiResponses.requestProblem({ background: true }) ?? "", /^Field "background"/);
  assert.equal(openaiResponses.requestProblem({ background: false }), null);
  const streamed = { stream: true };
  assert.equal(openaiResponses.streamedCall("/v1/responses", streamed).body, streamed);
  assert.deepEqual(
    [openaiResponses.outputCapFields, openaiResponses.defaultOutputCapField],
    [["max_output_tokens"], "max_output_tokens"],
  );
});

Deno.test("openaiResponses.streamErrorEvent() is an error event the openai SDK throws", () => {
  assert.equal(
    openaiResponses.streamErrorEvent({ message: "cut", type: "upstream_error", code: "aborted" }),
    'event: error\ndata: {"type":"error","code":"aborted","message":"cut","param":null}\n\n',
  );
});

// Reassembly (issue 21): whole and streamed renderings of one scripted reply (scripted_reply_parts.ts).
for (const [name, reply] of Object.entries(REPLIES)) {
  Deno.test(`openaiResponses.wholeFromEvents() is the scripted whole response: ${name}`, () => {
    const request = { instructions: "Be brief.", max_output_tokens: 500, tools: [] };
    const { whole, events } = renderings("/v1/responses", reply, request);
    assert.deepEqual(openaiResponses.wholeFromEvents(events, "/v1/responses"), whole);
  });
}

Deno.test("openaiResponses.wholeFromEvents() takes the final event's response, incomplete or failed too", () => {
  const final = (status: string) => ({
    id: "resp_1",
    object: "response",
    status,
    model: "gpt-5",
    output: [],
    usage: USAGE,
  });
  for (
    const [type, status] of [
      ["response.completed", "completed"],
      ["response.incomplete", "incomplete"],
      ["response.failed", "failed"],
    ]
  ) {
    const events = eventsOf(
      `event: response.created\ndata: ${
        JSON.stringify({
          type: "response.created",
          response: { id: "resp_1", status: "in_progress" },
        })
      }\n\nevent: ${type}\ndata: ${JSON.stringify({ type, response: final(status) })}\n\n`,
    );
    assert.deepEqual(openaiResponses.wholeFromEvents(events, "/v1/responses"), final(status));
  }
  const cut = eventsOf(
    `data: ${JSON.stringify({ type: "response.created", response: { id: "resp_1" } })}\n\n`,
  );
  assert.equal(openaiResponses.wholeFromEvents(cut, "/v1/responses"), null);
});
