import assert from "node:assert/strict";
import { toolCalls, transcript } from "./transcript.ts";
import { callBody as body, toolConversation } from "./_call_body_for_test.ts";

Deno.test("transcript() reads Chat Completions and shows each turn once", () => {
  const calls = transcript(toolConversation({
    user: "list files",
    tool: "shell",
    arguments: '{"cmd":"ls"}',
    result: "a.txt",
    reply: "Done.",
  }));
  assert.deepEqual(calls[0].sent, [{
    role: "user",
    parts: [{ kind: "text", text: "list files" }],
  }]);
  assert.deepEqual(calls[0].reply?.parts, [
    { kind: "tool_call", name: "shell", id: "c1", arguments: '{"cmd":"ls"}' },
  ]);
  // The user turn and the echoed assistant turn are not repeated.
  assert.equal(calls[1].already_shown, 2);
  assert.deepEqual(calls[1].sent, [
    { role: "tool", parts: [{ kind: "tool_result", id: "c1", text: "a.txt" }] },
  ]);
  assert.deepEqual(calls[1].reply, { role: "assistant", parts: [{ kind: "text", text: "Done." }] });
  assert.deepEqual(toolCalls(calls), [{
    call: 1,
    name: "shell",
    id: "c1",
    arguments: '{"cmd":"ls"}',
  }]);
});

Deno.test("transcript() joins a streamed Chat Completions reply's deltas", () => {
  const stream = [
    { choices: [{ delta: { role: "assistant", content: "Hel" } }] },
    { choices: [{ delta: { content: "lo" } }] },
    {
      choices: [{
        delta: { tool_calls: [{ index: 0, id: "t", function: { name: "sh", arguments: '{"a"' } }] },
      }],
    },
    { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: ":1}" } }] } }] },
  ].map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
  const [call] = transcript([
    body(1, "/v1/chat/completions", { messages: [], stream: true }, stream),
  ]);
  assert.deepEqual(call.reply?.parts, [
    { kind: "text", text: "Hello" },
    { kind: "tool_call", name: "sh", id: "t", arguments: '{"a":1}' },
  ]);
});

Deno.test("transcript() reads the Responses API, whole and from response.completed", () => {
  const request = {
    instructions: "Be brief",
    input: [
      { role: "user", content: [{ type: "input_text", text: "fix it" }] },
      { type: "function_call", name: "shell", arguments: "{}", call_id: "f1" },
      { type: "function_call_output", call_id: "f1", output: "ok" },
    ],
  };
  const response = {
    output: [
      { type: "reasoning", summary: [{ type: "summary_text", text: "thinking" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Fixed." }] },
    ],
  };
  const stream = `event: response.completed\ndata: ${
    JSON.stringify({ type: "response.completed", response })
  }\n\n`;
  const [whole, streamed] = transcript([
    body(1, "/v1/responses", request, JSON.stringify(response)),
    body(2, "/v1/responses", { input: "again" }, stream),
  ]);
  assert.deepEqual(whole.sent.map((m) => m.role), ["system", "user", "assistant", "tool"]);
  assert.deepEqual(whole.sent[3].parts, [{ kind: "tool_result", id: "f1", text: "ok" }]);
  assert.deepEqual(whole.reply?.parts, [
    { kind: "text", text: "thinking" },
    { kind: "text", text: "Fixed." },
  ]);
  // A shorter request is a new conversation, shown whole.
  assert.deepEqual(streamed.sent, [{ role: "user", parts: [{ kind: "text", text: "again" }] }]);
  assert.deepEqual(streamed.reply, whole.reply);
});

Deno.test("transcript() reads Anthropic Messages, whole and streamed", () => {
  const request = {
    system: "sys",
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "u1", name: "bash", input: { c: "ls" } }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "u1", content: "x" }] },
    ],
  };
  const events = [
    { type: "message_start", message: { usage: { input_tokens: 3 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Listing" } },
    {
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "u2", name: "bash" },
    },
    {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: '{"c":' },
    },
    {
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: '"pwd"}' },
    },
  ].map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  const [call] = transcript([body(1, "/v1/messages", request, events)]);
  assert.deepEqual(call.sent[0], { role: "system", parts: [{ kind: "text", text: "sys" }] });
  assert.deepEqual(call.sent[2].parts, [{
    kind: "tool_call",
    name: "bash",
    id: "u1",
    arguments: '{"c":"ls"}',
  }]);
  assert.deepEqual(call.sent[3].parts, [{ kind: "tool_result", id: "u1", text: "x" }]);
  assert.deepEqual(call.reply?.parts, [
    { kind: "text", text: "Listing" },
    { kind: "tool_call", name: "bash", id: "u2", arguments: '{"c":"pwd"}' },
  ]);
  const whole = transcript([
    body(1, "/v1/messages", request, JSON.stringify({ content: [{ type: "text", text: "hi" }] })),
  ]);
  assert.deepEqual(whole[0].reply?.parts, [{ kind: "text", text: "hi" }]);
});

Deno.test("transcript() shows a cut or unknown body as its kept text with a note, never guessed", () => {
  const [call] = transcript([{
    index: 1,
    endpoint: "/v1/chat/completions",
    request: { text: '{"messages":[{"role":"us', bytes: 90_000, truncated: true },
    response: { text: "not json", bytes: 8, truncated: false },
  }]);
  assert.deepEqual(call.sent, []);
  assert.equal(call.raw_request, '{"messages":[{"role":"us');
  assert.equal(call.raw_response, "not json");
  assert.deepEqual(call.notes, [
    "The request was cut by the relay (first part of 90000 bytes kept)",
    "The response's shape for /v1/chat/completions is not known",
  ]);
});
